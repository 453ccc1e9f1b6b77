from pathlib import Path

import pytest

from dbstor.drivers.fio_output import parse_fio_json
from dbstor.results.model import CpuStats, DeviceStats, Load, Point
from dbstor.runs.io.point import IoOutcome
from dbstor.runs.io.summary import mark_saturation, summarise_point

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
