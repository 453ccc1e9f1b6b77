"""Live figures within a database point: Prometheus scraping `dbstor run --metrics-port`
while a SQLite point runs sees the users' operations grow, their latency percentiles from
the running histogram, and the errors, before the point finishes; the running counts
never pass the point's own in results.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prom_servers import free_port, prometheus

pytestmark = [pytest.mark.integration]


def _value(server, expr: str) -> float:
    return float(server.wait_for(expr)[0]["value"][1])


def test_a_scrape_during_a_database_point_sees_a_growing_count(dbstor, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    port = free_port()
    with prometheus(tmp_path, {"dbstor": [f"127.0.0.1:{port}"]}) as server:
        proc = dbstor.start(
            "run",
            "--engine", "sqlite",
            "--workload", "brokerage",
            "--scale", "50",
            "--users", "2",
            "--duration", "10s",
            "--warmup", "1s",
            "--target", str(tmp_path / "data"),
            "--metrics-port", str(port),
            "--out", str(tmp_path / "results"),
        )  # fmt: skip
        running = 'dbstor_point{job="dbstor"} == 1 and on() dbstor_last_point == 0'
        server.wait_for(running, timeout=120)
        server.wait_for('dbstor_point_ops{job="dbstor"} > 0', timeout=30)
        first = _value(server, 'dbstor_point_ops{job="dbstor"}')
        server.wait_for(f'dbstor_point_ops{{job="dbstor"}} > {first}', timeout=30)  # a later scrape
        second = _value(server, 'dbstor_point_ops{job="dbstor"}')
        still = server.query(running)
        p99 = _value(server, 'dbstor_point_latency_seconds{job="dbstor",quantile="0.99"}')
        rate = _value(server, 'dbstor_point_ops_per_second{job="dbstor"}')
        errors = _value(server, 'dbstor_point_errors{job="dbstor"}')
        _, stderr = proc.communicate(timeout=180)
        assert proc.returncode == 0, stderr
        most = _value(server, 'max_over_time(dbstor_point_ops{job="dbstor"}[5m])')
    assert still, "the point finished before the second scrape: the count was not seen growing"
    assert 0 < first < second
    assert p99 > 0 and rate > 0 and errors >= 0
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    (point,) = results["points"]
    finished = point["tps"] * point["duration_s"]
    assert finished > 0
    assert second <= most <= round(finished) + 1  # running counts never pass the point's own
    assert rate == pytest.approx(point["tps"], rel=0.5)  # the running rate, near the final one
