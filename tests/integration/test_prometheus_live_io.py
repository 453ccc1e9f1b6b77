"""Live figures within an io point: Prometheus scraping `dbstor io --metrics-port` while a
real fio point runs sees its operations, IOPS and latency percentiles (from fio's running
json+ histogram, --status-interval=1) before the point finishes; the point's results
still come from fio's final json+ alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prom_servers import free_port, prometheus

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

BEFORE_THE_END = "and on() dbstor_last_point == 0"  # no point has finished yet


def _value(server, expr: str, timeout: float = 30.0) -> float:
    return float(server.wait_for(expr, timeout=timeout)[0]["value"][1])


def test_a_scrape_during_an_io_point_sees_live_percentiles(dbstor, tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    port = free_port()
    with prometheus(tmp_path, {"dbstor": [f"127.0.0.1:{port}"]}) as server:
        proc = dbstor.start(
            "io",
            "--target", str(tmp_path / "target"),
            "--profile", "io-oltp",
            "--iodepth", "2",
            "--duration", "20s",
            "--warmup", "2s",
            "--size", "64MiB",
            "--metrics-port", str(port),
            "--out", str(tmp_path / "results"),
        )  # fmt: skip
        p50 = _value(
            server,
            f'dbstor_point_latency_seconds{{job="dbstor",quantile="0.5"}} > 0 {BEFORE_THE_END}',
            timeout=120,
        )
        p99 = _value(
            server, f'dbstor_point_latency_seconds{{job="dbstor",quantile="0.99"}} {BEFORE_THE_END}'
        )
        rate = _value(server, f'dbstor_point_ops_per_second{{job="dbstor"}} > 0 {BEFORE_THE_END}')
        ops = _value(server, f'dbstor_point_ops{{job="dbstor"}} {BEFORE_THE_END}')
        _, stderr = proc.communicate(timeout=240)
        assert proc.returncode == 0, stderr
        # the last running figures scraped, from fio's last status before the point's end
        last = 'last_over_time({}{{job="dbstor"{}}}[10m])'
        last_p50 = _value(server, last.format("dbstor_point_latency_seconds", ',quantile="0.5"'))
        last_rate = _value(server, last.format("dbstor_point_ops_per_second", ""))
    assert 0 < p50 <= p99 and rate > 0
    folder = next((tmp_path / "results").glob("*/"))
    results = json.loads((folder / "results.json").read_text())
    (point,) = results["points"]
    final_ops = (point["read_iops"] + point["write_iops"]) * point["duration_s"]
    assert 0 < ops <= final_ops * 1.05  # a count on the way to the point's own
    # The first running figures can differ from the point's (its first seconds, a shared
    # machine); the last cover nearly all of it: near the final ones, in their units.
    assert last_rate == pytest.approx(point["read_iops"] + point["write_iops"], rel=0.25)
    assert last_p50 * 1000 == pytest.approx(point["read_lat_ms"]["p50"], rel=0.25)
    kept = (folder / "jobs" / "point-01.json").read_text()
    assert kept.count('"fio version"') == 1  # fio's final object only, as without live figures


def test_a_scrape_during_a_query_point_sees_finished_queries(dbstor, tmp_path: Path) -> None:
    """A power run (SQLite, every query): each query's time goes live as it finishes."""
    (tmp_path / "data").mkdir()
    port = free_port()
    with prometheus(tmp_path, {"dbstor": [f"127.0.0.1:{port}"]}) as server:
        proc = dbstor.start(
            "run",
            "--engine", "sqlite",
            "--workload", "dss",
            "--scale", "0.2",  # a point of seconds on a fast host too: several scrapes
            "--queries", "all",
            "--streams", "1",
            "--target", str(tmp_path / "data"),
            "--metrics-port", str(port),
            "--out", str(tmp_path / "results"),
        )  # fmt: skip
        done = _value(server, f'dbstor_point_ops{{job="dbstor"}} > 0 {BEFORE_THE_END}', 240)
        p50 = _value(
            server, f'dbstor_point_latency_seconds{{job="dbstor",quantile="0.5"}} {BEFORE_THE_END}'
        )
        _, stderr = proc.communicate(timeout=240)
        assert proc.returncode == 0, stderr
    (point,) = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())["points"]
    ok = [q["elapsed_s"] for q in point["queries"] if q["status"] == "ok"]
    assert 0 < done <= len(point["queries"])

    # one of the finished queries' times, to the nanosecond
    assert min(ok) - 1e-6 <= p50 <= max(ok) + 1e-6
