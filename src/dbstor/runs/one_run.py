"""One plan's run loop, made the same way for a run alone and for a member of a [mix]
(runs/mix.py, which builds it in the member's own process): an IoRun, DatabaseRun or
QueryRun with its worker on this host, or one a factory gives (a cluster's)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbstor.results.model import Run
from dbstor.runs.io.plan import IoRunPlan
from dbstor.runs.io.run import IoRun
from dbstor.runs.progress import Progress
from dbstor.runs.telemetry import RunTelemetry
from dbstor.study.model import Target
from dbstor.testfiles import Safety

if TYPE_CHECKING:  # a fio study imports no database machinery (engines, users, workloads)
    from dbstor.runs.database.plan import DbRunPlan
    from dbstor.runs.database.run import DatabaseRun
    from dbstor.runs.queries.run import QueryRun

WorkerFactory = Callable[[Safety, Callable[[str], None], Target], Any]


def plan_words(plan: IoRunPlan | DbRunPlan) -> str:
    """'fio io-log', 'brokerage on postgres': what a plan runs, for the terminal."""
    if isinstance(plan, IoRunPlan):
        return f"fio {plan.profile.name}"
    return f"{plan.database.workload} on {plan.database.engine}"


def build_run(
    plan: IoRunPlan | DbRunPlan,
    folder: Path,
    safety: Safety,
    progress: Progress,
    callback: Callable[[Run], None],
    telemetry: RunTelemetry | None,
    io_worker: WorkerFactory | None,
    db_worker: WorkerFactory | None,
) -> IoRun | DatabaseRun | QueryRun:
    """The run loop of one plan (its worker on this host unless a factory is given)."""
    if isinstance(plan, IoRunPlan):
        worker = io_worker(safety, progress.say, plan.target) if io_worker else None
        return IoRun(
            plan,
            folder,
            safety,
            progress,
            on_point=callback,
            worker=worker,
            telemetry=telemetry,
            while_loading=lambda: import_module("dbstor.report.html"),  # render's imports
        )
    from dbstor.runs.database.run import DatabaseRun
    from dbstor.runs.queries.checks import runs_queries
    from dbstor.runs.queries.run import QueryRun

    runner = QueryRun if runs_queries(plan.database) else DatabaseRun
    run: DatabaseRun | QueryRun = runner(
        plan, folder, safety, progress, on_point=callback, telemetry=telemetry
    )
    if db_worker and isinstance(run, DatabaseRun):
        run.worker = db_worker(safety, progress.say, plan.target)
        run.run.target["hosts"] = list(run.worker.hosts)
    return run
