"""CPU utilisation before and after a storage change, taken from two dbstor runs.

The point compared is the highest load both runs measured (same kind and value: the
same workload on both storages, as TR-4403 and TR-4415 did); when the runs share no
load point, each run's peak point is used and the result says so.
"""

from __future__ import annotations

from pathlib import Path

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.trust import cpu_untrustworthy
from dbstor.errors import UserError
from dbstor.results.model import Point, Run
from dbstor.results.store import read_run_folder


def _cpu_points(run: Run, flag: str, folder: Path) -> list[Point]:
    points = [
        p for p in run.points if p.ok and p.load is not None and server_cpu(p.cpu)[0] is not None
    ]
    if not points:
        raise UserError(
            f"{flag} {folder}: no finished load point with CPU utilisation; "
            "give the utilisation with --cpu-before/--cpu-after"
        )
    return points


def _peak(run: Run, points: list[Point]) -> Point:
    load = (run.peak or {}).get("load")
    for p in points:
        if load is not None and p.load.value == load:
            return p
    return max(points, key=lambda p: (p.tps or 0.0, p.iops or 0.0))


def cpu_from_runs(before: Path, after: Path) -> tuple[float, float, str, tuple[Point, Point]]:
    """-> (CPU % before, CPU % after, how the points were matched, the two points)."""
    run_b, run_a = read_run_folder(before, "--before-run"), read_run_folder(after, "--after-run")
    pts_b = _cpu_points(run_b, "--before-run", before)
    pts_a = _cpu_points(run_a, "--after-run", after)
    loads_b = {(p.load.kind, p.load.value): p for p in pts_b}
    loads_a = {(p.load.kind, p.load.value): p for p in pts_a}
    common = sorted(set(loads_b) & set(loads_a), key=lambda k: k[1])
    if common:
        key = common[-1]
        pb, pa = loads_b[key], loads_a[key]
        how = f"matched load point {key[0]} {key[1]:g} of runs {run_b.run_id} and {run_a.run_id}"
    else:
        pb, pa = _peak(run_b, pts_b), _peak(run_a, pts_a)
        how = (
            f"peak points (no common load): {run_b.run_id} at {pb.load.kind} "
            f"{pb.load.value:g}, {run_a.run_id} at {pa.load.kind} {pa.load.value:g}"
        )
    _refuse(pb, "--before-run", before)
    _refuse(pa, "--after-run", after)
    (cpu_b, whose_b), (cpu_a, whose_a) = server_cpu(pb.cpu), server_cpu(pa.cpu)
    whose = whose_b if whose_b == whose_a else f"{whose_b} before, {whose_a} after"
    return float(cpu_b or 0.0), float(cpu_a or 0.0), f"{how}; CPU of {whose}", (pb, pa)


def _refuse(point: Point, flag: str, folder: Path) -> None:
    """No cost case from a CPU figure that is not the work's demand: a saturated host
    (100% before and after consolidates 10 -> 10), reads from memory, a drifting point."""
    reason = cpu_untrustworthy(point)
    if reason:
        raise UserError(
            f"{flag} {folder}: no cost case from its point at {point.load.kind} "
            f"{point.load.value:g}: {reason}; give --cpu-before/--cpu-after measured "
            "where the CPU has headroom"
        )


def cpu_from_run(folder: Path, flag: str) -> tuple[float, str, Point]:
    """CPU % of one run at its peak point (when only one side is a run), and the point."""
    run = read_run_folder(folder, flag)
    point = _peak(run, _cpu_points(run, flag, folder))
    _refuse(point, flag, folder)
    cpu, whose = server_cpu(point.cpu)
    return (
        float(cpu or 0.0),
        f"peak point of run {run.run_id} ({point.load.kind} {point.load.value:g}); CPU of {whose}",
        point,
    )
