"""A study: every target x profile (or database) run in turn, then the comparison and one
report; plus reading a run or study folder back.

A study with one run writes OUT/<run-id>/. With several runs it writes a study folder
OUT/<stamp>-<study>/ holding study.json, comparison.json, report.html (all runs and the
comparison) and one run folder per run.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbstor.errors import UserError
from dbstor.results.model import Run
from dbstor.results.store import (
    RESULTS_FILE,
    read_run_folder,
    read_samples,
    read_study_index,
    write_text_atomic,
)
from dbstor.runs.folder import new_run_id, remove_unmeasured
from dbstor.runs.io.data_check import readable_source, resolve_data_pattern
from dbstor.runs.io.fio_check import check_fio_jobs
from dbstor.runs.io.fio_limits import check_fio_settings
from dbstor.runs.io.plan import IoRunPlan
from dbstor.runs.lock import run_locks
from dbstor.runs.mix import check_one_storage, mix_groups, run_together
from dbstor.runs.one_run import WorkerFactory, build_run, plan_words
from dbstor.runs.own_files import Pairs, ScanBeforeCleanup
from dbstor.runs.progress import Progress
from dbstor.runs.telemetry import RunTelemetry
from dbstor.safefs import new_dir, user_dir
from dbstor.study.model import DatabaseSpec, Study
from dbstor.testfiles import Safety, check_directory, check_free_space, plan_files

if TYPE_CHECKING:  # a fio study imports no database machinery (engines, users, workloads)
    from dbstor.runs.database.plan import DbRunPlan

STUDY_FILE = "study.json"
COMPARISON_FILE = "comparison.json"
FilesHook = Callable[[Run, Pairs], None]  # a run and its own files, before they are removed


@dataclass
class StudyOutcome:
    folder: Path  # the study folder, or the run folder of a one-run study
    runs: list[Run] = field(default_factory=list)
    run_folders: list[Path] = field(default_factory=list)
    comparison: dict[str, Any] | None = None


def make_out_dir(out: Path) -> Path:
    """The results folder: made when missing; a link at its name is refused (safefs)."""
    return user_dir(out, "--out")


def plans_for(study: Study, parent: Path) -> list[IoRunPlan | DbRunPlan]:
    description = study.describe()
    fio_plans: list[IoRunPlan | DbRunPlan] = [
        IoRunPlan(
            run_id=new_run_id(target.label, profile.name, parent),
            target=target,
            profile=profile,
            series=study.series_for(profile),
            slo=study.slo_for(profile),
            duration_s=study.duration_s,
            warmup_s=study.warmup_s,
            repeats=study.repeats,
            file_size=study.file_size,
            precondition=study.precondition,
            study=description,
            data=study.data,
            max_duration_s=study.steady_limit_s(),
        )
        for target in study.targets
        for profile in study.profiles
        if not target.clients  # a target of client hosts is an external server's
    ]
    if not study.databases:
        return fio_plans
    from dbstor.runs.database.plan import DbRunPlan

    db_plans = [
        DbRunPlan(
            run_id=new_run_id(target.label, spec.workload, parent),
            target=target,
            database=spec,
            slo=study.slo_for_database(),
            duration_s=study.duration_s,
            warmup_s=study.warmup_s,
            study=description,
            repeats=study.repeats,
            max_duration_s=study.steady_limit_s(),
        )
        for target in study.targets
        for spec in study.databases
        if not study.cluster or bool(target.clients) == (spec.dsn is not None)
    ]
    return fio_plans + db_plans


def render(folder: Path, runs: list[Run], comparison: dict[str, Any] | None, title: str) -> Path:
    """(Re)write folder/report.html for these runs; no title: one run's own."""
    from dbstor.report.html import run_title, write_report

    title = title or run_title(runs[0])
    samples = {}
    for run in runs:
        run_folder = folder if (folder / RESULTS_FILE).exists() else folder / run.run_id
        samples[run.run_id] = read_samples(run_folder)
    return write_report(folder, runs, samples=samples, comparison=comparison, title=title)


