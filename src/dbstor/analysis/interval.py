"""How sure a figure is, from the point's own spread, and the interval a factor carries.

A point's throughput has an uncertainty (an `Estimate`: mean, standard error, degrees of
freedom) from its repeats where it was measured more than once, else from the per-second
figures of its measured window. Seconds of one window are not independent (a slow second
is usually followed by another), so the standard error uses the effective number of
seconds under lag-1 autocorrelation r: n_eff = n (1 - r) / (1 + r), r taken as 0 when
negative (the AR(1) variance inflation, the same correction batch means approximate).

A factor a/b carries a 95% interval on its logarithm: relative standard errors add in
quadrature, Welch-Satterthwaite degrees of freedom, Student's t (docs/results.md).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MIN_SECONDS = 3  # fewer per-second figures than this: no interval
MAX_LAG1 = 0.95  # an autocorrelation this close to 1 leaves too few effective seconds anyway

# Student's t, two-sided 95%, by degrees of freedom (1-30); past 30 the normal's 1.96
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


@dataclass(frozen=True)
class Estimate:
    """A figure's mean, its standard error and degrees of freedom, and how they were had."""

    mean: float
    se: float
    df: float
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "se": self.se, "df": self.df, "method": self.method}

    @classmethod
    def from_dict(cls, data: Any) -> Estimate | None:
        if not isinstance(data, dict):
            return None
        try:
            mean, se, df = float(data["mean"]), float(data["se"]), float(data["df"])
            return cls(mean, se, df, str(data["method"]))
        except (KeyError, TypeError, ValueError):
            return None

    @property
    def relative(self) -> float:
        return self.se / self.mean if self.mean > 0 else math.inf


def t95(df: float) -> float:
    """Student's t for a two-sided 95% interval; a fractional df (Welch-Satterthwaite, an
    effective number of seconds) between the table's whole ones, at least 1."""
    df = max(1.0, df)
    if df >= len(_T95):
        return _T95[-1] if df < len(_T95) + 1 else 1.96
    low = int(df)
    return _T95[low - 1] + (df - low) * (_T95[low] - _T95[low - 1])


def lag1(values: Sequence[float]) -> float:
    """The lag-1 autocorrelation of a series (0 when it has no variance)."""
    mean = statistics.fmean(values)
    var = sum((v - mean) ** 2 for v in values)
    if var <= 0:
        return 0.0
    return sum((a - mean) * (b - mean) for a, b in itertools.pairwise(values)) / var


def from_seconds(per_second: Sequence[float]) -> Estimate | None:
    """The mean of a measured window's per-second figures and its standard error with the
    seconds treated as correlated; None with fewer than MIN_SECONDS or a mean of 0."""
    values = [float(v) for v in per_second]
    n = len(values)
    if n < MIN_SECONDS:
        return None
    mean = statistics.fmean(values)
    if mean <= 0:
        return None
    r = min(max(lag1(values), 0.0), MAX_LAG1)
    effective = max(2.0, n * (1 - r) / (1 + r))
    se = statistics.stdev(values) / math.sqrt(effective)
    method = f"{n} one-second figures, lag-1 autocorrelation {r:.2f}, {effective:.1f} effective"
    return Estimate(mean, se, effective - 1, method)


def from_repeats(values: Sequence[float]) -> Estimate | None:
    """The mean of a point's repeats and its standard error; None with one repeat."""
    figures = [float(v) for v in values]
    if len(figures) < 2 or statistics.fmean(figures) <= 0:
        return None
    se = statistics.stdev(figures) / math.sqrt(len(figures))
    return Estimate(statistics.fmean(figures), se, len(figures) - 1, f"{len(figures)} repeats")


def wider(estimates: Sequence[Estimate | None]) -> Estimate | None:
    """The least sure of the estimates a figure rests on (the two points an interpolated
    figure lies between); None when any of them has none."""
    if not estimates or any(e is None for e in estimates):
        return None
    return max((e for e in estimates if e is not None), key=lambda e: (e.relative, -e.df))


def factor_interval(run: Estimate | None, base: Estimate | None) -> tuple[float, float] | None:
    """The 95% interval of run/base as multipliers of the factor itself (low, high): the
    factor x4.1 with (0.93, 1.07) reads x4.1 (3.8-4.4). None when either side has none."""
    if run is None or base is None or run.mean <= 0 or base.mean <= 0:
        return None
    a, b = run.relative**2, base.relative**2
    rel = math.sqrt(a + b)
    if rel == 0:
        return (1.0, 1.0)
    terms = [x**2 / df for x, df in ((a, run.df), (b, base.df)) if x > 0 and df > 0]
    df = (a + b) ** 2 / sum(terms) if terms else 1.0
    spread = math.exp(t95(df) * rel)
    return (1 / spread, spread)


def point_uncertainty(per_second: dict[str, Sequence[float]]) -> dict[str, Any] | None:
    """A point's `uncertainty` field: figure ("tps", "iops") -> its Estimate as a dict, from
    the measured window's per-second figures; None when none has enough seconds."""
    out = {}
    for key, values in per_second.items():
        estimate = from_seconds(values)
        if estimate is not None:
            out[key] = estimate.to_dict()
    return out or None


def repeat_uncertainty(values: dict[str, Sequence[float | None]]) -> dict[str, Any] | None:
    """A repeated point's `uncertainty` field, from its repeats' figures ("tps", "iops")."""
    out = {}
    for key, figures in values.items():
        known = [float(v) for v in figures if v is not None]
        estimate = from_repeats(known) if len(known) == len(figures) else None
        if estimate is not None:
            out[key] = estimate.to_dict()
    return out or None


def estimate_of(point: Any, key: str) -> Estimate | None:
    """The point's Estimate of a figure ("tps", "iops"), None when it has none."""
    return Estimate.from_dict((getattr(point, "uncertainty", None) or {}).get(key))
