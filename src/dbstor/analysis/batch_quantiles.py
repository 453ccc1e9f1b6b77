"""The uncertainty of a latency percentile read from one measured window: batch quantiles.

A p99 is not a mean of anything, and the seconds of a window are not independent, so the
per-second p99s cannot be averaged and treated as a sample. The window's per-second
histograms (fio's own, drivers/fio_hist.py) are cut into k consecutive batches of whole
seconds; each batch's histogram gives its own p99; the k batch p99s vary as the window's
p99 does, and batches of several seconds are close to independent (the batch-means idea
applied to a quantile, "batch quantiles" in simulation output analysis). The estimate's
relative standard error is that of the batch p99s' mean, with k - 1 degrees of freedom.

Every batch must hold enough operations for its percentile to lie inside its data (the
same counts that withhold a point's p99 and p99.9, analysis/histogram.py), and there must
be at least MIN_BATCHES of them; otherwise there is no interval (None, never a guess).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999, NS_PER_MS, LatencyHistogram
from dbstor.analysis.interval import Estimate, from_seconds

MIN_BATCHES = 3
MAX_BATCHES = 10
# operations a batch needs for its percentile (the point's own minimum for p99 and p99.9)
MIN_OPS = {"p50": 20, "p95": 200, "p99": MIN_OPS_P99, "p999": MIN_OPS_P999}
QUANTILE = {"p50": 50.0, "p95": 95.0, "p99": 99.0, "p999": 99.9}


def batch_count(seconds: int, operations: int, stat: str) -> int:
    """How many batches the window is cut into: at most MAX_BATCHES and one per second,
    each with at least MIN_OPS[stat] operations on average; 0 below MIN_BATCHES."""
    k = min(MAX_BATCHES, seconds, operations // MIN_OPS[stat])
    return k if k >= MIN_BATCHES else 0


def batches(per_second: Sequence[Mapping[int, int]], k: int) -> list[LatencyHistogram]:
    """The window's seconds in k consecutive batches, as near equal as whole seconds allow."""
    n = len(per_second)
    out = []
    for j in range(k):
        merged: Counter[int] = Counter()
        for second in per_second[j * n // k : (j + 1) * n // k]:
            merged.update(second)
        out.append(LatencyHistogram(bins=merged))
    return out


def percentile_estimate(per_second: Sequence[Mapping[int, int]], stat: str) -> Estimate | None:
    """A percentile's ("p99") Estimate in ms from a window's per-second histograms (bin ns ->
    count), by batch quantiles; None when the window is too short or too thin for it."""
    total = sum(sum(s.values()) for s in per_second)
    k = batch_count(len(per_second), total, stat)
    if not k:
        return None
    cut = batches(per_second, k)
    if min(b.count for b in cut) < MIN_OPS[stat]:
        return None  # one batch too thin for its own percentile (a stall, a slow start)
    values = [(b.percentile_ns(QUANTILE[stat]) or 0.0) / NS_PER_MS for b in cut]
    mean = statistics.fmean(values)
    if mean <= 0:
        return None
    se = statistics.stdev(values) / math.sqrt(k)
    size = len(per_second) / k
    method = f"{stat} of {k} batches of {size:.3g} s (batch quantiles)"
    return Estimate(mean, se, k - 1, method)


def mean_estimate(per_second: Sequence[Mapping[int, int]]) -> Estimate | None:
    """The mean latency's Estimate in ms from the per-second histograms (bin values), the
    seconds treated as correlated (interval.from_seconds)."""
    means = []
    for second in per_second:
        n = sum(second.values())
        if n:
            means.append(sum(v * c for v, c in second.items()) / n / NS_PER_MS)
    return from_seconds(means)


def latency_uncertainty(
    per_second: Sequence[Mapping[int, int]], direction: str = "read"
) -> dict[str, Any]:
    """The `uncertainty` entries of a window's latency: {"read_lat_p99_ms": {...}, ...}."""
    out = {}
    for stat in ("p50", "p95", "p99", "p999"):
        estimate = percentile_estimate(per_second, stat)
        if estimate is not None:
            out[f"{direction}_lat_{stat}_ms"] = estimate.to_dict()
    mean = mean_estimate(per_second)
    if mean is not None:
        out[f"{direction}_lat_mean_ms"] = mean.to_dict()
    return out
