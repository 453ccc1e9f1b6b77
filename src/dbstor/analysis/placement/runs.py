"""Tier latencies taken from dbstor runs: the mean read latency of one load point.

The point is the knee (the highest load within the SLO) when the run has one, else the
lowest load point: the latency an object sees on that tier under a moderate load. Only a
point a document would stand on prices a move (analysis/trust.py: not from memory, steady,
not a shared device): a refused knee gives way to the highest trusted point within it, and
a run with no trusted point gives no latency, and says why. The figure is rounded once,
here, to three significant digits, so every page that prints it prints the same number.
"""

from __future__ import annotations

from pathlib import Path

from dbstor.analysis.trust import untrustworthy
from dbstor.errors import UserError
from dbstor.results.model import Point, Run
from dbstor.results.store import read_run_folder


class UntrustedTier(UserError):
    """A run that has no load point to take a tier's latency from (`flag`: --fast-run or
    --slow-run): a study ranks its objects all the same and says the move is not priced."""

    def __init__(self, message: str, flag: str, reasons: str):
        super().__init__(message)
        self.flag, self.reasons = flag, reasons


def latency_figure(ms: float) -> float:
    """A latency as every page prints it: three significant digits (0.724834 -> 0.725)."""
    return float(f"{ms:.3g}")


def tier_latency_ms(folder: Path, flag: str) -> tuple[float, str]:
    """-> (mean read latency in ms, a description of where it came from)."""
    run = read_run_folder(folder, flag)
    points = [
        p
        for p in run.points
        if p.ok
        and getattr(p, "series", "main") == "main"
        and p.load is not None
        and p.read_lat_ms is not None
        and p.read_lat_ms.mean is not None
    ]
    if not points:
        raise UserError(
            f"{flag} {folder}: no finished load point with a mean read latency; "
            "give a run that measured reads, or the latency itself"
        )
    trusted = [p for p in points if _stands(p) is None]
    if not trusted:
        why = "; ".join(
            f"{p.load.kind} {p.load.value:g}: {_stands(p)}"
            for p in sorted(points, key=lambda p: p.load.value)
        )
        raise UntrustedTier(
            f"{flag} {folder}: no load point to take the tier's latency from ({why}); "
            "give the latency itself, or a run whose points stand",
            flag,
            why,
        )
    point, which = _knee_or_lowest(run, trusted, refused=len(trusted) < len(points))
    mean = latency_figure(float(point.read_lat_ms.mean))  # type: ignore[union-attr]
    where = f"mean read latency at the {which} ({point.load.kind} {point.load.value:g}) of run {run.run_id}"
    return mean, where


def _knee_or_lowest(run: Run, points: list[Point], refused: bool) -> tuple[Point, str]:
    knee = (run.knee or {}).get("load")
    if isinstance(knee, int | float):
        below = [p for p in points if p.load.value <= knee]
        if below:
            best = max(below, key=lambda p: p.load.value)
            if best.load.value == knee and (run.knee or {}).get("beyond_last"):
                return best, "highest load, every point within the SLO"  # not a knee
            if best.load.value == knee:
                return best, "knee"
            return best, (
                "highest trusted point within the knee" if refused else "last point within the knee"
            )
    lowest = min(points, key=lambda p: p.load.value)
    return lowest, "lowest trusted load point" if refused else "lowest-load point"


def _stands(point: Point) -> str | None:
    """Why a point cannot price a move (the document states no knee from a drifting point,
    report/document/summary.py), or None: untrustworthy, or not steady."""
    why = untrustworthy(point)
    if why is None and point.trust.steady is False:
        return "it was not steady (throughput still drifting)"
    return why
