"""An external PostgreSQL (--dsn) with its own device named by --db-host: the server's
device figures (the remote_device layer, from node_exporter through a real Prometheus)
drive the terminal's device columns, the peak and the knee, each naming the layer, instead
of "–" and "unknown"; this host's device is not the database's and is not shown as 0."""

from __future__ import annotations

import json
from pathlib import Path

import pg_server
import pytest
from prom_servers import free_port, node_exporter, prometheus

from dbstor.telemetry.disk import devices_for_path

pytestmark = [pytest.mark.integration]


def test_external_servers_own_device_drives_columns_peak_and_knee(dbstor, tmp_path: Path):
    with pg_server.running_server(settings={"shared_buffers": "1MB"}) as server:
        device = (devices_for_path(server.datadir) or [None])[0]
        if device is None:
            pytest.skip(f"no block device under {server.datadir}")
        live_port = free_port()
        with (
            node_exporter(tmp_path) as target,
            prometheus(tmp_path, {"node": [target], "dbstor": [f"127.0.0.1:{live_port}"]}) as prom,
        ):
            prom.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
            proc = dbstor(
                "run",
                "--engine", "postgres",
                "--dsn", server.dsn("postgres"),
                "--workload", "brokerage",
                "--scale", "200",
                "--users", "1,2",
                "--duration", "4s",
                "--warmup", "1s",
                "--slo-metric", "write_lat_mean_ms",
                "--slo", "10s",
                "--prometheus", prom.url,
                "--db-host", f'instance="{target}",device="{device}"',
                "--metrics-port", str(live_port),
                "--out", str(tmp_path / "results"),
                timeout=400,
            )  # fmt: skip
            # live figures were scraped, but this host samples no device of the server's:
            # the device gauge is absent, never 0
            scraped = prom.query('count_over_time(dbstor_point_ops{job="dbstor"}[10m])')
            device_iops = prom.query("count_over_time(dbstor_point_device_iops[10m])")
    assert proc.returncode == 0, proc.stderr
    assert scraped and float(scraped[0]["value"][1]) > 0
    assert device_iops == []
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    assert results["engine"]["managed"] is False
    remote = [p["layers"]["remote_device"] for p in results["points"]]
    assert all("missing" not in r and r.get("write_iops") is not None for r in remote), remote
    # the run's own device fields stay this host's: null, never 0
    assert all(p["read_iops"] is None and p["write_iops"] is None for p in results["points"])
    assert results["peak"]["layer"] == "remote_device" and results["peak"]["iops"] is not None
    out = " ".join(proc.stderr.split())
    assert "db host IOPS" in out or ("db host" in out and "IOPS" in out)
    assert "device columns: the database server's own device (remote_device layer" in out
    # a knee on read latency needs reads at the server's device: on a quiet host with room
    # in its page cache the server may read nothing there (then no knee is claimed)
    if all((r.get("read_iops") or 0) > 0 for r in remote):
        assert results["knee"]["layer"] == "remote_device"
        assert results["knee"]["within_slo"] is True  # every point within 10 s: beyond the last
        assert "knee: unknown" not in out
        assert "(on the database server's own device: the remote_device layer)" in out
        folder = next((tmp_path / "results").glob("*/results.json")).parent
        html = (folder / "report.html").read_text()
        # stated, or "as measured" beside a refusal on flagged points
        assert "every point within the SLO" in html and "the remote_device layer)" in html
    table = proc.stderr.split("device columns")[0]
    rows = [line for line in table.splitlines() if line.strip().startswith(("1 user", "2 users"))]
    assert len(rows) == 2
    for row in rows:  # "1 user  432  14.9  241  0.38 ...": load, TPS, p99, IOPS, await
        float(row.split()[4].replace(",", ""))  # measured there (a number), never "–"
