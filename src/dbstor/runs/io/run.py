"""One io run: a target x a fio profile over a load series, written to its run folder.

Lifecycle: check fio and the target -> lay out the test files -> (precondition) ->
measure each load point through the io worker (telemetry beside it) -> after every point
rewrite results.json, append samples.csv and re-render report.html -> remove the test
files unless kept. Ctrl-C, a full disk or a failed point end the run with its finished
points on disk.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dbstor.analysis.curve import find_knee, find_peak, slo_value
from dbstor.drivers.fio_runner import ask_fio_version
from dbstor.errors import PointFailed, UserError
from dbstor.results.model import Load, Point, Run, run_status
from dbstor.runs.auto_search import AUTO_FRACTIONS, AUTO_MAX_DEPTH, AUTO_MIN_GAIN, AUTO_STOP_FACTOR
from dbstor.runs.events import point_events
from dbstor.runs.folder import RunFolder
from dbstor.runs.io.plan import IoRunPlan, new_io_run
from dbstor.runs.io.point import IoOutcome, IoPoint, profile_to_dict
from dbstor.runs.io.summary import mark_saturation, point_line, summarise_point
from dbstor.runs.io.worker import IoWorker
from dbstor.runs.measuring import add_host_views
from dbstor.runs.pauses import PauseWatch, mark_paused
from dbstor.runs.phases import Phases, process_age_s
from dbstor.runs.progress import Progress, live_device_iops
from dbstor.runs.telemetry import RunTelemetry, measured_window, storage_text
from dbstor.telemetry.disk import mount_facts
from dbstor.telemetry.system import target_system
from dbstor.testfiles import Safety


class IoRun:
    """Executes one IoRunPlan into its folder. `on_point` is called after each save."""

    def __init__(
        self,
        plan: IoRunPlan,
        folder: Path,
        safety: Safety,
        progress: Progress,
        on_point: Callable[[Run], None] | None = None,
        worker: Any = None,
        telemetry: RunTelemetry | None = None,
        while_loading: Callable[[], None] | None = None,
    ):
        """`worker` measures elsewhere (the cluster's io worker); default: this host.
        `while_loading()` runs once in a thread during the first point's warm-up (of at
        least a second), while this thread only waits for fio: work the run needs after
        the point (the report's imports) done off its critical path."""
        self.while_loading = while_loading
        self.version: Callable[[], str] | None = None  # fio's answer to --version, when read
        self.plan, self.progress, self.telemetry = plan, progress, telemetry
        self.run = new_io_run(plan)
        self.folder = RunFolder(folder, self.run, self._conclude, on_point)
        self.worker = worker or IoWorker(safety, say=progress.say)
        self.target: dict[str, Any] = {}
        self.phases = Phases()
        self.launched_at: float | None = None  # epoch seconds when dbstor was launched

    def _conclude(self, run: Run) -> None:
        run.peak = find_peak(run.points)
        run.knee = find_knee(run.points, self.plan.slo.metric, self.plan.slo.limit_ms)

    # --- lifecycle -----------------------------------------------------------------

    def execute(self) -> Run:
        age = process_age_s()
        self.launched_at = time.time() - age if age is not None else None
        self.phases.set("launch_to_run_s", age)
        setup = self._setup()
        self.folder.save(notify=False)  # results.json from the start: a Ctrl-C keeps the run
        with self.phases.phase("check_s"):
            self.version = ask_fio_version()  # read after the first point: no wait for it
            self.target = self.worker.plan(setup)
        if self.worker.hosts:
            self.run.target["hosts"] = list(self.worker.hosts)
        self.run.target["device"] = ",".join(self.target["devices"]) or None
        self.run.target["system"] = target_system(self.target["devices"])
        if self.plan.target.paths and not self.worker.hosts:
            self.run.target["mount"] = mount_facts(self.plan.target.paths[0])
        self.run.workload["direct"] = self.target["direct"]
        self.run.notes.extend(self.target["notes"])
        self.folder.save(notify=False)  # the report comes with the first point
        try:
            with run_status(self.run):
                self._prepare(setup)
                self._measure_series()
        finally:
            try:
                self._take_version()
                self.run.timings = self.phases.timings
                self.folder.save()
            finally:
                for note in self.worker.cleanup().get("notes") or []:
                    self.progress.tell(note)  # test files left behind: said even with --quiet
        return self.run

    def _take_version(self) -> None:
        if self.version is not None:
            self.run.engine["version"] = self.version()
            self.version = None

    def _start_while_loading(self) -> None:
        task, self.while_loading = self.while_loading, None
        if task is None or self.plan.warmup_s < 1:
            return

        def later() -> None:
            time.sleep(0.5)  # fio and the sampler first
            task()

        threading.Thread(target=later, name="dbstor-while-loading", daemon=True).start()

    def _setup(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "paths": [str(p) for p in plan.target.paths],
            "profile": profile_to_dict(plan.profile),
            "file_size": plan.file_size,
            "precondition": plan.precondition,
            "duration_s": plan.duration_s,
            "where": self._where(),
            "data": {
                "kind": plan.data.kind,
                "compression": plan.data.compression,
                "dedupe_pct": plan.data.dedupe_pct,
                "source": plan.data.source,
                "source_figures": plan.data.source_figures,
            },
        }

    def _prepare(self, setup: dict[str, Any]) -> None:
        started = time.monotonic()
        prepared = self.worker.prepare(setup)
        spent = prepared.get("timings") or {}  # layout_s, data_check_s, precondition_s
        for name, seconds in spent.items():
            self.phases.add(name, seconds)
        if not spent:  # a worker that does not say
            self.phases.add("prepare_s", time.monotonic() - started)
        for name, (job, output) in prepared["jobs"].items():
            self.folder.keep_job(name, job, output)
        self.run.notes.extend(prepared["notes"])
        self.run.workload["data"]["written"] = prepared["written"]

    # --- load series ---------------------------------------------------------------

    def _measure_series(self) -> None:
        started = time.monotonic()
        try:
            self._measure_points()
        finally:  # what the series spent outside fio: summaries, saves, reports, starts
            load = self.phases.timings.get("load_s", 0.0)
            self.phases.add("series_overhead_s", time.monotonic() - started - load)

    def _measure_points(self) -> None:
        series = self.plan.series
        if series.kind == "auto":
            self._auto()
            return
        for number, value in enumerate(series.values, 1):
            self._measure(
                Load(kind=series.kind, value=value, jobs=self._jobs_for(series.kind, value)),
                last=number == len(series.values),
            )

    def _jobs_for(self, kind: str, value: float) -> int:
        return int(value) if kind == "jobs" else self.plan.series.jobs

    def _auto(self) -> None:
        """Find the peak by doubling the load, then measure at fractions of it."""
        kind = self.plan.profile.load_kind
        best: Point | None = None
        value, flat_steps = 1, 0
        while value <= AUTO_MAX_DEPTH and flat_steps < 2:
            load = Load(kind=kind, value=value, jobs=self._jobs_for(kind, value))
            point = self._measure(load, series="discovery")
            gained = best is None or point.iops >= best.iops * (1 + AUTO_MIN_GAIN)
            flat_steps = 0 if gained else flat_steps + 1
            best = point if best is None or point.iops > best.iops else best
            value *= 2
        assert best is not None
        peak_iops, depth = best.iops, int(best.load.value)
        where = self.plan.series.label(depth) if kind == "iodepth" else f"{depth} jobs"
        self.progress.say(f"peak {peak_iops:,.0f} IOPS at {where}; measuring at fractions of it")
        for fraction in AUTO_FRACTIONS:
            rate = round(peak_iops * fraction)
            point = self._measure(
                Load(kind="rate", value=rate, jobs=self._jobs_for(kind, depth)),
                depth=max(2, depth * 2) if kind == "iodepth" else 1,
            )
            metric = slo_value(point, self.plan.slo.metric)
            if metric is not None and metric > AUTO_STOP_FACTOR * self.plan.slo.limit_ms:
                self.run.notes.append(
                    f"auto: stopped at {fraction:.0%} of the peak, where the SLO was clearly exceeded ({metric:.2f} ms)"
                )
                break

    def _where(self) -> str:
        return ", ".join(str(p) for p in self.plan.target.paths)

    def _measure(
        self, load: Load, series: str = "main", depth: int | None = None, last: bool = False
    ) -> Point:
        """Measure one point and save it with its report, unless it is the series' last (the
        run's final save, right after, writes both once, with the run's status)."""
        plan, index = self.plan, len(self.run.points)
        label = plan.series.label(load.value) if load.kind != "jobs" else f"{load.value:g} jobs"
        title = f"[{index + 1}] {label}" + (" (search)" if series == "discovery" else "")
        repeats: list[IoOutcome] = []
        if self.telemetry:
            self.telemetry.start_point(
                index + 1,
                {load.kind: load.value, "jobs": load.jobs},
                lambda: live_device_iops(self.worker.latest()),
                self.worker.running,  # fio's running figures, live
            )
        try:
            with PauseWatch() as watch:
                for r in range(plan.repeats):
                    repeats.append(self._repeat(load, depth, index, r, title))
                paused = watch.stop()
        except (UserError, PointFailed) as exc:
            failed = Point(
                load=load,
                duration_s=plan.duration_s,
                warmup_s=plan.warmup_s,
                status="failed",
                error=str(exc),
                series=series,
            )
            self.run.points.append(failed)
            raise
        held = plan.max_duration_s if load.kind != "rate" else None
        point = summarise_point(load, repeats, plan.duration_s, plan.warmup_s, held)
        point.series = series
        add_host_views(point, self.worker, load, plan.duration_s, plan.warmup_s)
        previous = next((p for p in reversed(self.run.points) if p.series == series and p.ok), None)
        mark_saturation(point, previous)
        # when the point's load started (its first repeat, warm-up included)
        point.started_at = datetime.fromtimestamp(repeats[0].started_at, UTC).isoformat(
            timespec="seconds"
        )
        mark_paused(point, paused)
        point.events = point_events(repeats, plan.warmup_s, self.folder, self.progress.say, False)
        if self.telemetry:
            windows = [
                measured_window(o.started_at, window_warmup(o, plan), plan.duration_s, o.samples)
                for o in repeats
            ]
            self.telemetry.finish_point(index + 1, point, windows, "fio")
        self.run.points.append(point)
        if not last:  # the series' last: the run's final save, right after, writes it
            self.folder.save()
        self.progress.say(point_line(title, point, plan.slo.metric) + storage_text(point))
        return point

    def describe_point(self, load: Load, depth: int | None, index: int, repeat: int) -> IoPoint:
        """The plain description of one fio run at this load."""
        plan = self.plan
        name = f"point-{index + 1:02d}" + (f"-r{repeat + 1}" if plan.repeats > 1 else "")
        return IoPoint(
            name=name,
            profile=plan.profile,
            files=tuple(self.target["files"]),
            file_size=self.target["file_size"],
            iodepth=depth or (int(load.value) if load.kind == "iodepth" else plan.series.iodepth),
            jobs=load.jobs,
            duration_s=plan.duration_s,
            warmup_s=plan.warmup_s,
            direct=self.target["direct"],
            rate_iops=load.value if load.kind == "rate" else None,
            devices=tuple(self.target["devices"]),
            where=self._where(),
            data_options=tuple(plan.data.fio_options().items()),
            live=self.telemetry is not None and self.telemetry.live is not None,
            events=tuple(plan.study.get("events", ())),
            event_paths=tuple(str(p) for p in plan.target.paths),
            max_s=plan.max_duration_s if load.kind != "rate" else None,
        )

    def _repeat(
        self, load: Load, depth: int | None, index: int, repeat: int, title: str
    ) -> IoOutcome:
        plan = self.plan
        point = self.describe_point(load, depth, index, repeat)
        with self.progress.point(
            title + (f" repeat {repeat + 1}" if plan.repeats > 1 else ""),
            plan.duration_s + plan.warmup_s,
            lambda: live_device_iops(self.worker.latest()),
        ):
            self._start_while_loading()
            outcome = IoOutcome.from_dict(self.worker.measure(point.to_dict()))
        self._take_version()
        self.phases.add("load_s", outcome.wall_s)
        if self.launched_at is not None and "first_load_after_launch_s" not in self.phases.timings:
            self.phases.set("first_load_after_launch_s", outcome.started_at - self.launched_at)
        for note in outcome.notes:
            self.folder.note(note)
        self.folder.keep_job(point.name, outcome.job_text, outcome.output_text)
        self.folder.add_samples(self._sample_rows(outcome, load, index, repeat))
        return outcome

    def _sample_rows(
        self, outcome: IoOutcome, load: Load, index: int, repeat: int
    ) -> list[dict[str, Any]]:
        warmup = window_warmup(outcome, self.plan)
        reads, writes = outcome.read_iops_per_second, outcome.write_iops_per_second
        rows = []
        for sample in outcome.samples:
            t = sample["t_s"]  # the end of the sample's interval
            second = round(t - warmup) - 1  # fio's per-second log, which starts after warm-up
            rows.append(
                {
                    **sample,
                    "run_id": self.run.run_id,
                    "point": index + 1,
                    "repeat": repeat + 1,
                    "load_kind": load.kind,
                    "load_value": load.value,
                    "phase": "measure" if t - 0.5 > warmup else "warmup",
                    "io_read_iops": reads[second] if 0 <= second < len(reads) else None,
                    "io_write_iops": writes[second] if 0 <= second < len(writes) else None,
                }
            )
        return rows


def window_warmup(outcome: IoOutcome, plan: IoRunPlan) -> float:
    """The warm-up before the outcome's measured window: the last round's settle when the
    point was held by rounds (several hosts, cluster/io.py), else the plan's."""
    return plan.warmup_s if outcome.window_warmup_s is None else outcome.window_warmup_s
