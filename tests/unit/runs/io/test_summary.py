from pathlib import Path

import pytest

from dbstor.drivers.fio_output import parse_fio_json
from dbstor.results.model import CpuStats, DeviceStats, Load, Point
from dbstor.runs.io.point import IoOutcome
from dbstor.runs.io.summary import mark_saturation, mean_device, summarise_point

FIXTURE = Path(__file__).parents[3] / "fixtures" / "fio" / "randrw-8k-qd4-1job.json"


def repeat(scale: float = 1.0, cpu: float = 50.0) -> IoOutcome:
    run = parse_fio_json(FIXTURE.read_text())
    run.read.iops *= scale
    run.write.iops *= scale
    return IoOutcome(
        fio=run,
        read_iops_per_second=[100.0] * 6,
        write_iops_per_second=[10.0] * 6,
        samples=[],
        cpu=CpuStats(util_pct=cpu),
        device=DeviceStats(name="vda", read_iops=1.0),
        job_text="",
        output_text="",
        ioengine="io_uring",
        started_at=0.0,
        wall_s=3.0,
    )


def test_single_repeat():
    p = summarise_point(Load("iodepth", 4), [repeat()], 2, 0)
    assert p.read_lat_ms.count > 0 and p.write_lat_ms.count > 0
    assert p.trust.steady is True and p.repeats == 1 and p.iops_spread is None
    assert p.read_mbps == pytest.approx(parse_fio_json(FIXTURE.read_text()).read.bytes_per_s / 1e6)


def test_repeats_take_the_median_and_merge_latency():
    reps = [repeat(1.0, 40), repeat(1.3, 60), repeat(0.9, 50)]
    p = summarise_point(Load("iodepth", 4), reps, 2, 0)
    base = parse_fio_json(FIXTURE.read_text())
    assert p.iops == pytest.approx(base.read.iops + base.write.iops)  # the median repeat (x1.0)
    assert p.read_lat_ms.count == 3 * base.read.histogram.count
    assert p.cpu.util_pct == pytest.approx(50.0)
    assert p.trust.noisy  # 0.9 .. 1.3 around 1.0
    assert p.iops_spread.minimum < p.iops_spread.median < p.iops_spread.maximum


def test_saturation_flags():
    prev = Point(load=Load("iodepth", 16), duration_s=1, read_iops=40_000.0)
    flat = Point(load=Load("iodepth", 32), duration_s=1, read_iops=41_000.0)
    mark_saturation(flat, prev)
    assert flat.saturated and "queue is full" in flat.saturation_reason
    growing = Point(load=Load("iodepth", 32), duration_s=1, read_iops=60_000.0)
    mark_saturation(growing, prev)
    assert not growing.saturated
    short = Point(load=Load("rate", 10_000), duration_s=1, read_iops=9_000.0)
    mark_saturation(short, None)
    assert short.saturated and "90%" in short.saturation_reason
    met = Point(load=Load("rate", 10_000), duration_s=1, read_iops=9_800.0)
    mark_saturation(met, None)
    assert not met.saturated


def exact_repeat(scale: float, device_share: float = 1.0) -> IoOutcome:
    """A repeat whose device moved `device_share` x fio's own bytes over the same window."""
    out = repeat(scale)
    for d in (out.fio.read, out.fio.write):
        d.bytes_per_s *= scale
    out.device = DeviceStats(
        name="vda",
        read_iops=out.fio.read.iops,
        read_mbps=out.fio.read.bytes_per_s / 1e6 * device_share,
        write_mbps=out.fio.write.bytes_per_s / 1e6 * device_share,
    )
    return out


def test_foreign_share_compares_the_repeats_mean_with_the_devices_mean():
    """The point's throughput is the median repeat's, but the device's figures are the
    repeats' mean: fio's own must be the same mean, or uneven repeats read as foreign I/O
    (or hide it). Here the device saw exactly fio's bytes in every repeat."""
    reps = [exact_repeat(1.0), exact_repeat(1.6), exact_repeat(0.8)]
    p = summarise_point(Load("iodepth", 4), reps, 2, 0)
    assert p.foreign_io_share == pytest.approx(0.0, abs=1e-9)
    assert p.own_io["repeats"] == 3
    doubled = [exact_repeat(1.0, 2.0), exact_repeat(1.6, 2.0), exact_repeat(0.8, 2.0)]
    p = summarise_point(Load("iodepth", 4), doubled, 2, 0)
    assert p.foreign_io_share == pytest.approx(0.5) and p.shared_device


def test_a_repeats_await_under_the_counters_resolution_leaves_the_mean_null():
    why = "device reads await under 0.25 ms: 4 reads took less than ..."
    devices = [
        DeviceStats(name="vda", read_iops=2.0, read_await_ms=0.5, write_await_ms=1.0),
        DeviceStats(name="vda", read_iops=2.0, read_await_reason=why, write_await_ms=3.0),
    ]
    device = mean_device(devices)
    assert device.read_await_ms is None and device.read_iops == 2.0
    assert device.read_await_reason == why + " (in 1 of 2 repeats)"
    assert device.write_await_ms == 2.0 and device.write_await_reason is None
    assert mean_device([]) is None


def test_a_point_held_by_rounds_records_them_and_keeps_its_flag_when_it_never_steadied():
    """An io point on several hosts is held by rounds (cluster/io.py): its last round's
    merged IOPS decide its steadiness, and the rounds, the time it ran and its maximum
    are recorded; one still drifting says so in words."""
    falling = repeat()
    falling.read_iops_per_second = [1000.0, 800.0, 600.0, 400.0, 200.0, 100.0]
    falling.rounds, falling.ran_s, falling.max_s = 2, 9.4, 10.0
    point = summarise_point(Load("iodepth", 4), [falling], 3, 1, max_s=10.0)
    trust = point.trust
    assert trust.steady is False and (trust.rounds, trust.ran_s, trust.max_s) == (2, 9.4, 10.0)
    assert any(
        n.startswith("not steady: over the measured window, IOPS trended down") for n in trust.notes
    )
    assert "not steady within its maximum of 10 s (2 rounds, ran 9 s)" in trust.notes
    flat = repeat()
    flat.rounds, flat.ran_s, flat.max_s = 1, 4.1, 10.0
    steady = summarise_point(Load("iodepth", 4), [flat], 3, 1, max_s=10.0).trust
    assert steady.steady is True and steady.rounds == 1 and steady.max_s == 10.0
    assert not [n for n in steady.notes if "steady" in n]
    unheld = summarise_point(Load("iodepth", 4), [repeat()], 3, 1).trust  # ran its window
    assert unheld.rounds is None and unheld.max_s is None
