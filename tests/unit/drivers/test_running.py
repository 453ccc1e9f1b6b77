"""The users' running figures during a point: their tallies merged without stopping them,
the same bins as the point's merged result, so live percentiles are the running histogram's."""

from __future__ import annotations

import urllib.request

import pytest

from dbstor.drivers.running import running_figures
from dbstor.drivers.tally import Tally, merge
from dbstor.telemetry.live import LiveFigures

pytest.importorskip("prometheus_client")


def tallies() -> list[Tally]:
    a, b = Tally(), Tally()
    for i in range(900):
        a.record("trade", 1_000_000 + i * 1000, second=i // 300)
    for _ in range(100):
        b.record("lookup", 50_000_000, second=0)
    b.errors = 3
    return [a, b]


def test_running_figures_merge_every_user_and_type_exactly() -> None:
    users = tallies()
    figures = running_figures(users, elapsed_s=2.5)
    assert figures["ops"] == 1000 and figures["errors"] == 3 and figures["elapsed_s"] == 2.5
    merged = merge(users, ["trade", "lookup"], 3.0, open_loop=False).latency
    hist = figures["histogram"]
    assert {int(k): v for k, v in hist["bins"].items()} == dict(merged.bins)
    assert hist["max_ns"] == pytest.approx(50_000_000)
    assert hist["total_ns"] == pytest.approx(merged.total_ns)


def test_running_figures_serve_live_percentiles() -> None:
    figures = running_figures(tallies(), elapsed_s=2.0)
    with LiveFigures(0, run="t", kind="database") as live:
        live.start_point(1, {"users": 2})
        live.update(figures["ops"], figures["errors"], figures["elapsed_s"], figures["histogram"])
        text = urllib.request.urlopen(live.url, timeout=5).read().decode()
    assert "dbstor_point_ops 1000.0" in text
    assert "dbstor_point_ops_per_second 500.0" in text
    assert "dbstor_point_errors 3.0" in text
    p99 = next(
        line for line in text.splitlines() if 'quantile="0.99"' in line and "_point_lat" in line
    )
    assert float(p99.split()[-1]) == pytest.approx(0.05, rel=0.03)  # the 50 ms lookups


def test_no_tallies_no_figures() -> None:
    figures = running_figures([], elapsed_s=-1.0)
    assert figures["ops"] == 0 and figures["elapsed_s"] == 0.0
    assert figures["histogram"]["bins"] == {}
