"""The device's figures against a real loop device on tmpfs that only the test uses: fio's
own I/O and the device's compare like with like (same window, same repeats), so a quiet
device shows no foreign I/O and a second reader shows plenty; and a few reads whose time
is under the disk counters' 1 ms resolution give no await (a reason), never 0 ms."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from device_io import reading
from loopfs import mounted_loop_fs

from dbstor.telemetry.disk import await_figure, device_stats, parse_diskstats

pytestmark = pytest.mark.integration


@dataclass
class QuietLoop:
    path: Path  # the mount point
    device: str  # its /proc/diskstats name (loopN)


@pytest.fixture
def quiet_loop() -> Iterator[QuietLoop]:
    """An ext4 file system on a loop device over a file in /dev/shm, made with its inode
    tables and journal written up front (no lazy init writing beside the test)."""
    root = Path(tempfile.mkdtemp(prefix="dbstor-quiet-", dir="/dev/shm"))
    eager = ("-E", "lazy_itable_init=0,lazy_journal_init=0")
    try:
        with mounted_loop_fs(root, "96M", eager) as fs:
            yield QuietLoop(fs.path, fs.device.name)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def io_points(dbstor, loop: QuietLoop, out: Path, *load: str) -> list[dict]:
    target = loop.path / "target"
    target.mkdir(exist_ok=True)
    proc = dbstor(
        "io", "--target", target, *load, "--duration", "3", "--warmup", "1",
        "--size", "32MiB", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    points = dbstor.results(dbstor.only_run_folder(out))["points"]
    assert points and all(p["device"]["name"] == loop.device for p in points)
    return points


@pytest.mark.skip_without_fio
def test_fio_alone_on_a_quiet_loop_device_has_no_foreign_share(dbstor, quiet_loop, tmp_path):
    points = io_points(dbstor, quiet_loop, tmp_path / "out", "--iodepth", "1,4", "--repeats", "2")
    for p in points:
        assert p["own_io"]["repeats"] == 2
        assert p["foreign_io_share"] is not None and p["foreign_io_share"] < 0.05, p["own_io"]
        assert p["shared_device"] is False


@pytest.mark.skip_without_fio
def test_a_second_reader_on_the_same_loop_device_is_foreign(dbstor, quiet_loop, tmp_path):
    dev = f"/dev/{quiet_loop.device}"
    loop = f"while true; do dd if={dev} of=/dev/null bs=16k iflag=direct status=none; done"
    reader = subprocess.Popen(["bash", "-c", loop], start_new_session=True)
    try:
        assert reading(quiet_loop.device), "the second reader never read"
        points = io_points(dbstor, quiet_loop, tmp_path / "out", "--iodepth", "1")
    finally:
        os.killpg(reader.pid, signal.SIGKILL)
        reader.wait(10)
    assert points[0]["foreign_io_share"] > 0.3 and points[0]["shared_device"] is True


@pytest.mark.skip_without_fio
def test_a_slow_rate_point_never_shows_a_zero_await(dbstor, quiet_loop, tmp_path):
    """A few I/Os a second: an await the counters could not resolve is null and says why."""
    points = io_points(dbstor, quiet_loop, tmp_path / "out", "--rate", "5")
    for p in points:
        for kind in ("read", "write"):
            figure, why = p["device"][f"{kind}_await_ms"], p["device"][f"{kind}_await_reason"]
            if not p["device"][f"{kind}_iops"]:
                assert figure is None and why is None
            elif figure is None:
                assert "resolution" in why and why in p["trust"]["notes"]
            else:
                assert figure > 0 and why is None


def test_reads_under_the_counters_resolution_have_no_await_not_zero(quiet_loop):
    """A handful of direct reads on the loop device: their time on diskstats' clock sums to
    under 1 ms in most windows; such a window gives None and why, never 0 ms."""
    dev = f"/dev/{quiet_loop.device}"
    seen_under = False
    for attempt in range(30):
        before = parse_diskstats()
        subprocess.run(
            ["dd", f"if={dev}", "of=/dev/null", "bs=4k", "count=3", f"skip={attempt * 8}",
             "iflag=direct", "status=none"],
            check=True,
        )  # fmt: skip
        after = parse_diskstats()
        a, b = before[quiet_loop.device], after[quiet_loop.device]
        reads, ms = b.reads - a.reads, b.read_ms - a.read_ms
        assert reads >= 3
        stats = device_stats(before, after, 1.0, quiet_loop.device)
        assert stats.read_await_ms != 0.0
        if ms == 0:
            seen_under = True
            assert stats.read_await_ms is None
            assert f"{reads:,} reads took less than" in stats.read_await_reason
            assert await_figure(ms, reads, "reads") == (None, stats.read_await_reason)
            break
        assert stats.read_await_ms == pytest.approx(ms / reads)
        assert stats.read_await_reason is None
    assert seen_under, "no window of 3 reads summed under 1 ms in 30 tries"


@pytest.mark.skip_without_fio
def test_the_devices_shape_and_queue_match_iostats_on_the_same_window(quiet_loop):
    """fio at queue depth 16, 70% 8 KiB reads and 16 KiB writes, on the loop device: the
    read share, mean sizes and queue depth (aqu-sz, diskstats' weighted time) dbstor
    computes are iostat's (sysstat) over the same three seconds, and fio's own shape."""
    if shutil.which("iostat") is None:
        pytest.fail("iostat is not installed (sysstat; make test installs it)")
    dev = f"/dev/{quiet_loop.device}"
    target = quiet_loop.path / "shape.dat"
    fio = subprocess.Popen(
        ["fio", "--name=shape", f"--filename={target}", "--size=32m", "--rw=randrw",
         "--rwmixread=70", "--bs=8k,16k", "--iodepth=16", "--ioengine=libaio", "--direct=1",
         "--time_based", "--runtime=6", "--output=/dev/null"],
        start_new_session=True,
    )  # fmt: skip
    try:
        # laid out (fio only writes then) and reading at its depth
        assert reading(quiet_loop.device, in_flight=8), "fio never read the loop device"
        before, t0 = parse_diskstats(), time.monotonic()
        iostat = subprocess.run(
            ["iostat", "-dxy", "-o", "JSON", dev, "3", "1"],
            capture_output=True, text=True, check=True, timeout=30,
        )  # fmt: skip
        after, t1 = parse_diskstats(), time.monotonic()
    finally:
        fio.wait(timeout=60)
    row = json.loads(iostat.stdout)["sysstat"]["hosts"][0]["statistics"][0]["disk"][0]
    ours = device_stats(before, after, t1 - t0, quiet_loop.device)
    print(f"iostat {row['aqu-sz']} aqu-sz, dbstor {ours.queue_depth_mean:.2f}")
    assert row["aqu-sz"] > 1.0, f"fio kept I/Os queued: {row}"
    assert ours.queue_depth_mean == pytest.approx(row["aqu-sz"], rel=0.15, abs=0.1)
    assert ours.read_share == pytest.approx(row["r/s"] / (row["r/s"] + row["w/s"]), abs=0.03)
    assert ours.read_kib_mean == pytest.approx(row["rareq-sz"], rel=0.05)
    assert ours.write_kib_mean == pytest.approx(row["wareq-sz"], rel=0.05)
    assert ours.read_share == pytest.approx(0.70, abs=0.05), "fio's rwmixread"
    assert ours.read_kib_mean == pytest.approx(8.0, rel=0.05) and 14 < ours.write_kib_mean < 18
