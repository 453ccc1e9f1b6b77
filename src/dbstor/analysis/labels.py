"""How a comparison names its runs and finds its baseline: shared by the comparison of
load curves (compare.py) and of query runs (dss_compare.py)."""

from __future__ import annotations

from collections.abc import Sequence

from dbstor.results.model import Run


def run_label(run: Run, runs: Sequence[Run]) -> str:
    """The target label, plus the workload when the runs differ in workload."""
    label = str(run.target.get("label", run.run_id))
    workloads = {r.workload.get("name") for r in runs}
    labels = [str(r.target.get("label")) for r in runs]
    if len(workloads) > 1 or labels.count(label) > 1:
        return f"{label} {run.workload.get('name')}"
    return label


def baseline_index(runs: Sequence[Run], labels: Sequence[str], baseline: str | None) -> int:
    """Which run is the baseline: the first whose label, run id or target label is
    `baseline`; the first run when none is (or none was asked for)."""
    if baseline is None:
        return 0
    matches = [
        i
        for i, r in enumerate(runs)
        if baseline in (labels[i], r.run_id, (r.target or {}).get("label"))
    ]
    return matches[0] if matches else 0
