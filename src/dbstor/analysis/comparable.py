"""Whether runs can be set side by side, and what differs between them (workload, scale,
data written, durations, SLOs, load points, the systems under them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.curve import curve_points
from dbstor.analysis.system_diff import system_differences
from dbstor.errors import UserError
from dbstor.results.model import Run


def refuse_a_run_twice(runs: Sequence[Run]) -> None:
    """The same run given twice would be compared with itself (every factor x1.00)."""
    seen: dict[str, int] = {}
    for number, run in enumerate(runs, start=1):
        if run.run_id in seen:
            raise UserError(
                f"run {run.run_id} is given twice (runs {seen[run.run_id]} and {number}): "
                "a run compared with itself says nothing; give each run once"
            )
        seen[run.run_id] = number


def unfinished_notes(runs: Sequence[Run]) -> list[str]:
    """A run still running (or stopped early) is compared on the points it has so far."""
    notes = []
    for run in runs:
        done = sum(1 for p in run.points if p.ok)
        if run.status == "running":
            notes.append(
                f"{run.run_id} is still running ({done} point(s) so far): its figures can "
                "change; compare again when it has ended"
            )
        elif run.status == "interrupted":
            notes.append(
                f"{run.run_id} was interrupted ({done} point(s) finished): it is compared on those"
            )
    return notes


def comparability_warnings(runs: Sequence[Run]) -> tuple[bool, list[str]]:
    """Whether the runs can be set side by side, and what differs between them."""
    warnings = []
    comparable = True

    def distinct(getter: Any) -> list[Any]:
        seen = []
        for r in runs:
            value = getter(r)
            if value not in seen:
                seen.append(value)
        return seen

    workloads = distinct(lambda r: r.workload.get("name"))
    if len(workloads) > 1:
        comparable = False
        warnings.append(
            f"different workloads ({', '.join(map(str, workloads))}): figures are not like for like"
        )
    checks = (
        ("scale", lambda r: r.workload.get("scale")),
        ("data written (--data)", _data_written),
        ("test file sizes", lambda r: r.workload.get("file_size_bytes")),
        ("durations per point", lambda r: r.study.get("duration_s")),
        ("SLOs", lambda r: (r.slo.get("metric"), r.slo.get("limit_ms"))),
        (
            "load points",
            lambda r: sorted((p.load.kind, p.load.value) for p in curve_points(r.points)),
        ),
    )
    for what, getter in checks:
        values = distinct(getter)
        if len(values) > 1:
            warnings.append(f"the runs differ in {what}: compare with care")
    warnings += system_differences(runs)
    return comparable, warnings + unfinished_notes(runs)


def _data_written(run: Run) -> tuple[Any, ...]:
    """What an io run wrote: kind, compression, dedup (runs before --data: incompressible)."""
    data = run.workload.get("data") or {}
    return (
        data.get("kind", "incompressible"),
        data.get("compression", 1.0),
        data.get("dedupe_pct", 0.0),
    )
