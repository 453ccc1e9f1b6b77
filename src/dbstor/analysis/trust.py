"""How far a point can be trusted: steady state, samples behind percentiles, noisy repeats,
and whether a composed claim (a factor, a per-disk efficiency, a cost case, a summary
sentence) may rest on it: `untrustworthy(point)` is the one test every such claim calls."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999
from dbstor.results.model import Point, Run, Spread

STEADY_MAX_DRIFT_PCT = 10.0  # SNIA PTS: the slope over the window stays within 10% of the mean
NOISY_SPREAD_PCT = 10.0  # repeats whose IOPS differ by more than this are flagged
MEMORY_READS_PER_TXN = 0.05  # fewer device reads per transaction than this: memory served reads
MEMORY_HIT_RATIO = 0.99  # an engine that does not count physical reads: hit ratio above this
HOST_CPU_SATURATED_PCT = 95.0  # host CPU at or above this: a ceiling, not what the work needed


def drift_pct(per_second: Sequence[float], window: int | None = None) -> float | None:
    """Least-squares slope over the last window, as the change across it in % of the mean.

    The window is the last half of the measured seconds (at least 3). None when there are
    fewer than 3 seconds to judge by.
    """
    values = list(per_second)
    size = window or max(3, len(values) // 2)
    values = values[-size:]
    if len(values) < 3:
        return None
    mean = statistics.fmean(values)
    if mean <= 0:
        return None
    xs = range(len(values))
    x_mean = statistics.fmean(xs)
    var = sum((x - x_mean) ** 2 for x in xs)
    slope = sum((x - x_mean) * (y - mean) for x, y in zip(xs, values, strict=True)) / var
    return slope * (len(values) - 1) / mean * 100.0


def drift_note(drift: float, what: str) -> str:
    """Why a point is not steady, in words a reader can check: the fitted line's change over
    the last half as a share of the mean there (SNIA PTS's test), with the limit it broke."""
    way = "down" if drift < 0 else "up"
    return (
        f"not steady: over the last half of the point, {what} trended {way} by {abs(drift):.0f}% "
        f"of their mean there (a steady point stays within {STEADY_MAX_DRIFT_PCT:.0f}%)"
    )


def is_steady(drift: float | None) -> bool | None:
    return None if drift is None else abs(drift) <= STEADY_MAX_DRIFT_PCT


def spread(values: Sequence[float]) -> Spread:
    return Spread(minimum=min(values), median=statistics.median(values), maximum=max(values))


def is_noisy(s: Spread) -> bool:
    if s.median <= 0:
        return False
    return (s.maximum - s.minimum) / s.median * 100.0 > NOISY_SPREAD_PCT


def withheld_percentiles(count: int, what: str) -> list[str]:
    """Why a percentile is missing (null) on a point: 'p99 withheld: 640 transactions, a
    p99 needs at least 1,000'. `what` names the operations ('transactions', 'reads')."""
    notes = []
    for name, least in (("p99", MIN_OPS_P99), ("p99.9", MIN_OPS_P999)):
        if 0 < count < least:
            notes.append(f"{name} withheld: {count:,} {what}, a {name} needs at least {least:,}")
        elif count == 0:
            notes.append(f"{name} withheld: no {what} finished")
            break
    return notes


def reads_from_memory(point: Point) -> bool:
    """A database point whose reads memory served, not the storage.

    Either witness is enough, so that memory speed never passes for storage speed: the
    device saw almost no reads per transaction, or the engine read almost nothing from
    storage per transaction (its physical reads; its cache hit ratio above 99% when it
    does not count them)."""
    if not point.ok or point.tps is None:
        return False
    if any(str(note).startswith("reads came from memory") for note in point.trust.notes or []):
        return True
    io = point.engine_io or {}
    device = io.get("device_reads_per_txn")
    if not isinstance(device, int | float) and point.read_iops is not None and point.tps:
        device = point.read_iops / point.tps
    if isinstance(device, int | float) and device < MEMORY_READS_PER_TXN:
        return True
    engine = io.get("engine_physical_reads_per_txn")
    if isinstance(engine, int | float):
        return engine < MEMORY_READS_PER_TXN
    ratio = point.cache_hit_ratio
    return ratio is not None and ratio > MEMORY_HIT_RATIO


def untrustworthy(point: Point) -> str | None:
    """Why a composed claim must not rest on this point, or None when it may.

    From memory (the storage was barely read), not steady (still drifting), or a shared
    device (over 10% of the device's I/O was other processes', analysis/attribution.py)."""
    if not point.ok:
        return "the point did not finish"
    if reads_from_memory(point):
        return "its reads came from memory, not the storage"
    if point.trust.steady is False:
        return "it was not steady (throughput still drifting)"
    if point.shared_device:
        share = point.foreign_io_share
        much = f"{share:.0%} of" if share is not None else "much of"
        return f"{much} the device's I/O was not the run's own (shared device)"
    return None


def cpu_untrustworthy(point: Point) -> str | None:
    """Why the point's CPU figure cannot carry a CPU factor or a cost case, or None.

    The figure judged is the one a factor or a cost case uses (attribution.server_cpu): the
    database's own CPU where dbstor counted it, else the host's. At 95% or more it is a
    ceiling: 100% before and 100% after says nothing about the CPU the work needs (a
    consolidation of 10 servers to 10)."""
    reason = untrustworthy(point)
    if reason:
        return reason
    util, whose = server_cpu(point.cpu)
    if util is None:
        return "its CPU was not measured"
    if util >= HOST_CPU_SATURATED_PCT:
        return f"the CPU of {whose} was saturated ({util:.0f}%)"
    return None


def spread_pct(run: Run) -> float | None:
    """The widest spread of throughput between a point's repeats, in % of its median (None
    when no point of the run was repeated)."""
    widths = []
    for point in run.points:
        spread = point.tps_spread or point.iops_spread
        if point.repeats > 1 and spread is not None and spread.median > 0:
            widths.append((spread.maximum - spread.minimum) / spread.median * 100)
    return max(widths) if widths else None


def inside_spread(
    normalised: dict[str, float | None], runs: Sequence[Run]
) -> tuple[float | None, bool | None, str]:
    """The runs' own spread (the widest of them), whether a factor's throughput (normalised
    to 100) lies inside it (None: no run was repeated, so nobody knows), and the words a
    factor then carries."""
    spreads = [s for s in (spread_pct(r) for r in runs) if s is not None]
    perf = normalised.get("throughput")
    if not spreads or perf is None:
        return (max(spreads) if spreads else None), None, ""
    widest = max(spreads)
    if abs(perf - 100) > widest:
        return widest, False, ""
    return widest, True, f" (inside the runs' own spread of {widest:.1f}% between repeats)"
