"""A load point measured more than once (the study's `repeats`): one point result from its
repeats, for database and query points as for fio's. Throughput is the median repeat's,
latency percentiles come from every repeat's histograms merged (never averaged), and the
spread of throughput (and of device IOPS where measured) is kept, flagged `noisy` past 10%."""

from __future__ import annotations

from collections.abc import Sequence

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999, LatencyHistogram, merge_all
from dbstor.analysis.interval import repeat_uncertainty
from dbstor.analysis.trust import NOISY_SPREAD_PCT, is_noisy, spread
from dbstor.results.model import Point


def median_repeat(points: Sequence[Point]) -> int:
    """The index of the repeat whose throughput is the median (the lower middle of an even count)."""
    order = sorted(range(len(points)), key=lambda i: points[i].tps or 0.0)
    return order[(len(order) - 1) // 2]


def combine_repeats(
    points: Sequence[Point],
    latency: Sequence[LatencyHistogram] | None = None,
    per_type: Sequence[dict[str, LatencyHistogram]] | None = None,
) -> Point:
    """One point from its repeats (at least one, all ok). `latency` and `per_type` are each
    repeat's transaction histograms."""
    if len(points) == 1:
        return points[0]
    point = points[median_repeat(points)]
    point.started_at = points[0].started_at  # when the point's load started: its first repeat
    point.repeats = len(points)
    point.wall_s = sum(p.wall_s or 0.0 for p in points) or None
    if latency:
        merged = merge_all(latency)
        point.txn_lat_ms = merged.stats()
        point.trust.p99_trusted = merged.count >= MIN_OPS_P99
        point.trust.p999_trusted = merged.count >= MIN_OPS_P999
    if per_type:
        names = sorted({name for types in per_type for name in types})
        point.txn_types = {
            name: merge_all(t[name] for t in per_type if name in t).stats() for name in names
        }
    tps = [p.tps for p in points]
    if all(v is not None for v in tps):
        point.tps_spread = spread([float(v) for v in tps if v is not None])
        point.trust.noisy = is_noisy(point.tps_spread)
        if point.trust.noisy:
            point.trust.notes.append(
                f"noisy: repeats differ by more than {NOISY_SPREAD_PCT:.0f}% in throughput"
            )
    if all(p.read_iops is not None for p in points):
        point.iops_spread = spread([p.iops for p in points])
    point.uncertainty = repeat_uncertainty(repeat_figures(points))
    return point


def repeat_figures(points: Sequence[Point]) -> dict[str, list[float | None]]:
    """Each repeat's compared figures (analysis/compare.py): throughput, IOPS, the CPU it
    compares (the database's own where counted), response time, each read latency."""
    figures: dict[str, list[float | None]] = {
        "tps": [p.tps for p in points],
        "iops": [p.iops for p in points],
        "cpu_pct": [server_cpu(p.cpu)[0] for p in points],
        "response_ms": [p.txn_lat_ms.mean if p.txn_lat_ms else None for p in points],
    }
    for key in ("total_elapsed_s", "queries_per_hour", "geomean_s"):  # query points
        if any(key in (p.workload_metrics or {}) for p in points):
            figures[key] = [(p.workload_metrics or {}).get(key) for p in points]
    if any(p.load.kind == "streams" for p in points):
        figures["read_mbps"] = [p.read_mbps for p in points]
    for stat in ("mean", "p50", "p95", "p99", "p999"):
        figures[f"read_lat_{stat}_ms"] = [
            getattr(p.read_lat_ms, stat) if p.read_lat_ms else None for p in points
        ]
    return figures
