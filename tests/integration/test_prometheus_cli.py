"""`dbstor io` with --prometheus, --storage, --db-host and --metrics-port against real servers.

Debian's node_exporter stands in for the database host (--db-host) and, through a preset
of the user's own that reads it as a storage system, for the array (--storage): its
figures must agree with /proc's over the same points. The Prometheus that serves those
figures also scrapes dbstor's live endpoint while the run goes; what it stored must equal
results.json. A Prometheus that is not there stops the run before anything is created.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prom_servers import free_port, node_exporter, prometheus

from dbstor.telemetry.disk import devices_for_path

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

NODE_AS_STORAGE = """\
# A test stand-in: node_exporter's disk counters read as if they were an array's.
name = "node-as-storage"
layers = ["storage"]
docs = ["https://github.com/prometheus/node_exporter/blob/master/collector/diskstats_linux.go"]
[quantities.read_iops]
kind = "counter"
metric = "node_disk_reads_completed_total"
unit = "ops"
[quantities.write_iops]
kind = "counter"
metric = "node_disk_writes_completed_total"
unit = "ops"
[quantities.read_latency_ms]
kind = "ratio"
metric = "node_disk_read_time_seconds_total"
unit = "s"
per = "node_disk_reads_completed_total"
[quantities.cpu_util_pct]
kind = "ratio"
metric = "node_cpu_seconds_total"
match = 'mode!~"idle|iowait"'
unit = "fraction"
per = "node_cpu_seconds_total"
drop = ["device"]
"""


def test_io_run_with_layers_and_live_figures(dbstor, tmp_path: Path) -> None:
    device = (devices_for_path(tmp_path) or [None])[0]
    if device is None:
        pytest.skip(f"no block device under {tmp_path}")
    (tmp_path / "target").mkdir()
    preset = tmp_path / "node-as-storage.toml"
    preset.write_text(NODE_AS_STORAGE)
    live_port = free_port()
    with (
        node_exporter(tmp_path) as target,
        prometheus(tmp_path, {"node": [target], "dbstor": [f"127.0.0.1:{live_port}"]}) as server,
    ):
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        select = f'instance="{target}",device="{device}"'
        proc = dbstor.start(
            "io",
            "--target", f"T={tmp_path / 'target'}",
            "--profile", "io-oltp",
            "--iodepth", "1,4",
            "--duration", "8s",
            "--warmup", "2s",
            "--size", "64MiB",
            "--prometheus", server.url,
            "--storage", str(preset),
            "--storage-select", select,
            "--db-host", select,
            "--metrics-port", str(live_port),
            "--out", str(tmp_path / "results"),
        )  # fmt: skip
        # While point 2 runs, Prometheus scrapes point 1's figures from the live endpoint.
        scraped = server.wait_for('dbstor_last_point{job="dbstor"} == 1', timeout=90)
        assert scraped
        live_rate = float(server.wait_for("dbstor_last_point_ops_per_second")[0]["value"][1])
        live_p99 = server.wait_for('dbstor_last_point_latency_seconds{quantile="0.99"}')
        assert server.wait_for("dbstor_point_device_iops > 0")  # live while a point runs
        stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    points = results["points"]
    assert results["study"]["telemetry"]["storage"] == str(preset)
    first = points[0]
    assert live_rate == pytest.approx(first["read_iops"] + first["write_iops"], rel=1e-9)
    if first["read_lat_ms"]["p99"] is not None:
        assert float(live_p99[0]["value"][1]) == pytest.approx(
            first["read_lat_ms"]["p99"] / 1000, rel=1e-9
        )
    for point in points:
        layers = point["layers"]
        assert list(layers) == ["client", "host_device", "remote_device", "storage"]
        host, storage, remote = layers["host_device"], layers["storage"], layers["remote_device"]
        assert storage["source"] == "node-as-storage" and remote["source"] == "node-exporter"
        assert storage["read_iops"] == pytest.approx(host["read_iops"], rel=0.05)
        assert remote["read_iops"] == pytest.approx(host["read_iops"], rel=0.05)
        assert layers["client"]["source"] == "fio"
    assert "storage read" in stderr + stdout
    report = next((tmp_path / "results").glob("*/report.html")).read_text()
    assert "Mean read latency by layer" in report
    # the storage system's CPU (recorded in its layer) in the CPU chart and the layer table
    assert all(0 <= p["layers"]["storage"]["cpu_util_pct"] <= 100 for p in points)
    assert "CPU busy by layer" in report and "Storage system" in report
    table = report[report.index('<table class="layers">') :]
    row = table[table.index("the storage system") :].split("</tr>")[0]
    cpu = points[0]["layers"]["storage"]["cpu_util_pct"]
    assert f"{cpu:.0f}%" in row


def test_prometheus_not_there_stops_before_anything(dbstor, tmp_path: Path) -> None:
    out = tmp_path / "results"
    (tmp_path / "target").mkdir()
    result = dbstor(
        "io",
        "--target", str(tmp_path / "target"),
        "--iodepth", "1",
        "--duration", "2s",
        "--prometheus", f"http://127.0.0.1:{free_port()}",
        "--storage", "purefa",
        "--storage-select", 'name="sqldata"',
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 2
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "did not answer" in lines[0], result.stderr
    assert not out.exists() and not any((tmp_path / "target").iterdir())


def test_storage_without_prometheus_is_one_line(dbstor, tmp_path: Path) -> None:
    result = dbstor("io", "--target", str(tmp_path), "--storage", "purefa")
    assert result.returncode == 2
    assert "--storage needs --prometheus URL" in result.stderr


def test_database_run_with_the_database_hosts_device(dbstor, tmp_path: Path) -> None:
    """A database run with --db-host: the named device's figures from node_exporter sit
    beside the transaction latency and /proc's device in each point's layers."""
    device = (devices_for_path(tmp_path) or [None])[0]
    if device is None:
        pytest.skip(f"no block device under {tmp_path}")
    (tmp_path / "data").mkdir()
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        result = dbstor(
            "run",
            "--engine", "sqlite",
            "--workload", "brokerage",
            "--scale", "1000",
            "--target", str(tmp_path / "data"),
            "--users", "1,2",
            "--duration", "4s",
            "--warmup", "1s",
            "--prometheus", server.url,
            "--db-host", f'instance="{target}",device="{device}"',
            "--out", str(tmp_path / "results"),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    for point in results["points"]:
        layers = point["layers"]
        assert list(layers) == ["client", "host_device", "remote_device"]
        assert layers["client"]["source"] == "sqlite"
        assert layers["client"]["txn_latency_ms"] > 0
        remote = layers["remote_device"]
        assert remote["source"] == "node-exporter" and "missing" not in remote
        assert remote["cpu_util_pct"] is not None


def test_query_run_gets_layers_too(dbstor, tmp_path: Path) -> None:
    """A query run (dss) with --db-host: each point's layers, as a database run's, over the
    seconds its streams ran (SQLite at this scale: points of seconds, longer than a scrape)."""
    device = (devices_for_path(tmp_path) or [None])[0]
    if device is None:
        pytest.skip(f"no block device under {tmp_path}")
    (tmp_path / "data").mkdir()
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        result = dbstor(
            "run",
            "--engine", "sqlite",
            "--workload", "dss",
            "--scale", "0.05",
            "--queries", "all",
            "--streams", "1,2",
            "--target", str(tmp_path / "data"),
            "--prometheus", server.url,
            "--db-host", f'instance="{target}",device="{device}"',
            "--out", str(tmp_path / "results"),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    assert [p["load"]["value"] for p in results["points"]] == [1, 2]
    for point in results["points"]:
        layers = point["layers"]
        assert list(layers) == ["client", "host_device", "remote_device"]
        assert layers["client"]["source"] == "sqlite" and layers["client"]["tps"] > 0
        remote = layers["remote_device"]
        assert remote["source"] == "node-exporter" and "missing" not in remote
        if point["duration_s"] >= 3.0:  # three 1 s scrapes at least: every figure is there
            assert remote["cpu_util_pct"] is not None, remote
        else:  # a figure the window was too short for is null and says why, never 0
            for quantity, value in remote.items():
                if value is None:
                    assert "window" in remote["nulled"][quantity], remote
