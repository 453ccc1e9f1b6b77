"""One row per run or study under a results folder, for the index: what the run was
(target, engine, workload, load kind, tags, host, date, status), its headline figures
(peak, knee, latency at a fixed load, the spread of its repeats) and the key that says
which runs are the same measurement made again (for trends and `dbstor check`).

A folder that cannot be read becomes a row with the reason, never a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dbstor.analysis.curve import curve_points, find_knee, slo_value
from dbstor.analysis.dss_compare import is_query_run
from dbstor.analysis.layers import device_points
from dbstor.analysis.trust import spread_pct
from dbstor.errors import UserError
from dbstor.results.model import Point, Run
from dbstor.results.store import REPORT_FILE, RESULTS_FILE, read_run_folder, read_study_index

STUDY_FILE = "study.json"


def stamp(path: Path) -> list[int] | None:
    """What says a file changed: its size and modification time (None: gone, or a link)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    return [info.st_mtime_ns, info.st_size]


def folders(root: Path) -> Iterator[tuple[Path, str]]:
    """(folder, "run" | "study") under root, never through a link; a run folder's own
    subfolders are not searched."""
    for here, dirs, files in os.walk(root, followlinks=False):
        path = Path(here)
        if RESULTS_FILE in files:
            dirs.clear()
            yield path, "run"
            continue
        if STUDY_FILE in files:
            yield path, "study"
        dirs[:] = sorted(d for d in dirs if not (path / d).is_symlink() and not d.startswith("."))


def latency_metric(run: Run) -> str:
    """The p99 a trend follows: the run's SLO metric when it is a p99, else the read p99
    (fio) or the transaction p99 (databases)."""
    metric = str(run.slo.get("metric") or "")
    if "_p99_" in metric:
        return metric
    return "txn_lat_p99_ms" if any(p.tps is not None for p in run.points) else "read_lat_p99_ms"


def fixed_load(points: list[Point]) -> Point | None:
    """The point a run's latency is followed at: the middle of its load series, so that
    every run of the same series is read at the same load."""
    return points[(len(points) - 1) // 2] if points else None


def load_series(run: Run) -> tuple[str, str]:
    """The load kind and the series as text ("auto" for a run that searched for its peak)."""
    points = curve_points(run.points)
    kinds = sorted({p.load.kind for p in points}) or ["none"]
    if any(p.series == "discovery" for p in run.points):
        return kinds[0], "auto"
    return kinds[0], ",".join(f"{p.load.value:g}" for p in points)


def comparison_key(run: Run) -> str:
    """Runs with the same key are the same measurement made again: the same target,
    profile or workload (and scale), load series and engine, alone or in the same mix."""
    kind, series = load_series(run)
    workload = run.workload.get("name")
    scale = run.workload.get("scale")
    what = f"{workload}@{scale:g}" if isinstance(scale, int | float) else str(workload)
    parts = [str(run.target.get("label")), what, f"{kind} {series}", str(run.engine.get("name"))]
    if run.together:  # a [mix] member is another measurement than the workload alone
        others = sorted(str(n) for n in run.together.get("workloads") or [] if n != workload)
        parts.append(f"together with {'+'.join(others)}")
    return " | ".join(parts)


def run_knee(run: Run) -> dict[str, Any]:
    """The run's knee as the analysis defines it today, from its points (an older folder's
    stored knee may have been interpolated where the curve ran backwards); {} for none."""
    slo = run.slo or {}
    if is_query_run(run) or not slo.get("limit_ms") or not slo.get("metric"):
        return run.knee or {}
    points, _ = device_points(run.points)
    return find_knee(points, str(slo["metric"]), float(slo["limit_ms"])) or {}


def headline(run: Run) -> dict[str, Any]:
    """The figures a trend and a gate follow, each None with no point behind it."""
    unit = "queries/s" if is_query_run(run) else None
    peak, knee = run.peak or {}, run_knee(run)
    uses_tps = any(p.tps is not None for p in run.points)
    unit = unit or ("TPS" if uses_tps else "IOPS")
    figure = "tps" if uses_tps else "iops"
    knee_value = knee.get(figure) if knee.get("within_slo", True) else None
    points = curve_points(run.points)
    at = fixed_load(points)
    metric = latency_metric(run)
    return {
        "unit": unit,
        "peak": peak.get(figure),
        "peak_load": peak.get("load"),
        "knee": knee_value,
        "knee_load": knee.get("load") if knee_value is not None else None,
        "latency_metric": metric,
        "latency_at_load": None if at is None else slo_value(at, metric),
        "latency_load": None if at is None else at.load.value,
    }


def run_entry(folder: Path, root: Path) -> dict[str, Any]:
    """The index row of one run folder (a row with `error` when it cannot be read)."""
    rel = folder.relative_to(root).as_posix()
    try:
        run = read_run_folder(folder)
    except UserError as exc:
        return {
            "kind": "unreadable",
            "folder": rel,
            "error": str(exc),
            "stamp": stamp(folder / RESULTS_FILE),
        }
    kind, series = load_series(run)
    return {
        "kind": "run",
        "id": run.run_id,
        "folder": rel,
        "stamp": stamp(folder / RESULTS_FILE),
        "status": run.status,
        "created_at": run.created_at,
        "target": run.target.get("label"),
        "engine": run.engine.get("name"),
        "workload": run.workload.get("name"),
        "load_kind": kind,
        "series": series,
        "tags": dict(run.tags),
        "host": run.host.get("hostname"),
        "key": comparison_key(run),
        "repeats": max((p.repeats for p in run.points), default=1),
        "spread_pct": spread_pct(run),
        "points": sum(p.ok for p in run.points),
        "report": f"{rel}/{REPORT_FILE}" if (folder / REPORT_FILE).is_file() else None,
        **headline(run),
    }


def study_entry(folder: Path, root: Path) -> dict[str, Any]:
    """The index row of a study folder: its name, its runs and its report."""
    rel = folder.relative_to(root).as_posix()
    try:
        ids = read_study_index(folder, STUDY_FILE)
    except UserError as exc:
        return {
            "kind": "unreadable",
            "folder": rel,
            "error": str(exc),
            "stamp": stamp(folder / STUDY_FILE),
        }
    return {
        "kind": "study",
        "folder": rel,
        "stamp": stamp(folder / STUDY_FILE),
        "runs": [f"{rel}/{name}" if rel != "." else name for name in ids],
        # listed runs whose folder holds no results.json (deleted or moved): said, not hidden
        "missing": [name for name in ids if not (folder / name / RESULTS_FILE).is_file()],
        "report": f"{rel}/{REPORT_FILE}" if (folder / REPORT_FILE).is_file() else None,
    }
