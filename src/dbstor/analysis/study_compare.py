"""A study's comparisons: the runs of each workload compared among themselves (fio's
targets with fio's, a database's with the same database workload's), and a line for each
run that had nothing to compare with.

One function for `dbstor study` (which writes comparison.json) and `dbstor report` (which
renders a study folder again), so a re-render shows the comparison the study wrote.
comparison.json keeps its shape: the first workload run on several targets is the
comparison itself; the others are under "others", and the lines under "not_compared".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.compare import compare_runs
from dbstor.analysis.dss_compare import is_query_run
from dbstor.analysis.labels import run_label
from dbstor.analysis.mix import mix_comparison
from dbstor.results.model import Run


def workload_of(run: Run) -> str:
    """The workload a run ran ('io-oltp', 'brokerage')."""
    return str((run.workload or {}).get("name"))


def study_comparison(runs: Sequence[Run], baseline: str | None) -> dict[str, Any] | None:
    """The study's comparisons, or None for a single run. Several runs of which no two
    share a workload are compared as one set that says why they are not comparable, marked
    `shares_no_workload`: the document and the terminal then say they were not compared."""
    mix = mix_comparison(runs)  # [mix]: its runs set beside each workload alone, apart
    if mix is not None:
        alone = [run for run in runs if run.together is None]
        return (study_comparison(alone, baseline) or {}) | {"mix": mix}
    if len(runs) < 2:
        return None
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(workload_of(run), []).append(run)
    compared = [group for group in groups.values() if len(group) > 1]
    if not compared:
        if len({is_query_run(run) for run in runs}) > 1:
            return None  # query streams and transactions of different workloads: nothing
        return {**compare_runs(runs, baseline), "shares_no_workload": True}
    first, *rest = compared
    comparison = compare_runs(first, baseline)
    comparison["others"] = [compare_runs(group, baseline) for group in rest]
    alone = [group[0] for group in groups.values() if len(group) == 1]
    comparison["not_compared"] = [_alone_line(run, runs) for run in alone]
    return comparison


def _alone_line(run: Run, runs: Sequence[Run]) -> str:
    """'SQLite brokerage on FC was compared with no other run: no other run ran brokerage.'"""
    label = run_label(run, list(runs))
    return (
        f"{label} was compared with no other run: no other run of the study ran "
        f"{workload_of(run)}, and runs of different workloads are not compared."
    )
