"""The load curve: the peak, and the knee (the highest load within the SLO).

The knee is the highest throughput within the limit: a measured point, or one
interpolated linearly (in load and in throughput) between a point within the limit and the
next one beyond it, only where throughput still rises between them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.results.model import Point


def slo_value(point: Point, metric: str) -> float | None:
    """The SLO metric of a point, e.g. 'read_lat_p99_ms' -> point.read_lat_ms.p99."""
    direction, _, stat, _ = metric.split("_")
    stats = getattr(point, f"{direction}_lat_ms", None)
    return None if stats is None else getattr(stats, stat, None)


def throughput(point: Point) -> float | None:
    """What the curve's y-axis grows with: transactions when there are any, else IOPS;
    None when neither was measured."""
    return point.tps if point.tps is not None else point.iops


def curve_points(points: Sequence[Point]) -> list[Point]:
    """The finished points of the main series, in rising load (or rate) order."""
    main = [p for p in points if p.ok and p.series == "main"]
    return sorted(main, key=lambda p: p.load.value)


def find_peak(points: Sequence[Point]) -> dict[str, Any] | None:
    """The finished point with the most throughput, auto mode's search points included."""
    finished = [p for p in points if p.ok and throughput(p) is not None]
    if not finished:
        return None
    best = max(finished, key=lambda p: throughput(p) or 0.0)
    return {
        "load": best.load.value,
        "kind": best.load.kind,
        "iops": best.iops,
        "tps": best.tps,
    }


def find_knee(points: Sequence[Point], metric: str, limit_ms: float) -> dict[str, Any] | None:
    """The highest throughput whose SLO metric stays within limit_ms: the best measured
    point within the limit, or a point interpolated where the curve crosses the limit
    while its throughput still rises (never on a segment that runs backwards).

    None when no point has the metric. within_slo is False when no point is within the
    limit; beyond_last is True when every point is within it (the knee lies beyond the
    highest load measured).
    """
    measured = [(p, slo_value(p, metric)) for p in curve_points(points)]
    measured = [(p, v) for p, v in measured if v is not None]
    if not measured:
        return None
    if all(value > limit_ms for _, value in measured):
        return {
            "load": None,
            "kind": measured[0][0].load.kind,
            "iops": None,
            "tps": None,
            "latency_ms": None,
            "within_slo": False,
            "interpolated": False,
            "beyond_last": False,
        }
    beyond_last = all(value <= limit_ms for _, value in measured)
    candidates = [
        _knee(p, p, 0.0, value, interpolated=False, beyond_last=beyond_last)
        for p, value in measured
        if value <= limit_ms
    ]
    for (low, low_value), (high, high_value) in itertools.pairwise(measured):
        if low_value <= limit_ms < high_value and _rises(low, high):
            frac = (limit_ms - low_value) / (high_value - low_value)
            candidates.append(
                _knee(low, high, frac, limit_ms, interpolated=True, beyond_last=False)
            )
    return max(candidates, key=_knee_rank)


def _rises(low: Point, high: Point) -> bool:
    """Whether throughput grows from one load point to the next (both measured)."""
    before, after = throughput(low), throughput(high)
    return before is not None and after is not None and after > before


def _knee_rank(knee: dict[str, Any]) -> tuple[float, float]:
    """Highest throughput first; among equals (or none measured), the highest load."""
    value = knee["tps"] if knee["tps"] is not None else knee["iops"]
    return (float("-inf") if value is None else value, knee["load"] or 0.0)


def _lerp(a: float | None, b: float | None, frac: float) -> float | None:
    if a is None or b is None:
        return None
    return a + frac * (b - a)


def _knee(
    low: Point, high: Point, frac: float, latency: float, *, interpolated: bool, beyond_last: bool
) -> dict[str, Any]:
    low_x = low.load.value
    high_x = high.load.value
    return {
        "load": _lerp(low_x, high_x, frac),
        "kind": low.load.kind,
        "iops": _lerp(low.iops, high.iops, frac),
        "tps": _lerp(low.tps, high.tps, frac),
        "latency_ms": latency,
        "within_slo": True,
        "interpolated": interpolated,
        "beyond_last": beyond_last,
    }


def value_at_knee(points: Sequence[Point], knee: dict[str, Any], getter: Any) -> float | None:
    """Interpolate any per-point value (CPU, latency...) at the knee's load."""
    if not knee or knee.get("load") is None:
        return None
    curve = [p for p in curve_points(points) if getter(p) is not None]
    x = knee["load"]
    for low, high in itertools.pairwise(curve):
        low_x, high_x = low.load.value, high.load.value
        if low_x <= x <= high_x:
            frac = 0.0 if high_x == low_x else (x - low_x) / (high_x - low_x)
            return _lerp(getter(low), getter(high), frac)
    for p in curve:
        if p.load.value == x:
            return getter(p)
    return None


BACKWARD_SHARE = 0.05  # a fall of more than 5% from one load to the next is a step back


def measured_throughput(point: Point) -> float | None:
    """TPS, else IOPS; None when neither was measured (never 0 for a missing figure)."""
    if point.tps is None and point.read_iops is None and point.write_iops is None:
        return None
    return throughput(point)


def backward_steps(
    points: Sequence[Point],
    value: Callable[[Point], float | None] = measured_throughput,
    share: float = BACKWARD_SHARE,
) -> list[tuple[Point, Point]]:
    """Where the curve goes backwards: each pair of neighbouring load points (in rising
    load, points without the value left out) whose value falls by more than `share` as
    the load rises, e.g. QD1 7.5K -> QD2 6.2K IOPS."""
    measured = [p for p in curve_points(points) if value(p) is not None]
    steps = []
    for low, high in itertools.pairwise(measured):
        before, after = value(low), value(high)
        if before is not None and after is not None and after < before * (1 - share):
            steps.append((low, high))
    return steps
