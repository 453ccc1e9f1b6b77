"""The user's own PromQL against a real Prometheus and node_exporter (Debian's packages).

Queries written by hand over node_exporter's node_disk_* counters give, per point, the
same figures as the node-exporter preset over the same device: the cumulative keys
(read_ops_total, read_latency_s_total...) exactly; a rate() expression of read IOPS is
read too (near, not equal: a mean of per-step rates over a device others share).
Preflight stops a bad query (Prometheus's own parse error), one with no series and a
counter given as a per-second figure, each with one line, before anything is created.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prom_servers import node_exporter, prometheus

from dbstor.telemetry.disk import devices_for_path

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]
SCRAPE_S = 3  # a point of a few seconds is still shorter than two scrapes


def _device(tmp_path: Path) -> str:
    device = (devices_for_path(tmp_path) or [None])[0]
    if device is None:
        pytest.skip(f"no block device under {tmp_path}")
    return device


def test_own_queries_give_the_presets_figures(dbstor, tmp_path: Path) -> None:
    device = _device(tmp_path)
    (tmp_path / "target").mkdir()
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        sel = f'{{instance="{target}",device="{device}"}}'
        queries = {
            "read_ops_total": f"node_disk_reads_completed_total{sel}",
            "write_ops_total": f"node_disk_writes_completed_total{sel}",
            "read_bytes_total": f"node_disk_read_bytes_total{sel}",
            "read_latency_s_total": f"node_disk_read_time_seconds_total{sel}",
        }
        flags = [arg for k, q in queries.items() for arg in ("--storage-query", f"{k}={q}")]
        result = dbstor(
            "io",
            "--target", f"T={tmp_path / 'target'}",
            "--profile", "io-oltp",
            "--iodepth", "1,4",
            "--duration", "6s",
            "--warmup", "2s",
            "--size", "64MiB",
            "--prometheus", server.url,
            "--db-host", sel[1:-1],
            # the preset's read IOPS replaced by an expression: a per-second figure
            "--db-host-query", f"read_iops=sum(rate(node_disk_reads_completed_total{sel}[2s]))",
            *flags,
            "--out", str(tmp_path / "results"),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    assert results["study"]["telemetry"]["storage_queries"] == queries
    for point in results["points"]:
        storage, remote = point["layers"]["storage"], point["layers"]["remote_device"]
        assert storage["source"] == "own-queries"
        assert remote["source"] == "node-exporter+own-queries"
        for quantity in ("write_iops", "read_mbps", "read_latency_ms"):
            assert storage[quantity] == pytest.approx(remote[quantity], rel=1e-9), quantity
        # The remote's read IOPS are the rate() expression's, a mean over the steps, each
        # looking 2 s back: on a device other processes share (seen here: 8,000 to 33,000
        # reads a second within seconds) only near the exact window figure, not equal.
        assert storage["read_iops"] > 0
        assert storage["read_iops"] / 3 < remote["read_iops"] < storage["read_iops"] * 3


def _preflight(dbstor, tmp_path: Path, server_url: str, *query_flags: str):
    out = tmp_path / "results"
    (tmp_path / "target").mkdir(exist_ok=True)
    result = dbstor(
        "io",
        "--target", str(tmp_path / "target"),
        "--iodepth", "1",
        "--duration", "5s",
        "--prometheus", server_url,
        *query_flags,
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert not out.exists() and not any((tmp_path / "target").iterdir())
    return lines[0]


def test_preflight_refuses_bad_queries_with_one_line(dbstor, tmp_path: Path) -> None:
    device = _device(tmp_path)
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        sel = f'{{instance="{target}",device="{device}"}}'
        line = _preflight(dbstor, tmp_path, server.url, "--storage-query", "read_iops=rate(/x)")
        assert line.startswith("dbstor: error: --storage-query read_iops: rate(/x): Prometheus at ")
        assert "parse error" in line and line.endswith("fix the query")
        line = _preflight(
            dbstor, tmp_path, server.url,
            "--storage-query", 'read_latency_us=avg(node_disk_io_now{device="no-such-disk"})',
        )  # fmt: skip
        assert "returned no series" in line and "check its labels" in line
        line = _preflight(
            dbstor, tmp_path, server.url,
            "--storage-query", f"read_iops=node_disk_reads_completed_total{sel}",
        )  # fmt: skip
        assert "is a counter (cumulative), read here as a figure per second" in line
        assert "give it as --storage-query read_ops_total= (dbstor takes its increase)" in line
    line = _preflight(dbstor, tmp_path, server.url, "--storage-query", "read_latency_xs=avg(x)")
    assert "did you mean 'read_latency_s'" in line


def test_a_query_point_shorter_than_two_scrapes_says_its_layer_is_missing(
    dbstor, tmp_path: Path
) -> None:
    """One quick query (SQLite, a tiny scale) under a Prometheus that scrapes every SCRAPE_S
    seconds: the point (well under a second here, and short of two scrapes on any machine
    that runs it in less than 2 x SCRAPE_S) gets its remote_device layer missing with the
    reason, the report names the point, and the run said before any load how long a point
    must be."""
    device = _device(tmp_path)
    (tmp_path / "data").mkdir()
    with (
        node_exporter(tmp_path) as target,
        prometheus(tmp_path, {"node": [target]}, scrape_s=SCRAPE_S) as server,
    ):
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        result = dbstor(
            "run",
            "--engine", "sqlite",
            "--workload", "dss",
            "--scale", "0.01",
            "--queries", "6",
            "--streams", "1",
            "--target", str(tmp_path / "data"),
            "--prometheus", server.url,
            "--db-host", f'instance="{target}",device="{device}"',
            "--out", str(tmp_path / "results"),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    said = result.stdout + result.stderr
    assert re.search(r"a query point shorter than [\d.]+ s gets no figures from it", said)
    folder = next((tmp_path / "results").glob("*/"))
    (point,) = json.loads((folder / "results.json").read_text())["points"]
    remote = point["layers"]["remote_device"]
    assert remote["source"] == "node-exporter"
    assert re.search(
        r"shorter than two of Prometheus's samples \([\d.]+ s apart\)", remote["missing"]
    )
    report = (folder / "report.html").read_text()
    assert "device is missing at the power run: the point" in report
