"""Tier latencies taken from dbstor runs: the mean read latency of one load point.

The point is the knee (the highest load within the SLO) when the run has one, else the
lowest load point: the latency an object sees on that tier under a moderate load.
"""

from __future__ import annotations

from pathlib import Path

from dbstor.errors import UserError
from dbstor.results.model import Point, Run
from dbstor.results.store import read_run_folder


def tier_latency_ms(folder: Path, flag: str) -> tuple[float, str]:
    """-> (mean read latency in ms, a description of where it came from)."""
    run = read_run_folder(folder, flag)
    points = [
        p
        for p in run.points
        if p.ok
        and p.load is not None
        and p.read_lat_ms is not None
        and p.read_lat_ms.mean is not None
    ]
    if not points:
        raise UserError(
            f"{flag} {folder}: no finished load point with a mean read latency; "
            "give a run that measured reads, or the latency itself"
        )
    point, which = _knee_or_lowest(run, points)
    mean = float(point.read_lat_ms.mean)  # type: ignore[union-attr]
    where = f"mean read latency at the {which} ({point.load.kind} {point.load.value:g}) of run {run.run_id}"
    return mean, where


def _knee_or_lowest(run: Run, points: list[Point]) -> tuple[Point, str]:
    knee = (run.knee or {}).get("load")
    if isinstance(knee, int | float):
        below = [p for p in points if p.load.value <= knee]
        if below:
            best = max(below, key=lambda p: p.load.value)
            return best, "knee" if best.load.value == knee else "last point within the knee"
    return min(points, key=lambda p: p.load.value), "lowest-load point"