def preflight(study: Study, local_targets: bool = True, safety: Safety | None = None) -> None:
    """Check what can be checked before any load runs, so that a bad path or an unusable
    engine in the last run of a long study stops it at once, not hours later. Targets
    measured on other hosts (local_targets False) are checked there. With safety, each
    fio run's test files too (links, ownership, free space), before any folder exists."""
    check_one_storage(study)
    check_fio_settings(study)  # host-independent: `dbstor study` checks it too
    if study.profiles:
        check_fio_jobs(
            study, local_targets
        )  # fio reads back every job as dbstor wrote it, or no run
    for target in study.targets if local_targets else ():
        for path in (p for paths in target.roles.values() for p in paths):
            if not (path.exists() and stat.S_ISBLK(path.stat().st_mode)):
                check_directory(path)
        for profile in study.profiles if safety is not None else ():
            files = plan_files(target.paths, profile.name, profile.files, study.file_size, safety)
            check_free_space(files)
    if study.databases:  # imported only then: a fio study needs no database machinery
        from dbstor.runs.database.preflight import preflight_database

        for spec in study.databases:
            preflight_database(study, spec, local_targets, safety)


def run_study(
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
    io_worker: WorkerFactory | None = None,
    db_worker: WorkerFactory | None = None,
    on_files: FilesHook | None = None,
) -> StudyOutcome:
    """Run every plan of the study. `io_worker(safety, say, target)` and `db_worker(...)`
    make the worker for each io or database run when its points are measured elsewhere (a
    cluster); default: this host."""
    local = io_worker is None
    targets = [p for t in study.targets for ps in t.roles.values() for p in ps] if local else []
    with run_locks(out, targets):  # before anything is created: one run per --out and target
        return _run_study(study, out, safety, progress, io_worker, db_worker, on_files)


def _run_study(
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
    io_worker: WorkerFactory | None,
    db_worker: WorkerFactory | None,
    on_files: FilesHook | None,
) -> StudyOutcome:
    preflight(study, local_targets=io_worker is None, safety=safety)
    telemetry = None
    if study.telemetry is not None:
        telemetry = RunTelemetry(study.telemetry, run=study.name, kind=_kind(study))
        # every Prometheus query, before anything exists; a query point's length is unknown
        only_queries = not study.profiles and all(_queries(d) for d in study.databases)
        note = telemetry.preflight(None if only_queries else study.duration_s)
        if note:
            progress.say(note)
    if study.profiles and study.data.kind == "from" and study.data.source is not None:
        paths = readable_source(
            study.data.source, study.data.given_as
        )  # a refusal comes before the line below
        progress.say(f"measuring the compressibility of {study.data.source} for the test data")
        study = replace(study, data=resolve_data_pattern(study.data, paths))
    made_out = not out.exists()
    made: list[Path] = []
    try:
        make_out_dir(out)
        if telemetry is not None:
            telemetry.open()
            if telemetry.live is not None:  # --metrics-port 0 picks a port: say which
                progress.tell(f"live figures for Prometheus at {telemetry.live.url}")
        return _run_plans(
            study, out, safety, progress, telemetry, io_worker, db_worker, made, on_files
        )
    except UserError:
        remove_unmeasured(made, out if made_out else None)  # a refused run leaves no folder
        raise
    finally:
        if telemetry is not None:
            telemetry.close()


def _kind(study: Study) -> str:
    if not study.databases:
        return "io"
    return "queries" if any(_queries(d) for d in study.databases) else "database"


def _queries(spec: DatabaseSpec) -> bool:
    from dbstor.runs.queries.checks import runs_queries

    return runs_queries(spec)


