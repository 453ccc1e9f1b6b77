"""Which figures of a comparison may be composed into factors, and why not.

A factor rests on the curve points at the load it was taken at (the point there, or the
two it is interpolated between). It is withheld when any of them is untrustworthy
(analysis/trust.py: from memory, not steady, a shared device) on either side; the CPU
factor also when the host's CPU was saturated; any factor whose figure was not measured
on one side (a target with no block device has no device IOPS) says so instead of
reading x0.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from dbstor.analysis.compare_words import load_words
from dbstor.analysis.curve import curve_points
from dbstor.analysis.trust import cpu_untrustworthy, untrustworthy
from dbstor.results.model import Point, Run

ALL = ("throughput", "iops", "tps", "read_lat_ms", "cpu_pct", "response_ms")


def points_at(run: Run, load: float | None) -> list[Point]:
    """The curve points a figure at this load rests on: the one measured at it, else the
    two around it."""
    if load is None:
        return []
    curve = curve_points(run.points)
    exact = [p for p in curve if p.load.value == load]
    if exact:
        return exact
    for low, high in itertools.pairwise(curve):
        if low.load.value <= load <= high.load.value:
            return [low, high]
    return []


def first_reason(
    label: str, points: list[Point], test: Callable[[Point], str | None], database: bool
) -> str | None:
    """'FAST's point at 4 users: its reads came from memory, not the storage', or None."""
    for point in points:
        reason = test(point)
        if reason:
            where = load_words(point.load.kind, point.load.value, database)
            return f"{label}'s point at {where}: {reason}"
    return None


def missing_reason(
    run: Run, label: str, key: str, load: float | None = None, database: bool = False
) -> str:
    """Why a figure is absent on a run: a database's device figures with no block device
    under its target, a load outside the loads the run measured, or not measured."""
    notes = " ".join(str(n) for n in run.notes or [])
    device_figure = (
        key in ("iops", "read_lat_ms") and str((run.engine or {}).get("name") or "fio") != "fio"
    )
    if device_figure and "no block device" in notes:
        return f"not measured on {label}: no block device under its target"
    curve = curve_points(run.points)
    if load is not None and curve and not curve[0].load.value <= load <= curve[-1].load.value:
        kind = curve[0].load.kind
        low = load_words(kind, curve[0].load.value, database)
        high = load_words(kind, curve[-1].load.value, database)
        span = low if low == high else f"{low} to {high}"
        return f"{label} was measured only at {span}"
    return f"not measured on {label}"


def withheld(
    pairs: list[tuple[Run, str, list[Point]]],
    values: dict[str, float | None],
    base: dict[str, float | None],
    database: bool,
    load: float | None = None,
    load_all: bool = False,
) -> dict[str, str]:
    """Figure -> why its factor is not computed. `pairs` are (run, label, points its
    figures rest on) for the run and for the baseline; `load` is where a figure missing
    on one side was looked for (the read latency's load)."""
    out: dict[str, str] = {}
    for _run, label, points in pairs:
        whole = first_reason(label, points, untrustworthy, database)
        if whole:
            return dict.fromkeys(ALL, whole)
        cpu = first_reason(label, points, _cpu_only, database)
        if cpu and "cpu_pct" not in out:
            out["cpu_pct"] = cpu
    for key in ALL:
        if key in out or (values.get(key) is None) == (base.get(key) is None):
            continue
        absent = pairs[0] if values.get(key) is None else pairs[1]
        at = load if key == "read_lat_ms" or load_all else None
        out[key] = missing_reason(absent[0], absent[1], key, at, database)
    return out


def apply(normalised: dict[str, float | None], held: dict[str, str]) -> dict[str, float | None]:
    """The normalised values with every withheld figure set to None (null)."""
    return {k: (None if k in held else v) for k, v in normalised.items()}


def summary_reason(held: dict[str, str]) -> str | None:
    """One reason when every figure is withheld for the same reason (the whole factor)."""
    reasons = {held.get(k) for k in ALL}
    return next(iter(reasons)) if len(reasons) == 1 and None not in reasons else None


def load_kinds(runs: list[Run], labels: list[str]) -> str | None:
    """Why there is no 'same load' between the runs (their loads differ in kind), or None."""
    kinds = [sorted({p.load.kind for p in curve_points(r.points)}) for r in runs]
    if len({tuple(k) for k in kinds if k}) <= 1:
        return None
    each = ", ".join(
        f"{label}: {'/'.join(k) or 'none'}" for label, k in zip(labels, kinds, strict=True)
    )
    return (
        f"the runs step through different kinds of load ({each}): no load is the same on "
        "both, so only each run's own knee or peak is compared"
    )


def per_disk_reason(held: dict[str, str]) -> str | None:
    """Why a per-disk efficiency cannot be computed from this run's throughput factor."""
    return held.get("throughput")


def _cpu_only(point: Point) -> str | None:
    """The CPU's own reason (a saturated host), when the point as a whole is trustworthy."""
    return None if untrustworthy(point) else cpu_untrustworthy(point)
