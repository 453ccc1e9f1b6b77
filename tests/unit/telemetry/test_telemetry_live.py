"""Live figures: the point's figures in Prometheus's text format, percentiles from the histogram."""

from __future__ import annotations

import urllib.request

import pytest

pytest.importorskip("prometheus_client")

from dbstor.telemetry.live import LiveFigures


def _scrape(live: LiveFigures) -> dict[str, float]:
    text = urllib.request.urlopen(live.url, timeout=5).read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def test_point_figures_and_percentiles_from_bins() -> None:
    bins = {"100000": 90, "2000000": 9, "50000000": 1}  # ns -> count, as an outcome carries
    with LiveFigures(0, run="r", kind="database") as live:
        assert live.url.startswith("http://127.0.0.1:")
        live.start_point(2, {"users": 16})
        live.update(ops=400, errors=1, elapsed_s=2.0, histogram={"bins": bins})
        got = _scrape(live)
        assert got["dbstor_point"] == 2
        assert got['dbstor_point_load{what="users"}'] == 16
        assert got["dbstor_point_ops_per_second"] == 200
        assert got['dbstor_point_latency_seconds{quantile="0.5"}'] == pytest.approx(1e-4)
        assert got['dbstor_point_latency_seconds{quantile="0.95"}'] == pytest.approx(2e-3)
        assert got['dbstor_point_latency_seconds{quantile="0.999"}'] == pytest.approx(5e-2)
        # The next point starts from zero; the run's totals keep counting.
        live.start_point(3, {"users": 32})
        live.update(ops=100, errors=0, elapsed_s=1.0)
        got = _scrape(live)
        assert got["dbstor_point_ops"] == 100 and got["dbstor_ops_total"] == 500
        assert got["dbstor_errors_total"] == 1
        assert (
            'dbstor_point_load{what="users"}' in got
            and got['dbstor_point_load{what="users"}'] == 32
        )
        assert not any(k.startswith("dbstor_point_latency_seconds") for k in got)


def test_device_iops_are_absent_until_sampled_never_zero() -> None:
    """An external server's run samples no device here: the gauge is missing, not 0."""
    with LiveFigures(0, run="r", kind="database") as live:
        live.start_point(1, {"users": 4})
        live.device_sample(None)
        live.finish_point(1, None, {})
        got = _scrape(live)
        assert "dbstor_point_device_iops" not in got
        assert "dbstor_last_point_ops_per_second" not in got
        live.device_sample(1234.0)
        assert _scrape(live)["dbstor_point_device_iops"] == 1234.0
        live.start_point(2, {"users": 8})  # a new point: no sample yet, so absent again
        assert "dbstor_point_device_iops" not in _scrape(live)
