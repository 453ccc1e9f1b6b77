"""The interval every throughput factor of a comparison carries, and the flags beside it.

A factor's interval comes from the points it rests on (analysis/interval.py: repeats, or
the measured window's seconds treated as correlated). A factor whose interval includes 1
says nothing the points' own spread could not: it is withheld, with the interval shown.
A point that may carry a factor but was not steady, or shared its device or its host in
part (analysis/trust.py: point_flags), keeps the factor and the flag stands beside it in
words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.compare_words import load_words
from dbstor.analysis.interval import Estimate, estimate_of, factor_interval, wider
from dbstor.analysis.trust import point_flags, untrustworthy
from dbstor.results.model import Point

# the figures a point's own spread covers (read latency: a database run's mean device read
# latency, its per-second await; an io run's read percentile, batch quantiles of fio's
# per-second histograms; response time: its per-second mean; CPU: the host's per-second
# CPU, or for a server's own CPU (counted over the whole window) the throughput's spread
# where that is wider, or the repeats' own figures)
WITH_INTERVAL = ("throughput", "tps", "iops", "read_lat_ms", "cpu_pct", "response_ms")
LATENCIES = ("read_lat_ms",)  # written as a change in %, the others as factors
NARROW = " (no difference beyond the points' own spread; longer points or repeats narrow it)"
ONCE = (
    " (each interval that includes 1 or no change: no difference beyond the points' own"
    " spread; longer points or repeats narrow it)"
)
Interval = tuple[float, float]


def estimates(
    points: Sequence[Point],
    values: dict[str, float | None],
    metric: str = "",
    latency_points: Sequence[Point] | None = None,
) -> dict[str, Any]:
    """Figure -> the least sure Estimate among the points it rests on (None: none); read
    latency (the run's read `metric`) from the points at the load it was read at."""
    out: dict[str, Estimate | None] = {
        key: wider([estimate_of(p, key) for p in points]) for key in ("tps", "iops")
    }
    out["throughput"] = out["tps"] if values.get("tps") is not None else out["iops"]
    out["response_ms"] = wider([estimate_of(p, "response_ms") for p in points])
    out["cpu_pct"] = wider([cpu_estimate(p) for p in points])
    at = points if latency_points is None else latency_points
    out["read_lat_ms"] = wider([estimate_of(p, metric) for p in at]) if metric else None
    return out


def cpu_estimate(point: Point) -> Estimate | None:
    """The Estimate of the CPU figure a factor compares (attribution.server_cpu). A point
    measured once records the host's per-second CPU; where the figure is the server's (or
    the engine's) own CPU, counted over the whole window only, the host's seconds say
    little of it (a host pinned at 100% has almost none), so the wider of that and the
    point's throughput spread (the own CPU follows the work done) stands for it."""
    recorded = estimate_of(point, "cpu_pct")
    if recorded is None or point.repeats > 1 or server_cpu(point.cpu)[1] == "the whole host":
        return recorded
    work = estimate_of(point, "tps") or estimate_of(point, "iops")
    return wider([recorded, work]) if work is not None else recorded


def intervals(
    normalised: dict[str, float | None], run: dict[str, Any], base: dict[str, Any]
) -> dict[str, Interval]:
    """Figure -> (low, high) of its normalised value (baseline = 100), 95%."""
    out = {}
    for key in WITH_INTERVAL:
        value = normalised.get(key)
        bounds = factor_interval(run.get(key), base.get(key))
        if value is not None and bounds is not None:
            out[key] = (value * bounds[0], value * bounds[1])
    return out


def interval_words(low: float, high: float) -> str:
    """'3.8-4.4' from a normalised interval (baseline = 100), three significant digits."""
    return f"{_digits(low / 100)}-{_digits(high / 100)}"


def held_by_interval(
    normalised: dict[str, float | None], bounds: dict[str, Interval]
) -> dict[str, str]:
    """Figure -> why its factor is withheld: its interval includes 1."""
    out = {}
    for key, (low, high) in bounds.items():
        value = normalised.get(key)
        if value is None or not low <= 100.0 <= high:
            continue
        if key in LATENCIES:
            said = (
                f"{value - 100:+.0f}% with an interval of {low - 100:+.0f}% to {high - 100:+.0f}%"
            )
            out[key] = f"{said}, which includes no change{NARROW}"
        else:
            said = f"x{_digits(value / 100)} with an interval of {interval_words(low, high)}"
            out[key] = f"{said}, which includes 1{NARROW}"
    return out


def remark_once(text: str) -> str:
    """A factor line that withholds several figures for their intervals says why once, at
    its end, not after each figure (the summary's headline stays readable)."""
    if text.count(NARROW) < 2:
        return text
    return text.replace(NARROW, "") + ONCE


def as_factors(bounds: dict[str, Interval]) -> dict[str, list[float]]:
    """The intervals as factors for comparison.json: {"tps": [3.8, 4.4]}."""
    return {key: [low / 100, high / 100] for key, (low, high) in bounds.items()}


def flags(rests: Sequence[tuple[Any, str, list[Point]]], database: bool) -> list[str]:
    """ "FLASH's point at 2 instances: not steady" for every point a factor rests on that
    may carry it but is flagged."""
    out: list[str] = []
    for _run, label, points in rests:
        for point in points:
            if untrustworthy(point):
                continue
            found = point_flags(point)
            if found:
                where = load_words(point.load.kind, point.load.value, database)
                line = f"{label}'s point at {where}: {', '.join(found)}"
                if line not in out:
                    out.append(line)
    return out


def flag_text(text: str, found: Sequence[str]) -> str:
    """The factor line with its flags beside it in words."""
    return f"{text} (flagged: {'; '.join(found)})" if found else text


def _digits(value: float) -> str:
    return f"{float(f'{value:.3g}'):g}"
