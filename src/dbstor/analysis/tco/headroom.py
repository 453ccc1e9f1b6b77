"""The new storage's headroom beside the cost case: its peak over the baseline's knee
(TR-4403 §2.2: "significant performance capacity remaining on the AFF8080 EX").

The baseline's knee is the most it carries within the latency limit; the new storage's
peak is the most it carried at all. A ratio above 1 is throughput left over once the
old storage's load moved. Stated only from points a claim may rest on
(trust.untrustworthy), with their flags (not steady, shared device, busy host) beside it;
else null with why.
"""

from __future__ import annotations

from typing import Any

from dbstor.analysis.interval import estimate_of, factor_interval, wider
from dbstor.analysis.trust import point_flags, untrustworthy
from dbstor.results.model import Point, Run


def _metric(run: Run) -> str:
    return "tps" if str((run.engine or {}).get("name") or "fio") != "fio" else "iops"


def _bracket(run: Run, load: float) -> list[Point]:
    """The points a knee at this load was read from: the last at or below it and the first
    at or above it (one point when the knee is on a point)."""
    main = sorted((p for p in run.points if p.series == "main"), key=lambda p: p.load.value)
    below = [p for p in main if p.load.value <= load][-1:]
    above = [p for p in main if p.load.value >= load][:1]
    return list({id(p): p for p in below + above}.values())


def headroom(base: Run, new: Run, base_label: str, new_label: str) -> dict[str, Any]:
    """{'ratio', 'interval', 'metric', 'base_knee', 'new_peak', 'sentence'}, or {'missing':
    why}. `interval`: the ratio's 95% interval from the points' own spread (the knee's the
    less sure of the points it lies between), null when a point recorded none."""
    metric = _metric(base)
    knee, peak = base.knee or {}, new.peak or {}
    if knee.get(metric) is None or not knee.get("within_slo", True):
        return {"missing": f"{base_label} has no knee within its latency limit to measure from"}
    if peak.get(metric) is None:
        return {"missing": f"{new_label} has no peak {metric.upper()}"}
    point = next(
        (p for p in new.points if p.ok and p.load.value == peak.get("load")),
        None,
    )
    why = untrustworthy(point) if point is not None else "its peak point is not in the run"
    if why:
        return {"missing": f"{new_label}'s peak cannot carry a headroom line: {why}"}
    flagged = [f"{new_label}'s peak: {', '.join(point_flags(point))}"] if point_flags(point) else []
    new_sure = estimate_of(point, metric)
    for point in _bracket(base, float(knee.get("load") or 0.0)):
        why = untrustworthy(point)
        at = f"{point.load.kind} {point.load.value:g}"
        if why:
            return {"missing": f"{base_label}'s knee rests on its point at {at}: {why}"}
        if point_flags(point):  # not steady, shared device, busy host: said beside it
            flagged.append(f"{base_label}'s point at {at}: {', '.join(point_flags(point))}")
    ratio = float(peak[metric]) / float(knee[metric])
    unit = metric.upper()
    bounds = factor_interval(
        new_sure,
        wider([estimate_of(p, metric) for p in _bracket(base, float(knee.get("load") or 0.0))]),
    )
    interval = [round(ratio * bounds[0], 3), round(ratio * bounds[1], 3)] if bounds else None
    said = f"x{ratio:.3g}" + (f" ({interval[0]:.3g}-{interval[1]:.3g})" if interval else "")
    if interval and interval[0] <= 1.0 <= interval[1]:
        tail = (
            "its interval includes 1: no difference beyond the points' own spread, so neither "
            "headroom nor its absence is stated"
        )
    elif ratio > 1.0:
        tail = f"{ratio - 1:.0%} more than the baseline carries within its limit: headroom left"
    else:
        tail = "no more than the baseline carries within its limit: no headroom left"
    # every load within the limit: the most it carried there, not a knee (none was reached)
    what = "most within its limit" if knee.get("beyond_last") else "knee"
    return {
        "metric": metric,
        "ratio": round(ratio, 3),
        "interval": interval,
        "base_knee": knee[metric],
        "new_peak": peak[metric],
        "sentence": (
            f"{new_label}'s peak of {peak[metric]:,.0f} {unit} is {said} "
            f"{base_label}'s {what} ({knee[metric]:,.0f} {unit}): {tail}"
            + (f" (flagged: {'; '.join(flagged)})." if flagged else ".")
        ),
    }
