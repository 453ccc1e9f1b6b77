"""A query run's figures: total elapsed time (power and throughput), queries per hour,
the geometric mean of query times, elapsed-time statistics and the peak."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dbstor.results.model import LatencyStats, Point

# --- a point's figures -------------------------------------------------------------------


def geomean(values: Sequence[float]) -> float | None:
    """Geometric mean of positive values (TPC-H's power metric uses one of query times)."""
    positive = [v for v in values if v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))


def total_elapsed(records: Sequence[dict[str, Any]], stream_s: dict[int, float]) -> float:
    """A power run's total is the sum of its query times (TR-3476's total execution time);
    a throughput run's is the wall time of its slowest stream (TPC-H's Ts)."""
    if set(stream_s) <= {0}:
        return float(sum(r["elapsed_s"] for r in records))
    return max(stream_s.values(), default=0.0)


def elapsed_stats(seconds: Sequence[float]) -> LatencyStats | None:
    """Query elapsed times in ms: mean, median, max; p95 and p99 only with 20 and 100."""
    if not seconds:
        return None
    ms = sorted(s * 1000.0 for s in seconds)

    def rank(q: float) -> float:
        return ms[min(len(ms) - 1, max(0, math.ceil(q * len(ms)) - 1))]

    middle = len(ms) // 2
    median = ms[middle] if len(ms) % 2 else (ms[middle - 1] + ms[middle]) / 2
    return LatencyStats(
        mean=sum(ms) / len(ms),
        p50=median,
        p95=rank(0.95) if len(ms) >= 20 else None,
        p99=rank(0.99) if len(ms) >= 100 else None,
        max=ms[-1],
        count=len(ms),
    )


def point_metrics(
    records: Sequence[dict[str, Any]], stream_s: dict[int, float], streams: int
) -> dict[str, float]:
    """The point's workload figures: total elapsed, queries per hour, geometric mean."""
    ok = [r for r in records if r["status"] == "ok"]
    total = total_elapsed(records, stream_s)
    out: dict[str, float] = {
        "streams": streams,
        "total_elapsed_s": total,
        "queries": len(records),
        "queries_ok": len(ok),
        "queries_failed": sum(r["status"] == "failed" for r in records),
        "queries_timeout": sum(r["status"] == "timeout" for r in records),
    }
    if total > 0:
        out["queries_per_hour"] = len(ok) * 3600.0 / total
    mean = geomean([r["elapsed_s"] for r in ok])
    if mean is not None:
        out["geomean_s"] = mean
    return out


def peak_of_queries(points: Sequence[Point]) -> dict[str, Any] | None:
    """A query run's peak: its finished point with the most queries per hour."""
    finished = [p for p in points if p.ok and (p.workload_metrics or {}).get("queries_per_hour")]
    if not finished:
        return None
    best = max(finished, key=lambda p: (p.workload_metrics or {})["queries_per_hour"])
    return {
        "load": best.load.value,
        "kind": best.load.kind,
        "iops": best.iops,
        "tps": best.tps,
        "queries_per_hour": (best.workload_metrics or {})["queries_per_hour"],
        "basis": "queries per hour",
    }
