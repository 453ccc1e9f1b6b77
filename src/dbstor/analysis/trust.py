"""How far a point can be trusted: steady state, samples behind percentiles, noisy repeats,
and whether a composed claim (a factor, a per-disk efficiency, a cost case, a summary
sentence) may rest on it: `untrustworthy(point)` is the one test every such claim calls."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from dbstor.analysis.attribution import MOSTLY_FOREIGN_SHARE, server_cpu
from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999
from dbstor.analysis.interval import t95
from dbstor.results.model import Point, Run, Spread, Trust

STEADY_MAX_DRIFT_PCT = 10.0  # SNIA PTS: the slope over the window stays within 10% of the mean
NOISY_SPREAD_PCT = 10.0  # repeats whose IOPS differ by more than this are flagged
MEMORY_READS_PER_TXN = 0.05  # fewer device reads per transaction than this: memory served reads
MEMORY_HIT_RATIO = 0.99  # an engine that does not count physical reads: hit ratio above this
BUSY_HOST_OTHER_PCT = 25.0  # other processes' share of the host's CPU above this: busy host
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


def drift_note(
    drift: float, what: str, window: str = "the measured window", step: str = "second"
) -> str:
    """Why a point is not steady, in words a reader can check: the fitted line's change over
    the window as a share of its mean (SNIA PTS's test), with the limit it broke; `step`
    is what the window is made of (seconds, or a query point's rounds)."""
    way = "down" if drift < 0 else "up"
    return (
        f"not steady: over {window}, {what} trended {way} by {abs(drift):.0f}% of their mean "
        f"there, beyond their own {step}-to-{step} noise (a steady point stays within "
        f"{STEADY_MAX_DRIFT_PCT:.0f}%)"
    )


def held_note(trust: Trust) -> str:
    """Why a point held until steady still is not: 'not steady within its maximum of 60 s
    (4 rounds, ran 61 s)'."""
    rounds = f"{trust.rounds} round{'s' if trust.rounds != 1 else ''}" if trust.rounds else ""
    ran = f"ran {trust.ran_s:.0f} s" if trust.ran_s else ""
    said = ", ".join(part for part in (rounds, ran) if part)
    return f"not steady within its maximum of {trust.max_s:g} s" + (f" ({said})" if said else "")


def held_words(trust: Trust) -> str | None:
    """How long a point ran and why, for the method section and the terminal: 'steady
    after 3 rounds (27 s)', 'not steady within 60 s (4 rounds, 61 s)'; an io point (fio's
    own test, no rounds) 'steady after 9 s'; None when the point ran its duration only."""
    if not trust.max_s:
        return None
    ran = f"{trust.ran_s:.0f} s" if trust.ran_s else "?"
    if not trust.rounds:  # fio's steadystate ended it
        if trust.steady is False:
            return f"not steady within {trust.max_s:g} s (ran {ran})"
        return f"steady after {ran}"
    rounds = f"{trust.rounds} round{'s' if trust.rounds != 1 else ''}"
    if trust.steady is False:
        return f"not steady within {trust.max_s:g} s ({rounds}, {ran})"
    if trust.steady is None:
        return f"{rounds}, {ran} (too short to judge steadiness)"
    return f"steady after {rounds} ({ran})"


def is_steady(drift: float | None) -> bool | None:
    return None if drift is None else abs(drift) <= STEADY_MAX_DRIFT_PCT


def steadiness(per_second: Sequence[float]) -> tuple[bool | None, float | None]:
    """The one steadiness test of a measured window: whether it is steady (None: fewer than
    3 seconds to judge by) and its drift, the fitted line's change across the whole window
    in % of the mean (SNIA PTS's slope test). A window is not steady when the drift is over
    STEADY_MAX_DRIFT_PCT and beyond what the window's own second-to-second noise explains
    (the fitted slope's 95% interval excludes 0): on a noisy host a few seconds cannot show
    a slope within 10%, and that noise is what a factor's interval carries instead. The
    same call ends a point held until steady (runs/database/steady.py) and sets the point's
    flag (runs/database/summary.py), so a point that reached steady is never flagged."""
    values = [float(v) for v in per_second]
    n = len(values)
    drift = drift_pct(values, window=n) if n >= 3 else None
    if drift is None:
        return None, None
    if abs(drift) <= STEADY_MAX_DRIFT_PCT:
        return True, drift
    mean = statistics.fmean(values)
    x_mean = (n - 1) / 2
    sxx = sum((x - x_mean) ** 2 for x in range(n))
    slope = sum((x - x_mean) * (y - mean) for x, y in enumerate(values)) / sxx
    residual = sum((y - mean - slope * (x - x_mean)) ** 2 for x, y in enumerate(values))
    if n < 4 or residual <= 0:
        return n >= 4 and residual > 0, drift
    noise = (residual / (n - 2) / sxx) ** 0.5 * (n - 1) / mean * 100.0
    return abs(drift) <= t95(n - 2) * noise, drift


ROUND_WINDOW = 5  # SNIA PTS's steady-state window: the last five rounds at most
ROUND_MAX_EXCURSION_PCT = 20.0  # SNIA PTS: the window's range within 20% of its mean


def rounds_steadiness(rates: Sequence[float]) -> tuple[bool | None, float | None]:
    """The steadiness test of a point measured in rounds, each one whole run of its work (a
    query point's query set), over the last ROUND_WINDOW rounds' throughputs (queries per
    hour), oldest first: SNIA PTS's own test of rounds, the fitted line's change across
    them within STEADY_MAX_DRIFT_PCT of their mean and their range (highest less lowest)
    within ROUND_MAX_EXCURSION_PCT. Not `steadiness`'s allowance for noise: with three to
    five rounds its t interval is so wide that rounds of 86,712, 86,037, 172,055 and
    66,054 queries/h passed. Fewer than 3 rounds cannot be judged (None). The same call
    ends a query point held until steady (runs/queries/steady.py) and sets its flag
    (runs/queries/summary.py)."""
    window = [float(rate) for rate in rates][-ROUND_WINDOW:]
    drift = drift_pct(window, window=len(window)) if len(window) >= 3 else None
    if drift is None:
        return None, None
    mean = statistics.fmean(window)
    excursion = (max(window) - min(window)) / mean * 100.0
    return abs(drift) <= STEADY_MAX_DRIFT_PCT and excursion <= ROUND_MAX_EXCURSION_PCT, drift


def rounds_note(rates: Sequence[float], drift: float) -> str:
    """Why rounds are not steady by `rounds_steadiness`, in words a reader can check: the
    trend over the judged rounds past 10% of their mean, or else their range past 20%."""
    window = [float(rate) for rate in rates][-ROUND_WINDOW:]
    where = f"over {round_words(len(window))}, queries per hour"
    if abs(drift) > STEADY_MAX_DRIFT_PCT:
        way = "down" if drift < 0 else "up"
        return (
            f"not steady: {where} trended {way} by {abs(drift):.0f}% of their mean "
            f"(a steady point stays within {STEADY_MAX_DRIFT_PCT:.0f}%)"
        )
    spread_pct = (max(window) - min(window)) / statistics.fmean(window) * 100.0
    return (
        f"not steady: {where} ranged over {spread_pct:.0f}% of their mean "
        f"(a steady point stays within {ROUND_MAX_EXCURSION_PCT:.0f}%)"
    )


def round_words(rounds: int) -> str:
    """The window `rounds_steadiness` judged, for a drift note: 'the last 3 rounds'."""
    return f"the last {min(rounds, ROUND_WINDOW)} rounds"


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
    """Why a composed claim must not rest on this point at all, or None when it may.

    From memory (the storage was barely read) or a device whose I/O was mostly others'
    (over half of it, analysis/attribution.py: MOSTLY_FOREIGN_SHARE). A point that was not
    steady, or a device shared in part, still carries its factor, with an interval from
    its own spread and the flag in words beside it (point_flags)."""
    if not point.ok:
        return "the point did not finish"
    if reads_from_memory(point):
        return "its reads came from memory, not the storage"
    share = point.foreign_io_share
    if point.shared_device and share is not None and share > MOSTLY_FOREIGN_SHARE:
        return f"{share:.0%} of the device's I/O was not the run's own (shared device)"
    return None


def point_flags(point: Point) -> list[str]:
    """What a factor resting on this point must say beside it (the point may carry it):
    'not steady', 'shared device (23% of its I/O foreign)', 'busy host'."""
    flags = []
    if point.trust.steady is False:
        flags.append("not steady")
    share = point.foreign_io_share
    if point.shared_device:
        flags.append(
            f"shared device ({share:.0%} of its I/O foreign)" if share else "shared device"
        )
    other = point.cpu.other_pct if point.cpu else None
    if other is not None and other > BUSY_HOST_OTHER_PCT:
        flags.append(f"busy host ({other:.0f}% of its CPU other work)")
    if point.trust.noisy:
        flags.append("noisy repeats")
    return flags


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
