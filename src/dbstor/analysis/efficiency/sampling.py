"""Which units of a file to compress, and how sure the resulting ratios are.

Sampling is stratified: a file of N units (a unit is the largest compression group, 32 KiB
by default) that gets n samples is cut into n equal strata and one unit is drawn at random
from each, with a fixed seed. The seed depends only on N and n, so two files of the same
size are sampled at the same offsets (identical copies then stay visible as copies).

Ratios are ratio estimators: stored bytes per logical byte, estimated per file from the
sampled units and weighted by the file's known logical bytes. Their variance is the usual
linearised one, with the finite population correction; the interval is normal at 95%.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

Z95 = 1.96
DEFAULT_RATE = 0.05
DEFAULT_MIN_UNITS = 4096  # 128 MiB of 32 KiB units: below ~2,400 units 1 point is not assured


def sample_counts(units: list[int], rate: float, min_units: int) -> list[int]:
    """How many units to sample from each file: rate, but at least min_units in all.

    The minimum is spread over the files in proportion to their size.
    """
    total = sum(units)
    counts = []
    for n_units in units:
        if rate >= 1.0 or n_units == 0:
            counts.append(n_units)
            continue
        by_rate = math.ceil(rate * n_units)
        by_min = math.ceil(min_units * n_units / total) if total else 0
        counts.append(min(n_units, max(by_rate, by_min, 1)))
    return counts


def stratified_units(n_units: int, n_sample: int, seed: int) -> list[int]:
    """Sorted unit indices: one drawn at random from each of n_sample equal strata."""
    if n_sample >= n_units:
        return list(range(n_units))
    rng = random.Random(f"{seed}:{n_units}:{n_sample}")
    picks = []
    for j in range(n_sample):
        lo = j * n_units // n_sample
        hi = (j + 1) * n_units // n_sample
        picks.append(lo + rng.randrange(hi - lo))
    return picks


@dataclass
class RatioSums:
    """Running sums over sampled units of x (auxiliary bytes) and y (bytes of interest)."""

    n: int = 0
    sx: float = 0.0
    sy: float = 0.0
    sxx: float = 0.0
    syy: float = 0.0
    sxy: float = 0.0

    def add(self, x: float, y: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.syy += y * y
        self.sxy += x * y

    def merge(self, other: RatioSums) -> None:
        self.n += other.n
        self.sx += other.sx
        self.sy += other.sy
        self.sxx += other.sxx
        self.syy += other.syy
        self.sxy += other.sxy

    @property
    def ratio(self) -> float | None:
        """y per unit of x in the sample (None if the sample had no x)."""
        return self.sy / self.sx if self.sx else None

    def residual_var(self) -> float | None:
        """Sample variance of y - r x (None with fewer than two units)."""
        r = self.ratio
        if r is None or self.n < 2:
            return None
        ss = self.syy - 2 * r * self.sxy + r * r * self.sxx
        return max(ss, 0.0) / (self.n - 1)


@dataclass
class Stratum:
    """One file's sample for one quantity: its sums, total x, and units sampled / in all."""

    sums: RatioSums
    total_x: float  # the file's total of the auxiliary variable (known or estimated)
    units_sampled: int
    units_total: int


def combined_ratio(strata: list[Stratum]) -> tuple[float | None, float]:
    """(estimated sum y / sum x over all files, its standard error).

    Files sampled completely contribute no variance. A file with a single sampled unit
    borrows the pooled relative residual variance of the others.
    """
    total_x = sum(s.total_x for s in strata if s.sums.sx)
    if not total_x:
        return None, 0.0
    y_hat = 0.0
    var = 0.0
    pooled = _pooled_rel_var(strata)
    for s in strata:
        r = s.sums.ratio
        if r is None:
            continue
        y_hat += s.total_x * r
        if s.units_sampled >= s.units_total:
            continue
        fpc = 1.0 - s.units_sampled / s.units_total
        mean_x = s.sums.sx / s.sums.n
        rv = s.sums.residual_var()
        if rv is None:
            rv = pooled * mean_x * mean_x
        var += (s.total_x**2) * fpc * rv / (s.sums.n * mean_x * mean_x)
    return y_hat / total_x, math.sqrt(var) / total_x


def _pooled_rel_var(strata: list[Stratum]) -> float:
    num = 0.0
    den = 0
    for s in strata:
        rv = s.sums.residual_var()
        if rv is None or not s.sums.sx:
            continue
        mean_x = s.sums.sx / s.sums.n
        num += rv / (mean_x * mean_x) * (s.sums.n - 1)
        den += s.sums.n - 1
    return num / den if den else 0.25


def ratio_interval(
    fraction: float | None, se: float
) -> tuple[float | None, float | None, float | None]:
    """Stored fraction q +- z*se -> (ratio 1/q, low, high); None where q is 0 or unknown."""
    if fraction is None or fraction <= 0:
        return None, None, None
    lo_q = max(fraction - Z95 * se, 1e-12)
    hi_q = fraction + Z95 * se
    return 1.0 / fraction, 1.0 / hi_q, 1.0 / lo_q


def savings_pct(ratio: float | None) -> float | None:
    """1.8 (1.8:1) -> 44.4 (% of space saved)."""
    if ratio is None or ratio <= 0:
        return None
    return (1.0 - 1.0 / ratio) * 100.0
