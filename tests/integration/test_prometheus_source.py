"""The Prometheus source against a real Prometheus and node_exporter (Debian's packages).

The device figures Prometheus gives over a window must agree with /proc/diskstats over
the same window while fio drives real I/O on the work disk; a 'remote host' reads a named
device through node_exporter's labels; preflight refuses what cannot work; Prometheus
going away mid-run gives a reason, not an exception.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from device_io import reading
from prom_servers import PrometheusServer, node_exporter, prometheus, wait_sample_after

from dbstor.errors import UserError
from dbstor.telemetry.disk import devices_for_path, parse_diskstats
from dbstor.telemetry.prometheus import PrometheusClient, PrometheusSource, load_preset
from dbstor.telemetry.sources import layers_side_by_side

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

WINDOW_S = 16.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PrometheusServer, str]]:
    workdir = tmp_path_factory.mktemp("prom")
    with node_exporter(workdir) as target, prometheus(workdir, {"node": [target]}) as server:
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        yield server, target


def _device(path: Path) -> str:
    devices = devices_for_path(path)
    if not devices:
        pytest.skip(f"no block device under {path}")
    return devices[0]


def _window_with_io(workdir: Path, device: str) -> tuple[float, float, float]:
    """Run fio (direct random reads at a steady rate) and read /proc/diskstats at the
    window's two ends: (start epoch, end epoch, read IOPS by /proc)."""
    fio = subprocess.Popen(
        [
            "fio",
            "--name=prom",
            f"--filename={workdir / 'fio.dat'}",
            "--size=64M",
            "--rw=randread",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--rate_iops=1500",
            "--time_based",
            f"--runtime={WINDOW_S + 8:.0f}",
            "--output-format=terse",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        # lay-out of the file (writes only) stays outside the window: reads have begun
        assert reading(device), "fio never read the device"
        start, before = time.time(), parse_diskstats()[device]
        time.sleep(WINDOW_S)
        end, after = time.time(), parse_diskstats()[device]
    finally:
        _, err = fio.communicate(timeout=60)
    assert fio.returncode == 0, err.decode()
    return start, end, (after.reads - before.reads) / (end - start)


def test_device_iops_from_prometheus_agree_with_proc(
    stack: tuple[PrometheusServer, str], tmp_path: Path
) -> None:
    server, target = stack
    device = _device(tmp_path)
    client = PrometheusClient(server.url)
    source = PrometheusSource(
        client,
        load_preset("node-exporter"),
        f'instance="{target}",device="{device}"',
        "host_device",
    )
    source.preflight(WINDOW_S)
    start, end, proc_iops = _window_with_io(tmp_path, device)
    wait_sample_after(server, f'node_disk_reads_completed_total{{instance="{target}"}}', end)
    fetched = source.fetch(start, end, 1.0)
    assert fetched.ok, fetched.missing
    figures = fetched.summary()
    assert proc_iops > 1000, proc_iops  # fio's reads dominate
    assert figures["read_iops"] == pytest.approx(proc_iops, rel=0.05)
    series = {s.quantity: s for s in fetched.series}
    assert len(series["read_iops"].points) >= WINDOW_S - 2  # one point per step
    assert 0 < figures["read_latency_ms"] < 1000
    assert 0 <= figures["cpu_util_pct"] <= 100


def test_remote_host_device_by_name(stack: tuple[PrometheusServer, str], tmp_path: Path) -> None:
    """node_exporter stands for the database server: its figures for a named device land in
    the remote_device layer, CPU included (the device label does not apply to CPU)."""
    server, target = stack
    device = _device(tmp_path)
    source = PrometheusSource(
        PrometheusClient(server.url),
        load_preset("node-exporter"),
        f'instance="{target}",device="{device}"',
        "remote_device",
    )
    source.preflight(WINDOW_S)
    start, end, proc_iops = _window_with_io(tmp_path, device)
    wait_sample_after(server, f'node_disk_reads_completed_total{{instance="{target}"}}', end)
    fetched = source.fetch(start, end, 1.0)
    layers = layers_side_by_side([fetched])
    assert list(layers) == ["remote_device"]
    remote = layers["remote_device"]
    assert remote["source"] == "node-exporter"
    assert remote["read_iops"] == pytest.approx(proc_iops, rel=0.05)
    assert remote["cpu_util_pct"] is not None


def test_preflight_refuses_what_cannot_work(
    stack: tuple[PrometheusServer, str], tmp_path: Path
) -> None:
    server, target = stack
    client = PrometheusClient(server.url)
    preset = load_preset("node-exporter")
    with pytest.raises(UserError, match="returned no series"):
        PrometheusSource(client, preset, 'device="no-such-disk"').preflight(WINDOW_S)
    with pytest.raises(UserError, match=r"samples are 1 s apart, longer than a 0.5 s point"):
        PrometheusSource(client, preset, f'instance="{target}"').preflight(0.5)
    unreachable = PrometheusClient("http://127.0.0.1:9")
    with pytest.raises(UserError, match="did not answer"):
        PrometheusSource(unreachable, preset, "").preflight(WINDOW_S)
    # A preset that reads a counter as a gauge: Prometheus's metadata says otherwise.
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(
        'layers = ["storage"]\n[quantities.read_iops]\nkind = "gauge"\n'
        'metric = "node_disk_reads_completed_total"\nunit = "ops/s"\n'
    )
    with pytest.raises(UserError, match="is a counter, the preset reads it as a gauge"):
        PrometheusSource(client, load_preset(str(wrong)), f'instance="{target}"').preflight(10)


def test_prometheus_going_away_gives_a_reason(tmp_path: Path) -> None:
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for_samples(f'node_cpu_seconds_total{{instance="{target}"}}', 3)
        source = PrometheusSource(
            PrometheusClient(server.url), load_preset("node-exporter"), f'instance="{target}"'
        )
        source.preflight(2)
        start = time.time()
        wait_sample_after(server, f'node_cpu_seconds_total{{instance="{target}"}}', start + 1)
        server.stop()
        fetched = source.fetch(start, time.time(), 1.0)
    assert not fetched.ok
    assert fetched.series == ()
    assert f"Prometheus at {server.url} did not answer" in (fetched.missing or "")
    assert layers_side_by_side([fetched])["host_device"]["missing"] == fetched.missing
