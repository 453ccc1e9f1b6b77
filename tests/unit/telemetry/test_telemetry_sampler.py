import itertools
import mmap
import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from dbstor.results.model import CpuStats
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.sampler import SAMPLE_KEYS, Sample, Sampler, summarise

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


def reader(*texts: str, fail_after: int | None = None):
    """Returns the texts in turn, then the last one for ever (or raises)."""
    calls = itertools.count()

    def read() -> str:
        n = next(calls)
        if fail_after is not None and n >= fail_after:
            raise OSError("disk vanished")
        return texts[min(n, len(texts) - 1)]

    return read


def ticking_clock(step: float = 1.0):
    """Each call is `step` seconds after the last: snapshots land at 0, 1, 2, ..."""
    counter = itertools.count()
    return lambda: next(counter) * step


def wait_for(sampler: Sampler, count: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while len(sampler.samples) < count and sampler.error is None:
        assert time.monotonic() < deadline, "sampler produced no samples"
        time.sleep(0.005)


def fake_sampler(devices=("vda",), interval=0.01, **kw) -> Sampler:
    stat = reader(fixture_text("proc_stat_before.txt"), fixture_text("proc_stat_after.txt"))
    disk = reader(fixture_text("diskstats_before.txt"), fixture_text("diskstats_after.txt"))
    return Sampler(
        devices, interval=interval, clock=ticking_clock(), read_stat=stat, read_diskstats=disk, **kw
    )


def test_samples_from_fake_proc():
    sampler = fake_sampler()
    assert sampler.latest() is None
    sampler.start()
    wait_for(sampler, 3)
    samples = sampler.stop()
    assert sampler.error is None
    assert len(samples) >= 4  # three or more from the thread, one from stop()
    assert all(tuple(s) == SAMPLE_KEYS for s in samples)
    assert [s["t_s"] for s in samples] == [float(i) for i in range(1, len(samples) + 1)]

    first = samples[0]  # the stored before -> after, over one (fake) second
    assert first["cpu_util_pct"] == pytest.approx(25.0)
    assert first["cpu_iowait_pct"] == pytest.approx(25.0)
    assert first["dev_write_iops"] == 4000.0
    assert first["dev_read_iops"] == 2009.0
    assert first["dev_write_mbps"] == pytest.approx(32.768)
    assert first["dev_write_await_ms"] == pytest.approx(113 / 4000)
    assert first["dev_util_pct"] == pytest.approx(17.2)

    idle = samples[1]  # same text again: no time on the CPUs, no I/O
    assert idle["cpu_util_pct"] is None
    assert idle["dev_write_iops"] == 0.0 and idle["dev_write_await_ms"] is None


def test_summarise_uses_counters_over_the_window():
    sampler = fake_sampler()
    sampler.start()
    wait_for(sampler, 3)
    samples = sampler.stop()
    n = len(samples)

    cpu, dev = summarise(samples)  # the whole run: 4000 writes over n seconds
    assert dev is not None and dev.name == "vda"
    assert dev.write_iops == pytest.approx(4000 / n)
    assert dev.write_await_ms == pytest.approx(113 / 4000)  # exact, not a mean of means
    assert cpu.util_pct == pytest.approx(25.0)

    cpu, dev = sampler.summarise(samples, start_s=0.0, end_s=1.1)
    assert dev.write_iops == 4000.0

    cpu, dev = summarise(samples, start_s=0.9, end_s=3.0)  # after the load
    assert cpu == CpuStats()
    assert dev.write_iops == 0.0 and dev.util_pct == 0.0

    cpu, dev = summarise(samples, start_s=2.0, end_s=2.2)  # no span at all
    assert cpu == CpuStats() and dev.name == "vda" and dev.write_iops is None


def test_summarise_refuses_rows_without_counters():
    assert summarise([]) == (CpuStats(), None)
    with pytest.raises(ValueError, match="Sampler"):
        summarise([dict.fromkeys(SAMPLE_KEYS)])


def test_without_devices_dev_fields_are_none():
    def no_disk_read() -> str:
        raise AssertionError("diskstats read without devices")

    stat = reader(fixture_text("proc_stat_before.txt"), fixture_text("proc_stat_after.txt"))
    sampler = Sampler(
        [], interval=0.01, clock=ticking_clock(), read_stat=stat, read_diskstats=no_disk_read
    )
    sampler.start()
    wait_for(sampler, 1)
    samples = sampler.stop()
    assert samples[0]["cpu_system_pct"] == pytest.approx(25.0)
    assert all(s[k] is None for s in samples for k in SAMPLE_KEYS if k.startswith("dev_"))
    assert sampler.summarise()[1] is None


def test_read_failure_stops_sampling_and_keeps_samples():
    stat = reader(fixture_text("proc_stat_before.txt"), fail_after=3)
    sampler = Sampler([], interval=0.01, clock=ticking_clock(), read_stat=stat)
    sampler.start()
    deadline = time.monotonic() + 5
    while sampler.error is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    samples = sampler.stop()
    assert isinstance(sampler.error, OSError)
    assert len(samples) == 2  # baseline + two good ticks, then the failing read
    assert sampler.stop() == samples  # idempotent


def test_unknown_device_fails_at_start():
    sampler = fake_sampler(devices=("sdz",))
    with pytest.raises(LookupError, match="sdz"):
        sampler.start()


def test_stop_before_start_and_double_start():
    sampler = fake_sampler()
    assert sampler.stop() == []
    sampler.start()
    with pytest.raises(RuntimeError):
        sampler.start()
    sampler.stop()


def test_samples_is_a_copy_and_latest_is_last():
    sampler = fake_sampler()
    sampler.start()
    wait_for(sampler, 2)
    copy = sampler.samples
    copy.clear()
    assert sampler.samples
    samples = sampler.stop()
    assert sampler.latest() == samples[-1]
    assert sampler.latest().after == samples[-1].after
    assert isinstance(samples[-1], Sample)


def test_an_hour_of_samples_is_held_in_little_memory():
    # the counters sit in typed arrays and the samples are made when asked for: an
    # hour-long point no longer holds ~1.7 KiB of dicts and objects a second (the soak)
    sampler = fake_sampler(interval=3600.0)
    sampler.start()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(3600):
            sampler._tick(final=False)
        per_tick = (tracemalloc.get_traced_memory()[0] - before) / 3600
    finally:
        tracemalloc.stop()
    assert per_tick < 300  # bytes: CPU times and one device's counters, 8 bytes a number
    assert len(sampler.samples) == 3600  # every tick still gives its sample
    sampler.stop()


def test_last_partial_interval_is_kept_unless_tiny():
    clock_values = iter([100.0, 100.4])  # start, then stop() 0.4 s later
    stat = reader(fixture_text("proc_stat_before.txt"), fixture_text("proc_stat_after.txt"))
    sampler = Sampler([], interval=1.0, clock=lambda: next(clock_values), read_stat=stat)
    sampler.start()
    samples = sampler.stop()
    assert [s["t_s"] for s in samples] == [0.4]

    clock_values = iter([100.0, 100.05])  # under a tenth of the interval
    sampler = Sampler([], interval=1.0, clock=lambda: next(clock_values), read_stat=stat)
    sampler.start()
    assert sampler.stop() == []


def _direct_writes(path: Path, seconds: float) -> int:
    """8 KiB writes that bypass the page cache, cycling over 8 MiB, for `seconds`."""
    block = mmap.mmap(-1, 8192)  # page-aligned, as O_DIRECT wants
    block.write(b"dbstor" * 1365)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_DIRECT", 0)
    try:
        fd = os.open(path, flags, 0o600)
        direct = bool(flags & getattr(os, "O_DIRECT", 0))
    except OSError:
        fd, direct = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), False
    writes = 0
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            os.pwrite(fd, block, (writes % 1024) * 8192)
            if not direct:
                os.fsync(fd)
            writes += 1
    finally:
        os.close(fd)
    return writes


