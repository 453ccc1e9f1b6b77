"""Missing is never 0 in the report's charts: a target with no block device (the golden
tmpfs run, measured by fio on tmpfs) and a transaction p99 withheld for too few
transactions say "not measured: why" where the figure would be, and no caption names a
chart that is not drawn."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

from dbstor.report.database.figures import tps_caption, tps_chart, tps_latency_curve
from dbstor.report.html import render_report
from dbstor.report.io.figures import iops_cpu_chart, latency_chart
from dbstor.report.kit.absent import is_absent
from dbstor.results.model import LatencyStats, Run

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_a_tmpfs_run_says_its_device_was_not_measured(tmpfs: Run) -> None:
    assert all(p.device is None for p in tmpfs.points)
    legend = "device busy %: not measured (no block device under the target)"
    assert legend in _texts(iops_cpu_chart(tmpfs))
    assert "device await: not measured (no block device under the target)" in _texts(
        latency_chart(tmpfs)
    )


def _withheld(run: Run) -> Run:
    """The run as if each point had had too few transactions for a p99 (312 at most)."""
    run = copy.deepcopy(run)
    for count, point in zip((104, 208, 312, 290), run.points, strict=False):
        point.txn_lat_ms = LatencyStats(mean=4.0, p50=3.0, p95=9.0, p99=None, count=count)
    run.points = run.points[:4]
    return run


def test_a_withheld_p99_gives_its_reason_in_place_of_the_curve(default_pair) -> None:
    runs, _ = default_pair
    db = _withheld(runs[1])
    curve = tps_latency_curve([db], {db.run_id: "sqlite"})
    assert is_absent(curve)
    words = " ".join(_texts(curve))
    assert "Transaction p99 latency not measured: a p99 needs 1,000 transactions" in words
    assert "the most any point had was 312 (at 4 users)" in words
    assert "no data to plot" not in curve


def test_a_withheld_p99_draws_the_tps_bars_and_says_why(default_pair) -> None:
    runs, _ = default_pair
    db = _withheld(runs[1])
    chart = tps_chart(db)
    assert not is_absent(chart)
    assert "transaction p99 latency: not measured (see the caption)" in _texts(chart)
    assert "a p99 needs 1,000 transactions" in tps_caption(db)
    assert "Line: the p99" not in tps_caption(db)


def test_no_caption_under_a_chart_that_is_not_drawn(default_pair) -> None:
    runs, _ = default_pair
    db = _withheld(runs[1])
    html = render_report([runs[0], db])
    start = html.index("Transaction p99 latency not measured")
    figure = html[html.rfind("<figure>", 0, start) : html.index("</figure>", start)]
    assert "<figcaption>" not in figure
    assert "The database&#x27;s own view" not in html


def test_a_type_with_too_few_transactions_says_so_in_its_row(default_pair) -> None:
    from dbstor.report.database.figures import txn_types_chart

    runs, _ = default_pair
    db = copy.deepcopy(runs[1])
    point = db.points[0]
    types = point.txn_types or {}
    rare = min(types, key=lambda t: types[t].count)
    types[rare] = LatencyStats(mean=6.0, p99=None, count=445)
    words = _texts(txn_types_chart(db, point))
    assert (
        "p99 not measured: 445 transactions of this type, fewer than the 1,000 a p99 needs" in words
    )
    assert "p99" in words  # the legend still names the p99 bars the other types have
    for name in types:
        types[name] = LatencyStats(mean=1.0, p99=None, count=35 if name == rare else 20)
    words = _texts(txn_types_chart(db, point))
    legend = (
        "p99: not measured (at most 35 transactions of a type, fewer than the 1,000 a p99 needs)"
    )
    assert legend in words and not any(w.startswith("p99 not measured:") for w in words)


def test_an_await_under_the_counters_resolution_says_so_not_zero(fc: Run) -> None:
    run = copy.deepcopy(fc)
    why = "device reads await under 0.065 ms: 15 reads took less than the disk counters' ..."
    for point in run.points:
        point.device.read_await_ms, point.device.read_await_reason = None, why
    texts = _texts(latency_chart(run))
    assert "mean read, device await: not measured (see the caption)" in texts
    html = render_report([run], {})
    assert "was under the disk counters' 1 ms resolution" in html
    assert "under the disk counters" not in render_report([fc], {})
