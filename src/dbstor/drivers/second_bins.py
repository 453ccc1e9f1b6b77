"""Latency histograms per measured second, kept only for points with events (their
impact's highest per-second p99): a second's histogram of every user merged bin by bin,
never a percentile of percentiles.

Plain form (to_dict, pipes, JSON): one {bin ns as text: count} per second.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram


def merge_seconds(parts: Iterable[Sequence[Counter[int]] | None]) -> list[Counter[int]] | None:
    """Each second's bins added over every part; None when no part kept any."""
    kept = [p for p in parts if p is not None]
    if not kept:
        return None
    seconds = max((len(p) for p in kept), default=0)
    out: list[Counter[int]] = [Counter() for _ in range(seconds)]
    for part in kept:
        for second, bins in enumerate(part):
            out[second].update(bins)
    return out


def add_latency(seconds: list[Counter[int]], second: int, bin_value: int) -> None:
    """Count one transaction of `second` (its latency's bin) in the per-second bins."""
    while len(seconds) <= second:
        seconds.append(Counter())
    seconds[second][bin_value] += 1


def p99_per_second_ms(seconds: Sequence[Counter[int]] | None) -> list[float | None] | None:
    """Each second's p99 in ms (None for a second without a transaction)."""
    if seconds is None:
        return None
    out: list[float | None] = []
    for bins in seconds:
        ns = LatencyHistogram(bins=Counter(bins)).percentile_ns(99.0)
        out.append(None if ns is None else ns / 1e6)
    return out


def to_plain(seconds: Sequence[Counter[int]] | None) -> list[dict[str, int]] | None:
    return None if seconds is None else [{str(k): v for k, v in s.items()} for s in seconds]


def from_plain(data: Any) -> list[Counter[int]] | None:
    if data is None:
        return None
    return [Counter({int(k): int(v) for k, v in s.items()}) for s in data]
