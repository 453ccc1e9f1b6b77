"""Latency histograms: merged across jobs and repeats, never averaged as percentiles.

fio's json+ output gives, per job and direction, its completion-latency histogram as
{bin value in ns: count}. Adding the counts of the same bins is exact; percentiles are
then read from the merged histogram the way fio reads its own: the first bin at which
the cumulative count reaches q% of all operations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dbstor.results.model import LatencyStats

# Below these operation counts a percentile rests on too few samples to report:
# at least ten operations must lie beyond it.
MIN_OPS_P99 = 1_000
MIN_OPS_P999 = 10_000
NS_PER_MS = 1_000_000


@dataclass
class LatencyHistogram:
    bins: Counter[int] = field(default_factory=Counter)
    total_ns: float = 0.0  # sum of all latencies (mean x count), for an exact mean
    max_ns: float = 0.0

    @classmethod
    def from_fio(
        cls, bins: Mapping[str, int], mean_ns: float, count: int, max_ns: float
    ) -> LatencyHistogram:
        return cls(
            bins=Counter({int(value): int(n) for value, n in bins.items() if int(n)}),
            total_ns=float(mean_ns) * int(count),
            max_ns=float(max_ns),
        )

    @property
    def count(self) -> int:
        return sum(self.bins.values())

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON keys are strings): bins by value in ns, the sum and the max."""
        return {
            "bins": {str(value): n for value, n in sorted(self.bins.items())},
            "total_ns": self.total_ns,
            "max_ns": self.max_ns,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LatencyHistogram:
        return cls(
            bins=Counter({int(value): int(n) for value, n in data.get("bins", {}).items()}),
            total_ns=float(data.get("total_ns", 0.0)),
            max_ns=float(data.get("max_ns", 0.0)),
        )

    def merge(self, other: LatencyHistogram) -> LatencyHistogram:
        return LatencyHistogram(
            bins=self.bins + other.bins,
            total_ns=self.total_ns + other.total_ns,
            max_ns=max(self.max_ns, other.max_ns),
        )

    def percentile_ns(self, q: float) -> float | None:
        """The q-th percentile (0 < q <= 100) in ns, or None for an empty histogram."""
        total = self.count
        if total == 0:
            return None
        threshold = q / 100.0 * total
        cumulative = 0
        for value in sorted(self.bins):
            cumulative += self.bins[value]
            if cumulative >= threshold:
                return float(value)
        return float(max(self.bins))

    def stats(self) -> LatencyStats:
        """Mean and percentiles in ms; a percentile with too few operations behind it is None."""
        n = self.count
        if n == 0:
            return LatencyStats(count=0)

        def ms(q: float, minimum: int = 0) -> float | None:
            value = self.percentile_ns(q)
            return None if value is None or n < minimum else value / NS_PER_MS

        return LatencyStats(
            mean=self.total_ns / n / NS_PER_MS,
            p50=ms(50),
            p95=ms(95),
            p99=ms(99, MIN_OPS_P99),
            p999=ms(99.9, MIN_OPS_P999),
            max=self.max_ns / NS_PER_MS,
            count=n,
        )


def merge_all(histograms: Iterable[LatencyHistogram]) -> LatencyHistogram:
    """One histogram from many (jobs, repeats, users, processes, instances, hosts): the
    counts of equal bins added, the sums added, the largest max. Exact: percentiles read
    from the merge equal those of one histogram of every operation."""
    merged = LatencyHistogram()
    for histogram in histograms:
        merged.bins.update(histogram.bins)
        merged.total_ns += histogram.total_ns
        merged.max_ns = max(merged.max_ns, histogram.max_ns)
    return merged
