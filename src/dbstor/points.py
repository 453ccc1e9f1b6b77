"""Summarise one load point (one or more repeats of fio plus telemetry) into a Point."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, fields

from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999, merge_all
from dbstor.analysis.trust import drift_pct, is_noisy, is_steady, spread
from dbstor.drivers.fio_runner import FioResult
from dbstor.results.model import CpuStats, DeviceStats, Load, Point, Trust

RATE_SHORTFALL = 0.97  # an open-loop point that reaches less than 97% of its rate is saturated
SATURATION_LOAD_STEP = 1.5  # load grew at least this much...
SATURATION_MIN_GAIN = 0.05  # ...but throughput less than 5%


@dataclass
class Repeat:
    """One fio run at a point, with what telemetry saw over its measured window."""

    fio: FioResult
    cpu: CpuStats
    device: DeviceStats | None
    wall_s: float


def _mean_fields(items: Sequence[object], cls: type) -> object:
    values = {}
    for f in fields(cls):
        column = [getattr(i, f.name) for i in items if getattr(i, f.name) is not None]
        if not column:
            values[f.name] = None
        elif isinstance(column[0], int | float) and not isinstance(column[0], bool):
            values[f.name] = statistics.fmean(column)
        else:
            values[f.name] = column[0]
    return cls(**values)


def summarise_point(
    load: Load, repeats: Sequence[Repeat], duration_s: float, warmup_s: float
) -> Point:
    """Throughput is the median repeat's; percentiles come from all repeats' merged histograms."""
    by_iops = sorted(repeats, key=lambda r: r.fio.run.read.iops + r.fio.run.write.iops)
    median = by_iops[len(by_iops) // 2]
    reads = merge_all(r.fio.run.read.histogram for r in repeats)
    writes = merge_all(r.fio.run.write.histogram for r in repeats)
    per_second = [
        a + b
        for a, b in zip(
            median.fio.read_iops_per_second, median.fio.write_iops_per_second, strict=False
        )
    ]
    drift = drift_pct(per_second)
    trust = Trust(
        steady=is_steady(drift),
        slope_pct=drift,
        read_ops=reads.count,
        write_ops=writes.count,
        p99_trusted=(reads.count or MIN_OPS_P99) >= MIN_OPS_P99
        and (writes.count or MIN_OPS_P99) >= MIN_OPS_P99,
        p999_trusted=(reads.count or MIN_OPS_P999) >= MIN_OPS_P999
        and (writes.count or MIN_OPS_P999) >= MIN_OPS_P999,
    )
    if trust.steady is False:
        trust.notes.append(
            f"not steady: IOPS drifted {drift:+.0f}% over the last half of the point"
        )
    if not trust.p999_trusted:
        trust.notes.append("too few I/Os for a p99.9 (needs 10,000 per direction)")
    point = Point(
        load=load,
        duration_s=duration_s,
        warmup_s=warmup_s,
        read_iops=median.fio.run.read.iops,
        write_iops=median.fio.run.write.iops,
        read_mbps=median.fio.run.read.bytes_per_s / 1e6,
        write_mbps=median.fio.run.write.bytes_per_s / 1e6,
        read_lat_ms=reads.stats() if reads.count else None,
        write_lat_ms=writes.stats() if writes.count else None,
        device=_mean_fields([r.device for r in repeats if r.device], DeviceStats)
        if any(r.device for r in repeats)
        else None,
        cpu=_mean_fields([r.cpu for r in repeats], CpuStats),
        repeats=len(repeats),
        trust=trust,
        wall_s=sum(r.wall_s for r in repeats),
    )
    if len(repeats) > 1:
        point.iops_spread = spread([r.fio.run.read.iops + r.fio.run.write.iops for r in repeats])
        trust.noisy = is_noisy(point.iops_spread)
        if trust.noisy:
            trust.notes.append("noisy: repeats differ by more than 10% in IOPS")
    return point


def mark_saturation(point: Point, previous: Point | None) -> None:
    """Flag a point whose rate fell short, or whose load grew without throughput growing."""
    if point.load.kind == "rate":
        if point.iops < RATE_SHORTFALL * point.load.value:
            point.saturated = True
            point.saturation_reason = (
                f"reached {point.iops:,.0f} of {point.load.value:,.0f} IOPS asked for "
                f"({point.iops / point.load.value:.0%})"
            )
        return
    if previous is None or not previous.ok or previous.iops <= 0:
        return
    load_step = point.load.value / previous.load.value
    gain = point.iops / previous.iops - 1
    if load_step >= SATURATION_LOAD_STEP and gain < SATURATION_MIN_GAIN:
        point.saturated = True
        point.saturation_reason = f"load x{load_step:.3g} but IOPS {gain:+.0%}: the queue is full"
