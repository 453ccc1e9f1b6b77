"""Prometheus and node_exporter from Debian's packages, started for a test on 127.0.0.1.

Each server gets a free port, a directory of its own and (for Prometheus) a config the
test writes: scrape every second, storage in the temporary directory. The Debian
services are never touched.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

PROMETHEUS = "prometheus"
NODE_EXPORTER = "prometheus-node-exporter"


def need(binary: str) -> str:
    path = shutil.which(binary)
    if path is None:
        pytest.skip(
            f"{binary} is not installed (apt-get install prometheus prometheus-node-exporter)"
        )
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited: {log.read_text()[-2000:]}")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=2).close()
            return
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up: {log.read_text()[-2000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_sample_after(
    server: PrometheusServer, expr: str, epoch: float, timeout: float = 30
) -> None:
    """Poll until every series of expr has a sample scraped after `epoch` (a window ending
    then is covered by the scrapes a fetch needs)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stamps = [float(r["value"][1]) for r in server.query(f"timestamp({expr})")]
        if stamps and all(t > epoch for t in stamps):
            return
        time.sleep(0.2)
    raise AssertionError(f"{expr}: no sample after {epoch} within {timeout} s")


@contextlib.contextmanager
def node_exporter(workdir: Path) -> Iterator[str]:
    """A node_exporter with only its diskstats and cpu collectors: yields 'host:port'."""
    binary = need(NODE_EXPORTER)
    port = free_port()
    log = workdir / "node_exporter.log"
    args = [
        binary,
        f"--web.listen-address=127.0.0.1:{port}",
        "--collector.disable-defaults",
        "--collector.diskstats",
        "--collector.cpu",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_http(f"http://127.0.0.1:{port}/metrics", proc, log)
        yield f"127.0.0.1:{port}"
    finally:
        _stop(proc)


class PrometheusServer:
    """A running Prometheus: its URL, and stop() to make it go away mid-test."""

    def __init__(self, proc: subprocess.Popen[bytes], url: str) -> None:
        self.proc = proc
        self.url = url

    def stop(self) -> None:
        _stop(self.proc)

    def query(self, expr: str) -> list[dict]:
        q = urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{q}", timeout=10) as r:
            return json.load(r)["data"]["result"]

    def wait_for(self, expr: str, timeout: float = 30.0) -> list[dict]:
        """Poll an instant query until it returns series."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = self.query(expr)
            if result:
                return result
            time.sleep(0.5)
        raise AssertionError(f"{expr} returned nothing within {timeout} s")

    def wait_for_samples(self, selector: str, count: int, timeout: float = 30.0) -> None:
        """Poll until every series of a plain selector has `count` scraped samples in
        the last minute (enough for a rate over the first window)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = self.query(f"count_over_time({selector}[1m])")
            if result and all(float(r["value"][1]) >= count for r in result):
                return
            time.sleep(0.25)
        raise AssertionError(f"{selector} had fewer than {count} samples within {timeout} s")


@contextlib.contextmanager
def prometheus(
    workdir: Path, jobs: Mapping[str, Sequence[str]], scrape_s: int = 1
) -> Iterator[PrometheusServer]:
    """A Prometheus scraping the targets of each job (name -> ['host:port']) every
    `scrape_s` seconds (every second unless said)."""
    binary = need(PROMETHEUS)
    port = free_port()
    config = workdir / "prometheus.yml"
    lines = ["global:", f"  scrape_interval: {scrape_s}s", f"  evaluation_interval: {scrape_s}s"]
    lines += ["scrape_configs:"]
    for job, targets in jobs.items():
        lines += [
            f"  - job_name: {job}",
            "    static_configs:",
            f"      - targets: {json.dumps(list(targets))}",
        ]
    config.write_text("\n".join(lines) + "\n")
    log = workdir / "prometheus.log"
    shm = Path("/dev/shm")
    scratch = tempfile.mkdtemp(prefix="dbstor-test-tsdb-", dir=shm if shm.is_dir() else workdir)
    tsdb = Path(scratch)  # on tmpfs: Prometheus's own writes stay off the measured device
    args = [
        binary,
        f"--config.file={config}",
        f"--storage.tsdb.path={tsdb}",
        f"--web.listen-address=127.0.0.1:{port}",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    server = PrometheusServer(proc, f"http://127.0.0.1:{port}")
    try:
        _wait_http(f"{server.url}/-/ready", proc, log)
        yield server
    finally:
        server.stop()
        shutil.rmtree(tsdb, ignore_errors=True)
