"""An io load point summarised: its repeats' outcomes (fio plus telemetry) into a Point
result, the saturation flag, and its line on the terminal."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from dbstor.analysis.attribution import SHARED_DEVICE_SHARE, attribution_notes, fio_attribution
from dbstor.analysis.batch_quantiles import latency_uncertainty
from dbstor.analysis.curve import slo_value
from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999, merge_all
from dbstor.analysis.interval import point_uncertainty, repeat_uncertainty
from dbstor.analysis.trust import (
    drift_note,
    held_note,
    held_words,
    is_noisy,
    spread,
    steadiness,
    withheld_percentiles,
)
from dbstor.results.model import CpuStats, DeviceStats, Load, Point, Trust
from dbstor.runs.io.point import IoOutcome
from dbstor.telemetry.disk import await_notes

RATE_SHORTFALL = 0.97  # an open-loop point that reaches less than 97% of its rate is saturated
SATURATION_LOAD_STEP = 1.5  # load grew at least this much...
SATURATION_MIN_GAIN = 0.05  # ...but throughput less than 5%


def mean_fields(items: Sequence[object], cls: type) -> object:
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


def mean_device(devices: Sequence[DeviceStats]) -> DeviceStats | None:
    """The repeats' devices as one: rates averaged; an await is None with its reason when
    any repeat's was under the counters' resolution (a mean without it would be too high)."""
    if not devices:
        return None
    device = mean_fields(devices, DeviceStats)
    assert isinstance(device, DeviceStats)
    for kind in ("read", "write"):
        why = [getattr(d, f"{kind}_await_reason") for d in devices]
        known = [w for w in why if w]
        if known:
            setattr(device, f"{kind}_await_ms", None)
            where = f" (in {len(known)} of {len(devices)} repeats)" if len(devices) > 1 else ""
            setattr(device, f"{kind}_await_reason", known[0] + where)
    return device


def summarise_point(
    load: Load,
    repeats: Sequence[IoOutcome],
    duration_s: float,
    warmup_s: float,
    max_s: float | None = None,
) -> Point:
    """Throughput is the median repeat's; percentiles come from all repeats' merged histograms.
    Held until steady (`max_s`), fio's own steadystate verdict is the point's steadiness; a
    point held by rounds (several hosts) is judged on its last round's merged IOPS and
    records its rounds, how long it ran and its maximum."""
    by_iops = sorted(repeats, key=lambda r: r.iops)
    median = by_iops[len(by_iops) // 2]
    reads = merge_all(r.fio.read.histogram for r in repeats)
    writes = merge_all(r.fio.write.histogram for r in repeats)
    per_second = median.iops_per_second()
    steady, drift = steadiness(per_second)
    fio_steady = median.fio.steadystate if max_s else None
    if fio_steady:  # fio's test ended the point: it is the point's verdict (drivers/fio_job.py)
        steady, drift, per_second = fio_verdict(fio_steady, per_second)
    trust = Trust(
        steady=steady,
        slope_pct=drift,
        read_ops=reads.count,
        write_ops=writes.count,
        p99_trusted=(reads.count or MIN_OPS_P99) >= MIN_OPS_P99
        and (writes.count or MIN_OPS_P99) >= MIN_OPS_P99,
        p999_trusted=(reads.count or MIN_OPS_P999) >= MIN_OPS_P999
        and (writes.count or MIN_OPS_P999) >= MIN_OPS_P999,
    )
    if trust.steady is False and drift is not None and not fio_steady:
        trust.notes.append(drift_note(drift, "IOPS"))
    if fio_steady:
        trust.max_s, trust.ran_s = max_s, median.fio.runtime_s + warmup_s
        if trust.steady is False:
            trust.notes.append(fio_note(fio_steady, drift))
            trust.notes.append(held_note(trust))
    elif max_s and median.rounds:  # held by rounds on several hosts (cluster/io.py)
        trust.rounds, trust.ran_s, trust.max_s = median.rounds, median.ran_s, median.max_s
        if trust.steady is False:
            trust.notes.append(held_note(trust))
    for direction, stats in (("reads", reads), ("writes", writes)):
        if stats.count:  # a direction the profile does not do has no percentile to miss
            trust.notes += withheld_percentiles(stats.count, direction)
    point = Point(
        load=load,
        duration_s=duration_s,
        warmup_s=warmup_s,
        read_iops=median.fio.read.iops,
        write_iops=median.fio.write.iops,
        read_mbps=median.fio.read.bytes_per_s / 1e6,
        write_mbps=median.fio.write.bytes_per_s / 1e6,
        read_lat_ms=reads.stats() if reads.count else None,
        write_lat_ms=writes.stats() if writes.count else None,
        device=mean_device([r.device for r in repeats if r.device]),
        cpu=mean_fields([r.cpu for r in repeats], CpuStats),
        repeats=len(repeats),
        trust=trust,
        wall_s=sum(r.wall_s for r in repeats),
        uncertainty=io_uncertainty(repeats, median, per_second),
    )
    # fio's own against the device's: both the mean over the repeats the device measured
    # (the point's figures are the median repeat's)
    measured = [r.fio for r in repeats if r.device] or [median.fio]
    point.own_io, point.foreign_io_share, point.foreign_io_reason = fio_attribution(
        statistics.fmean(f.read.bytes_per_s for f in measured) / 1e6,
        statistics.fmean(f.write.bytes_per_s for f in measured) / 1e6,
        statistics.fmean(f.read.iops for f in measured),
        statistics.fmean(f.write.iops for f in measured),
        point.device, duration_s,
    )  # fmt: skip
    point.own_io["repeats"] = len(measured)
    trust.notes.extend(await_notes(point.device))
    point.shared_device = (point.foreign_io_share or 0.0) > SHARED_DEVICE_SHARE
    trust.notes.extend(
        attribution_notes(point.foreign_io_share, {}, point.device, "the bytes read and written")
    )
    if len(repeats) > 1:
        point.iops_spread = spread([r.iops for r in repeats])
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


def fio_verdict(
    state: dict[str, Any], per_second: list[float]
) -> tuple[bool, float | None, list[float]]:
    """fio's steadystate as the point's steadiness: attained, the drift across its window
    (its slope per second times the window's seconds less one, in % of the mean: the
    scale of trust.drift_pct) and the per-second IOPS of that window (fio's own over
    its jobs; else the log's last seconds)."""
    window = int(state.get("window_s") or 0)
    slope = state.get("slope_pct_per_s")
    drift = slope * (window - 1) if isinstance(slope, int | float) and window > 1 else None
    judged = state.get("iops") or (per_second[-window:] if window else per_second)
    return bool(state.get("attained")), drift, list(judged)


def fio_note(state: dict[str, Any], drift: float | None) -> str:
    """Why fio's steadystate test was not met: its test, its window, how far it was."""
    far = f": IOPS trended {drift:+.0f}% across it (limit 10%)" if drift is not None else ""
    return (
        f"not steady: fio's steadystate test ({state.get('test')}) was not met over its last "
        f"{state.get('window_s')} s{far}"
    )


def point_line(title: str, point: Point, slo_metric: str) -> str:
    """The terminal's line for a finished io point."""
    read_p99 = (
        point.read_lat_ms.p99 if point.read_lat_ms and point.read_lat_ms.p99 is not None else None
    )
    metric = slo_value(point, slo_metric)
    flags = [
        f
        for f, on in (
            ("saturated", point.saturated),
            ("not steady", point.trust.steady is False),
            ("noisy", point.trust.noisy),
        )
        if on
    ]
    cpu = point.cpu.util_pct if point.cpu and point.cpu.util_pct is not None else None
    parts = [
        f"  {title:<28}",
        f"{point.iops:>10,.0f} IOPS",
        f"read p99 {read_p99:.3f} ms" if read_p99 is not None else "read p99 -",
        f"SLO metric {metric:.3f} ms"
        if metric is not None and slo_metric != "read_lat_p99_ms"
        else "",
        f"CPU {cpu:.0f}%" if cpu is not None else "",
        f"[{', '.join(flags)}]" if flags else "",
        held_words(point.trust) or "",
    ]
    return "  ".join(p for p in parts if p)


def io_uncertainty(
    repeats: Sequence[IoOutcome], median: IoOutcome, per_second: list[float]
) -> dict[str, Any] | None:
    """The point's `uncertainty`: from its repeats where it has several (IOPS, CPU, each
    read-latency statistic), else from its measured window: IOPS and CPU per second
    (correlated), read latency by batch quantiles of fio's per-second histograms."""
    if len(repeats) > 1:
        figures: dict[str, list[float | None]] = {
            "iops": [r.iops for r in repeats],
            "cpu_pct": [r.cpu.util_pct for r in repeats],
        }
        for stat in ("mean", "p50", "p95", "p99", "p999"):
            figures[f"read_lat_{stat}_ms"] = [
                getattr(r.fio.read.histogram.stats(), stat) if r.fio.read.histogram.count else None
                for r in repeats
            ]
        return repeat_uncertainty(figures)
    seconds = len(per_second)
    hist = median.read_hist_per_second
    out = point_uncertainty({"iops": per_second, "cpu_pct": window_cpu(median)}) or {}
    out.update(latency_uncertainty(hist[-seconds:] if seconds else hist))
    return out or None


def window_cpu(outcome: IoOutcome) -> list[float]:
    """The host's CPU in each second of fio's measured window (the last runtime_s seconds
    before fio ended)."""
    end = outcome.wall_s
    start = end - outcome.fio.runtime_s
    return [
        float(s["cpu_util_pct"])
        for s in outcome.samples
        if s.get("cpu_util_pct") is not None and start + 0.5 < float(s.get("t_s") or 0) <= end
    ]
