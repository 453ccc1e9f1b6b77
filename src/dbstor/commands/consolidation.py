"""A study's cost case from its database runs, and its [consolidation] verify run.

The cost case's CPU is the database server's: the comparison it reads is that of the
database runs (a study with fio profiles too compares its fio runs first, and fio's CPU is
the load generator's, not a server's). With [consolidation], the workload is re-run on
the new storage at the consolidated density (analysis/tco/verify.py) after the cost case
is computed; the verify run's folder sits in the study folder beside the others, and the
result goes into analyses.json as "consolidation".
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from dbstor.analysis.compare import compare_runs
from dbstor.analysis.tco.headroom import headroom
from dbstor.analysis.tco.verify import consolidated_load, verify_result
from dbstor.errors import UserError
from dbstor.results.model import Point, Run
from dbstor.runs.progress import Progress
from dbstor.runs.study import StudyOutcome, run_study
from dbstor.study.consolidation import verify_database
from dbstor.study.model import Study
from dbstor.testfiles import Safety

# compare.py's same-load cpu_pct is the database's own CPU where counted, else the host's:
# its cpu_from says whose (cpu_own_pct is an older comparison's key for the server's own).
CPU_KEYS = (("cpu_own_pct", "the database server's own CPU"), ("cpu_pct", "host-wide CPU"))
FIO_ONLY_NOTE = (
    "no database ran in this study: the CPU is the host's under fio (the load generator's), "
    "not a database server's; add a [[databases]] for a server's CPU"
)


def is_fio(run: Run) -> bool:
    return str((run.engine or {}).get("name") or "fio") == "fio"


def cost_comparison(
    runs: list[Run], baseline: str | None, study_comparison: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, str | None, list[Run]]:
    """(The comparison a cost case takes its CPU from, a note on it, its runs): the first
    database workload run on several targets; the study's own comparison when it ran fio
    only."""
    if all(is_fio(r) for r in runs):
        return study_comparison, FIO_ONLY_NOTE, list(runs)
    groups: dict[str, list[Run]] = {}
    for run in runs:
        if not is_fio(run):
            groups.setdefault(str(run.workload.get("name")), []).append(run)
    for group in groups.values():
        if len(group) > 1:
            return compare_runs(group, baseline), None, group
    return None, None, []


def cost_headroom(runs: list[Run], baseline: str, after: str) -> dict[str, Any]:
    """The after target's peak over the baseline's knee, in the runs the cost case read."""
    base = next((r for r in runs if _label(r) == baseline), None)
    new = next((r for r in runs if _label(r) == after), None)
    if base is None or new is None:
        return {"missing": f"no run of {baseline} and {after} of the same workload"}
    return headroom(base, new, baseline, after)


def _label(run: Run) -> str:
    return str(run.target.get("label"))


def _point_at(run: Run | None, kind: str, value: float) -> Point | None:
    if run is None:
        return None
    return next((p for p in run.points if p.load.kind == kind and p.load.value == value), None)


def _before_point(run: Run, comparison: dict[str, Any] | None) -> Point | None:
    """The baseline's point at the load the cost case read (the comparison's same load),
    else its highest finished load."""
    load = ((comparison or {}).get("same_load") or {}).get("load") or {}
    point = _point_at(run, str(load.get("kind")), load.get("value", float("nan")))
    if point is not None and point.ok:
        return point
    finished = [p for p in run.points if p.ok and p.series == "main"]
    return max(finished, key=lambda p: p.load.value) if finished else None


def verify_consolidation(
    study: Study,
    outcome: StudyOutcome,
    before_servers: int,
    cost_case: dict[str, Any],
    comparison: dict[str, Any] | None,
    safety: Safety,
    progress: Progress,
) -> dict[str, Any]:
    """Run the consolidated point on the new storage; the result, or {"missing": why}."""
    plan = study.consolidation
    spec = verify_database(study.databases)
    assert plan is not None and spec is not None  # study/consolidation.py checked both
    table = study.analyses.get("tco") or {}
    baseline = study.baseline or study.targets[0].label
    after_label = plan.target or table.get("after")
    after_label = after_label or next(t.label for t in study.targets if t.label != baseline)
    after_servers = plan.servers_after or (cost_case.get("servers") or {}).get("after")
    if after_servers is None:
        why = cost_case.get("missing") or "it has no servers after"
        return {"missing": f"the cost case gives no servers after: {why}; "
                "give consolidation.servers_after to verify a count of your own"}  # fmt: skip
    if after_servers >= before_servers:
        return {"missing": f"the cost case keeps {after_servers} of {before_servers} servers: "
                "no consolidation to verify"}  # fmt: skip
    runs = [r for r in outcome.runs if str(r.workload.get("name")) == spec.workload]
    base_run = next((r for r in runs if _label(r) == baseline and not is_fio(r)), None)
    before = _before_point(base_run, comparison) if base_run else None
    if base_run is None or before is None:
        return {"missing": f"the baseline {baseline} has no finished {spec.workload} point"}
    load = consolidated_load(before.load.value, before_servers, after_servers)
    target = next(t for t in study.targets if t.label == after_label)
    series = replace(spec.series, values=(load,))
    verify = replace(
        study,
        name=f"{study.name}: consolidation verified on {after_label}",
        targets=(target,),
        profiles=(),
        databases=(replace(spec, series=series),),
        analyses={},
        consolidation=None,
        duration_s=plan.duration_s or study.duration_s,
    )
    progress.say(
        f"consolidation: {before_servers} -> {after_servers} servers: {after_label} at "
        f"{series.label(load)} (the baseline's {series.label(before.load.value)} x "
        f"{before_servers}/{after_servers})"
    )
    try:
        done = run_study(verify, outcome.folder, safety, progress)
    except UserError as exc:
        return {"missing": f"the verify run was refused: {exc}"}
    run = done.runs[0]
    after_run = next((r for r in runs if _label(r) == after_label and not is_fio(r)), None)
    same = _point_at(after_run, before.load.kind, before.load.value)
    point = _point_at(run, series.kind, load)
    if point is None:
        return {"missing": f"the verify run {run.run_id} measured no point ({run.status})"}
    result = verify_result(
        (before_servers, after_servers),
        (before, baseline, base_run.run_id),
        (same, after_label, after_run.run_id if after_run else ""),
        (point, after_label, run.run_id),
    )
    result["folder"] = str(Path(done.folder).name)
    return result


def cpu_at_same_load(
    comparison: dict[str, Any] | None, before: str, after: str
) -> tuple[float, float, str] | str:
    """(CPU % before, CPU % after, where from) at the baseline's knee load of the
    comparison, or why there is none."""
    same = (comparison or {}).get("same_load")
    if not same:
        return "the runs have no comparison at the baseline's knee load to take CPU from"
    values = {e["label"]: e.get("values") or {} for e in same.get("runs", [])}
    held = {e["label"]: e.get("withheld") or {} for e in same.get("runs", [])}
    basis = str(same.get("basis") or "the baseline's knee load")  # its peak when no knee
    for label in (before, after):
        reason = held.get(label, {}).get("cpu_pct")
        if reason:  # the comparison would not rest a CPU factor on it: nor does a cost case
            return f"the CPU at {basis} cannot carry a cost case: {reason}"
    for key, what in CPU_KEYS:
        b, a = values.get(before, {}).get(key), values.get(after, {}).get(key)
        if b is not None and a is not None:
            whose = (comparison or {}).get("cpu_from")  # compare.py's words: whose cpu_pct is
            if key == "cpu_pct" and whose and whose != "the whole host":
                what = f"the CPU of {whose}"
            load = same.get("load") or {}
            at = same.get("load_words") or f"{load.get('kind') or 'load'} {load.get('value', 0):g}"
            return (
                float(b),
                float(a),
                f"{what} measured by the runs at {same.get('basis', 'the same load')} "
                f"({at}): {before} {b:.1f}%, {after} {a:.1f}%",
            )
    return f"the runs of {before} and {after} recorded no CPU at {basis}"


def cpu_interval(
    comparison: dict[str, Any] | None, before: str, after: str
) -> tuple[float, float] | None:
    """The interval of the CPU factor after/before at the baseline's knee load, as
    multipliers of the factor (analysis/tco/uncertainty.py); None when the comparison has
    none (old comparisons, CPU without a recorded spread)."""
    same = (comparison or {}).get("same_load") or {}
    entries = {e["label"]: e for e in same.get("runs", [])}
    entry = entries.get(after) or {}
    bounds = (entry.get("intervals") or {}).get("cpu_pct")
    b = ((entries.get(before) or {}).get("values") or {}).get("cpu_pct")
    a = (entry.get("values") or {}).get("cpu_pct")
    if not isinstance(bounds, list) or len(bounds) != 2 or not b or not a:
        return None
    factor = a / b
    return (bounds[0] / factor, bounds[1] / factor)
