"""--metrics-port's endpoint scraped by a real Prometheus: what it stores is what dbstor reported.

A short real fio run gives a real latency histogram (json+ bins); LiveFigures serves the
point's figures from it, Prometheus (Debian's package, scraping every second) scrapes the
endpoint, and the stored figures must equal the ones dbstor computed itself.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest
from prom_servers import prometheus

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.errors import UserError
from dbstor.telemetry.live import LiveFigures

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]


def _fio_histogram(workdir: Path) -> tuple[LatencyHistogram, int]:
    out = subprocess.run(
        [
            "fio",
            "--name=live",
            f"--filename={workdir / 'live.dat'}",
            "--size=16M",
            "--rw=randread",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--time_based",
            "--runtime=2",
            "--output-format=json+",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    job = json.loads(out[out.index("{") :])["jobs"][0]["read"]
    clat = job["clat_ns"]
    hist = LatencyHistogram.from_fio(clat["bins"], clat["mean"], clat["N"], clat["max"])
    return hist, int(job["total_ios"])


def test_live_endpoint_scraped_by_prometheus_matches(tmp_path: Path) -> None:
    hist, ops = _fio_histogram(tmp_path)
    assert hist.count > 100
    with LiveFigures(0, run="live-test", kind="io") as live:
        assert live.host == "127.0.0.1"
        live.start_point(3, {"iodepth": 8, "jobs": 2})
        live.update(ops=ops, errors=2, elapsed_s=4.0, histogram=hist)
        text = urllib.request.urlopen(live.url, timeout=5).read().decode()
        assert "dbstor_point 3.0" in text
        with prometheus(tmp_path, {"dbstor": [f"127.0.0.1:{live.port}"]}) as server:
            server.wait_for('dbstor_point{job="dbstor"} == 3')

            def scraped(expr: str) -> float:
                return float(server.wait_for(expr)[0]["value"][1])

            assert scraped("dbstor_point_ops_per_second") == pytest.approx(ops / 4.0)
            assert scraped("dbstor_point_errors") == 2
            assert scraped("dbstor_errors_total") == 2
            assert scraped("dbstor_ops_total") == ops
            assert scraped('dbstor_point_load{what="iodepth"}') == 8
            for q, pct in (("0.5", 50), ("0.99", 99)):
                expected = hist.percentile_ns(pct) / 1e9
                got = scraped(f'dbstor_point_latency_seconds{{quantile="{q}"}}')
                assert got == pytest.approx(expected, rel=1e-9)
            assert scraped('dbstor_run_info{run="live-test",kind="io"}') == 1


def test_port_in_use_is_a_user_error() -> None:
    with LiveFigures(0) as first, pytest.raises(UserError, match="cannot listen"):
        LiveFigures(first.port)
