"""How far a point can be trusted: steady state, samples behind percentiles, noisy repeats."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from dbstor.results.model import Spread

STEADY_MAX_DRIFT_PCT = 10.0  # SNIA PTS: the slope over the window stays within 10% of the mean
NOISY_SPREAD_PCT = 10.0  # repeats whose IOPS differ by more than this are flagged
MEMORY_READS_PER_TXN = 0.05  # fewer device reads per transaction than this: memory served reads


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


def is_steady(drift: float | None) -> bool | None:
    return None if drift is None else abs(drift) <= STEADY_MAX_DRIFT_PCT


def spread(values: Sequence[float]) -> Spread:
    return Spread(minimum=min(values), median=statistics.median(values), maximum=max(values))


def is_noisy(s: Spread) -> bool:
    if s.median <= 0:
        return False
    return (s.maximum - s.minimum) / s.median * 100.0 > NOISY_SPREAD_PCT