def _run_plans(
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
    telemetry: RunTelemetry | None,
    io_worker: WorkerFactory | None = None,
    db_worker: WorkerFactory | None = None,
    made: list[Path] | None = None,
    on_files: FilesHook | None = None,
) -> StudyOutcome:
    """Every plan in turn; each folder it makes goes into `made` as it is made."""
    made = [] if made is None else made
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    runs_alone = len(study.targets) * (len(study.profiles) + len(study.databases))
    many = runs_alone > 1 or study.mix is not None
    study_folder = out / f"{stamp}-{_slug(study.name)}" if many else None
    parent = study_folder or out
    plans: list[IoRunPlan | DbRunPlan] = plans_for(study, parent)
    groups = mix_groups(study, plans, parent)  # [mix]: after the runs alone, together
    outcome = StudyOutcome(folder=study_folder or parent / plans[0].run_id)
    if study_folder:
        made.append(new_dir(study_folder))  # new: a link or a file at its name is refused
        write_text_atomic(
            study_folder / STUDY_FILE,
            json.dumps(
                {
                    "study": study.describe(),
                    "runs": [p.run_id for p in plans] + [p.run_id for g in groups for p in g.plans],
                },
                indent=2,
            )
            + "\n",
        )

    def after_point(run: Run, folder: Path) -> None:
        render(folder, [run], None, "")  # "": the run's own title (report.html.run_title)
        if study_folder:
            _render_study(study_folder, [*outcome.runs, run], study)

    def build(plan: IoRunPlan | DbRunPlan, folder: Path) -> Any:
        def callback(run: Run, f: Path = folder) -> None:
            after_point(run, f)

        return build_run(plan, folder, safety, progress, callback, telemetry, io_worker, db_worker)

    for number, plan in enumerate(plans, 1):
        folder = parent / plan.run_id
        made.append(new_dir(folder))
        run = build(plan, folder)
        what = plan_words(plan)
        if on_files is not None:  # a study's efficiency: the run's files before they go
            run.worker = ScanBeforeCleanup(run.worker, lambda f, r=run.run: on_files(r, f))
        progress.say(f"run {number}/{len(plans)}: {plan.target.label} x {what} -> {folder}")
        outcome.run_folders.append(folder)
        try:
            run.execute()
        finally:
            outcome.runs.append(run.run)
    for group in groups:
        for plan in group.plans:
            made.append(new_dir(parent / plan.run_id))
            outcome.run_folders.append(parent / plan.run_id)
        try:
            run_together(group, parent, build, progress.say)
        finally:  # each member wrote its own folder; what finished is read back
            outcome.runs += [
                read_run_folder(parent / p.run_id)
                for p in group.plans
                if (parent / p.run_id / RESULTS_FILE).exists()
            ]
    if study_folder:
        outcome.comparison = _render_study(study_folder, outcome.runs, study)
    return outcome


def _render_study(folder: Path, runs: list[Run], study: Study) -> dict[str, Any] | None:
    from dbstor.analysis.study_compare import study_comparison

    comparison = study_comparison(runs, study.baseline)
    if comparison is not None:
        write_text_atomic(folder / COMPARISON_FILE, json.dumps(comparison, indent=2) + "\n")
    render(folder, runs, comparison, study.name)
    return comparison


def _slug(text: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in text.strip())
    return "-".join(filter(None, keep.split("-")))[:40] or "study"


def missing_runs(folder: Path) -> list[str]:
    """The runs a study folder's study.json lists whose folders hold no results.json
    (deleted or moved): a reader says so rather than leaving them out without a word."""
    if (folder / RESULTS_FILE).exists() or not (folder / STUDY_FILE).exists():
        return []
    return [
        i for i in read_study_index(folder, STUDY_FILE) if not (folder / i / RESULTS_FILE).exists()
    ]


def missing_runs_note(folder: Path) -> str | None:
    """One line naming the study's runs that are gone, or None."""
    gone = missing_runs(folder)
    if not gone:
        return None
    return (
        f"{folder / STUDY_FILE} lists {len(gone)} run(s) whose folder holds no {RESULTS_FILE} "
        f"(deleted or moved), left out: {', '.join(gone)}"
    )


def load_folder(folder: Path) -> tuple[list[Run], list[Path]]:
    """Runs from a run folder or a study folder (its run subfolders, in study order)."""
    if (folder / RESULTS_FILE).exists():
        return [read_run_folder(folder)], [folder]
    if (folder / STUDY_FILE).exists():
        ids = read_study_index(folder, STUDY_FILE)
        folders = [folder / i for i in ids if (folder / i / RESULTS_FILE).exists()]
        if not folders:
            listed = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "") or "none"
            raise UserError(
                f"{folder / STUDY_FILE}: none of its runs ({listed}) has a {RESULTS_FILE} in "
                f"{folder}: the study stopped before its first run, or its folders were moved"
            )
        return [read_run_folder(f) for f in folders], folders
    if not folder.exists():
        raise UserError(
            f"{folder} does not exist: give a run folder (with results.json) or a study folder"
        )
    raise UserError(
        f"{folder} holds no results.json or study.json: give a dbstor run or study folder"
    )
