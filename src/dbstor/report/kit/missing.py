"""Why a point's figure is missing, in words a chart can show ("not measured: why").

A point may carry its own reason (a trust note); otherwise the reason follows from what
the point recorded: no block device under the target, or too few operations behind a
percentile (analysis/histogram.py withholds a p99 below 1,000 operations).
"""

from __future__ import annotations

from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999
from dbstor.report.kit.fmt import fmt_int, load_text
from dbstor.results.model import LatencyStats, Point

NO_DEVICE = "no block device under the target"
MINIMUM = {"p99": MIN_OPS_P99, "p999": MIN_OPS_P999}
NAMES = {"p99": "p99", "p999": "p99.9"}


def device_missing(point: Point) -> str | None:
    """Why the device's figures are missing at this point, or None when it has them (or
    failed: a failed point says so on its own)."""
    if not point.ok or point.device is not None:
        return None
    return NO_DEVICE


def percentile_missing(point: Point, side: str, stat: str = "p99") -> str | None:
    """Why a percentile of `side` ("read", "write", "txn") is missing, or None when it is
    there: the point's own note when it has one, else the operations it rests on."""
    stats = getattr(point, f"{side}_lat_ms", None) if point.ok else None
    if not point.ok or (stats is not None and getattr(stats, stat, None) is not None):
        return None
    name = NAMES.get(stat, stat)
    for note in point.trust.notes or []:
        if name in str(note) and ("few" in str(note) or "withheld" in str(note)):
            return str(note)
    what = "transactions" if side == "txn" else f"{side}s"
    if stats is None or not stats.count:
        return f"no {what} measured"
    need = MINIMUM.get(stat)
    if need and stats.count < need:
        return f"{fmt_int(stats.count)} {what}, fewer than the {fmt_int(need)} a {name} needs"
    return f"no {name} recorded"


def count_missing(stats: LatencyStats | None, what: str, stat: str = "p99") -> str | None:
    """Why a percentile of these stats is missing ('312 transactions of this type, fewer
    than the 1,000 a p99 needs'), or None when it is there or there are no stats."""
    if stats is None or getattr(stats, stat, None) is not None:
        return None
    need = MINIMUM.get(stat)
    if need and stats.count < need:
        what = what.replace("transactions", "transaction", 1) if stats.count == 1 else what
        return (
            f"{fmt_int(stats.count)} {what}, fewer than the {fmt_int(need)} a {NAMES[stat]} needs"
        )
    return None


def withheld_everywhere(points: list[Point], side: str, stat: str = "p99") -> str | None:
    """Why no finished point has the percentile ("a p99 needs 1,000 transactions in a load
    point and the most any point had was 312 (at 4 users); longer points (--duration)
    give one"); None when some point has it."""
    finished = [p for p in points if p.ok]
    reasons = [percentile_missing(p, side, stat) for p in finished]
    if not finished or any(r is None for r in reasons):
        return None
    name = NAMES.get(stat, stat)
    counts = [(s.count, p) for p in finished if (s := getattr(p, f"{side}_lat_ms", None))]
    need = MINIMUM.get(stat)
    if counts and need and max(c for c, _ in counts) < need:
        most, point = max(counts, key=lambda c: c[0])
        where = load_text(point.load.kind, point.load.value, point.load.jobs, compact=False)
        what = "transactions" if side == "txn" else f"{side}s"
        return (
            f"a {name} needs {fmt_int(need)} {what} in a load point and the most any point "
            f"had was {fmt_int(most)} (at {where}); longer points (--duration) give one"
        )
    return str(reasons[0])