def test_real_sampler_sees_direct_writes(tmp_path):
    devices = devices_for_path(tmp_path)
    if not devices:
        pytest.skip("tmp_path is not on a block device here")
    sampler = Sampler(devices)
    started = time.monotonic()
    sampler.start()
    writes = _direct_writes(tmp_path / "load.bin", 2.5)
    samples = sampler.stop()
    elapsed = time.monotonic() - started

    assert sampler.error is None
    assert 2 <= len(samples) <= 4
    gaps = [b["t_s"] - a["t_s"] for a, b in itertools.pairwise(samples[:-1])]
    assert samples[0]["t_s"] == pytest.approx(1.0, abs=0.15)
    assert all(g == pytest.approx(1.0, abs=0.15) for g in gaps)
    assert samples[-1]["t_s"] == pytest.approx(elapsed, abs=0.2)

    cpu, dev = summarise(samples)
    assert dev is not None and dev.name == devices[0]
    span = samples[-1].after.t - samples[0].before.t
    device_writes = dev.write_iops * span
    assert device_writes >= 0.5 * writes  # our writes reached the device
    assert sum(s["dev_write_iops"] for s in samples) > 0
    assert dev.write_await_ms is not None and dev.write_await_ms > 0
    assert 0 < dev.util_pct <= 100
    assert cpu.util_pct is not None and 0 < cpu.util_pct <= 100
    assert threading.active_count() < 50  # the sampler thread is gone


def test_summarise_interpolates_the_counters_at_a_windows_edges():
    sampler = fake_sampler()
    sampler.start()
    wait_for(sampler, 3)
    samples = sampler.stop()
    # the stored 4000 writes land between t 0 and 1: a window from 0.5 to 2.5 holds half
    # of them, over 2 s; the nearest snapshots would give all of them over 2 s or 3 s
    cpu, dev = summarise(samples, start_s=0.5, end_s=2.5, interpolate=True)
    assert dev.write_iops == pytest.approx(2000 / 2.0)
    assert dev.write_await_ms == pytest.approx(113 / 4000)
    assert cpu.util_pct == pytest.approx(25.0)  # busy and idle time halved alike
    # a snapshot read just after the end (0.2 s, a sampler's stop after fio exits) is the
    # end's counters: the 2000 writes after 0.5 all count, over the 0.3 s window
    _, ended = summarise(samples, start_s=0.5, end_s=0.8, interpolate=True)
    assert ended.write_iops == pytest.approx(2000 / 0.3)
    _, whole = summarise(samples, start_s=0.5, end_s=2.5)
    assert whole.write_iops != pytest.approx(dev.write_iops)
