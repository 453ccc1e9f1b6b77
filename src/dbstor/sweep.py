"""One run: a target x a fio profile over a load series, written to its run folder.

Lifecycle: check fio and the target -> lay out the test files -> (precondition) ->
measure each load point (telemetry beside it) -> after every point rewrite results.json,
append samples.csv and re-render report.html -> remove the test files unless kept.
Ctrl-C, a full disk or a failed point end the run with its finished points on disk.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from dbstor import __version__
from dbstor.analysis.curve import find_knee, find_peak, slo_value
from dbstor.drivers.fio_job import PointSpec, build_layout_job, build_point_job
from dbstor.drivers.fio_runner import EngineUnavailable, fio_version, run_job
from dbstor.errors import PointFailed, UserError
from dbstor.host import host_facts
from dbstor.points import Repeat, mark_saturation, summarise_point
from dbstor.progress import Progress
from dbstor.results.model import Load, Point, Run, run_status
from dbstor.results.store import append_samples, save_run
from dbstor.study.model import LoadSeries, Slo, Target
from dbstor.study.profiles import Profile
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.sampler import Sampler
from dbstor.testfiles import (
    Safety,
    TestFiles,
    check_free_space,
    plan_files,
    record_created,
    reusable,
)
from dbstor.units import format_size

AUTO_FRACTIONS = (0.10, 0.50, 0.70, 0.80, 0.90, 1.00)  # of the peak, as vdbench's curve runs
AUTO_MAX_DEPTH = 256
AUTO_MIN_GAIN = 0.05  # the search for the peak stops when two doublings in a row add under 5%
AUTO_STOP_FACTOR = 1.5  # the SLO is "clearly exceeded" at 1.5x its limit
PRECONDITION_ROUNDS = 10
PRECONDITION_ROUND_S = 30  # or the point duration, when shorter


@dataclass(frozen=True)
class RunPlan:
    run_id: str
    target: Target
    profile: Profile
    series: LoadSeries
    slo: Slo
    duration_s: float
    warmup_s: float
    repeats: int
    file_size: int
    precondition: bool
    study: dict


def new_run_id(label: str, workload: str, parent: Path) -> str:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = f"{stamp}-{label}-{workload}"
    run_id, n = base, 2
    while (parent / run_id).exists():
        run_id, n = f"{base}-{n}", n + 1
    return run_id


class Sweep:
    """Executes one RunPlan into its folder. `on_point` is called after each saved point."""

    def __init__(
        self,
        plan: RunPlan,
        folder: Path,
        safety: Safety,
        progress: Progress,
        on_point: Callable[[Run], None] | None = None,
    ):
        self.plan, self.folder, self.safety, self.progress = plan, folder, safety, progress
        self.on_point = on_point or (lambda run: None)
        self.profile = plan.profile
        self.devices: list[str] = []
        self.files: TestFiles | None = None
        self.run = self._new_run()

    def _new_run(self) -> Run:
        p = self.plan
        return Run(
            run_id=p.run_id,
            tool_version=__version__,
            study=p.study,
            target={
                "label": p.target.label,
                "paths": {"data": [str(x) for x in p.target.paths]},
                "device": None,
                "facts": p.target.facts,
            },
            engine={"name": "fio", "version": None, "managed": True},
            workload={
                "name": p.profile.name,
                "scale": None,
                "mix": {"read_pct": p.profile.read_pct, "write_pct": 100 - p.profile.read_pct},
                "profile": p.profile.describe(),
                "file_size_bytes": p.file_size,
                "series": {
                    "kind": p.series.kind,
                    "values": list(p.series.values),
                    "jobs": p.series.jobs,
                    "iodepth": p.series.iodepth,
                },
            },
            host=host_facts(),
            slo={"metric": p.slo.metric, "limit_ms": p.slo.limit_ms},
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )

    # --- lifecycle -----------------------------------------------------------------

    def execute(self) -> Run:
        self.run.engine["version"] = fio_version()
        self.files = plan_files(
            self.plan.target.paths,
            self.profile.name,
            self.profile.files,
            self.plan.file_size,
            self.safety,
        )
        check_free_space(self.files)
        self.devices = devices_for_path(self.files.files[0])
        self.run.target["device"] = ",".join(self.devices) or None
        self.run.workload["direct"] = self.files.direct
        if not self.files.direct:
            self.run.notes.append(
                "direct I/O is not supported on this file system (e.g. tmpfs): fio ran buffered, "
                "so these are page-cache speeds, not the storage's"
            )
        if not self.devices:
            self.run.notes.append(
                "no block device found under the target: device statistics are missing"
            )
        self._save()
        try:
            with run_status(self.run):
                self._layout()
                if self.plan.precondition:
                    self._precondition()
                self._measure_series()
        finally:
            try:
                self._save()
            finally:
                if self.files and not self.safety.keep:
                    self.files.remove()
        return self.run

    def _save(self) -> None:
        points = self.run.points
        self.run.peak = find_peak(points)
        self.run.knee = find_knee(points, self.plan.slo.metric, self.plan.slo.limit_ms)
        save_run(self.folder, self.run)
        self.on_point(self.run)

    def _layout(self) -> None:
        assert self.files is not None
        if self.files.is_device:
            return
        if reusable(self.files):
            self.files.reused = True
            self.run.notes.append("test files kept by an earlier run were reused")
            return
        total = self.files.file_size * len(self.files.files)
        self.progress.say(
            f"laying out {format_size(total)} of test files in {len(self.files.files)} file(s)"
        )
        for file in self.files.files:
            file.touch(exist_ok=True)
        record_created(self.files)
        started = time.monotonic()
        job = build_layout_job(self.files.files, self.files.file_size, self.files.direct)
        try:
            run_job(job, self.folder / "jobs" / "layout.fio", self._where(), timeout_s=3600)
        finally:
            record_created(self.files)  # fio may have made the files anew: claim them again
        self.run.notes.append(
            f"laid out {format_size(total)} of test files in {time.monotonic() - started:.1f} s (not counted in any point)"
        )

    def _precondition(self) -> None:
        """SNIA PTS-style: random writes over the whole file until the IOPS are steady."""
        seconds = max(2, min(PRECONDITION_ROUND_S, round(self.plan.duration_s)))
        self.progress.say(
            f"preconditioning: random 8K writes until IOPS are steady (at most {PRECONDITION_ROUNDS} rounds of {seconds} s)"
        )
        writer = replace(
            self.profile,
            name="precondition",
            pattern="random",
            read_pct=0.0,
            block_size=8192,
            block_split=(),
            fdatasync=0,
        )
        history: list[float] = []
        spec = PointSpec(
            writer, self.files.files, self.files.file_size, 32, 1, seconds, 0, self.files.direct
        )
        for round_no in range(PRECONDITION_ROUNDS):
            history.append(self._fio(spec, f"precondition-{round_no + 1}").run.write.iops)
            window = history[-5:]  # SNIA PTS: five rounds within 20% of their mean
            if len(window) == 5 and (max(window) - min(window)) <= 0.2 * (sum(window) / 5):
                break
        self.run.notes.append(
            f"preconditioned in {len(history)} rounds; write IOPS per round: "
            + ", ".join(f"{v:,.0f}" for v in history)
        )

    # --- load series ---------------------------------------------------------------

    def _measure_series(self) -> None:
        series = self.plan.series
        if series.kind == "auto":
            self._auto()
            return
        kind = "rate" if series.kind == "rate" else series.kind
        for value in series.values:
            self._measure(Load(kind=kind, value=value, jobs=self._jobs_for(kind, value)))

    def _jobs_for(self, kind: str, value: float) -> int:
        return int(value) if kind == "jobs" else self.plan.series.jobs

    def _auto(self) -> None:
        """Find the peak by doubling the load, then measure at fractions of it."""
        kind = self.profile.load_kind
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
        self.progress.say(
            f"peak {peak_iops:,.0f} IOPS at {self.plan.series.label(depth) if kind == 'iodepth' else f'{depth} jobs'}; measuring at fractions of it"
        )
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

    def _fio(self, spec: PointSpec, name: str) -> object:
        timeout = spec.duration_s + spec.warmup_s + 120
        try:
            return run_job(
                build_point_job(spec), self.folder / "jobs" / f"{name}.fio", self._where(), timeout
            )
        except EngineUnavailable as exc:
            if (spec.ioengine or self.profile.ioengine) != "io_uring":
                raise PointFailed(f"fio's I/O engine is unavailable: {exc}") from None
            self.run.notes.append(f"io_uring is unavailable here ({exc}); fell back to libaio")
            self.profile = replace(self.profile, ioengine="libaio")
            return run_job(
                build_point_job(replace(spec, ioengine="libaio")),
                self.folder / "jobs" / f"{name}.fio",
                self._where(),
                timeout,
            )

    def _measure(self, load: Load, series: str = "main", depth: int | None = None) -> Point:
        plan, index = self.plan, len(self.run.points)
        label = (
            self.plan.series.label(load.value) if load.kind != "jobs" else f"{load.value:g} jobs"
        )
        title = f"[{index + 1}] {label}" + (" (search)" if series == "discovery" else "")
        repeats: list[Repeat] = []
        try:
            for r in range(plan.repeats):
                repeats.append(self._repeat(load, depth, index, r, title))
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
        point = summarise_point(load, repeats, plan.duration_s, plan.warmup_s)
        point.series = series
        previous = next((p for p in reversed(self.run.points) if p.series == series and p.ok), None)
        mark_saturation(point, previous)
        point.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.run.points.append(point)
        self._save()
        self.progress.say(self._point_line(title, point))
        return point

    def _repeat(self, load: Load, depth: int | None, index: int, repeat: int, title: str) -> Repeat:
        plan = self.plan
        iodepth = depth or (int(load.value) if load.kind == "iodepth" else plan.series.iodepth)
        spec = PointSpec(
            profile=self.profile,
            files=self.files.files,
            file_size=self.files.file_size,
            iodepth=iodepth,
            jobs=load.jobs,
            duration_s=plan.duration_s,
            warmup_s=plan.warmup_s,
            direct=self.files.direct,
            rate_iops=load.value if load.kind == "rate" else None,
        )
        name = f"point-{index + 1:02d}" + (f"-r{repeat + 1}" if plan.repeats > 1 else "")
        spec = replace(spec, iops_log=(self.folder / "jobs" / name).absolute())
        sampler = Sampler(self.devices)
        sampler.start()
        started = time.monotonic()
        try:
            with self.progress.point(
                title + (f" repeat {repeat + 1}" if plan.repeats > 1 else ""),
                plan.duration_s + plan.warmup_s,
                lambda: _live_iops(sampler),
            ):
                result = self._fio(spec, name)
        finally:
            samples = sampler.stop()
        wall = time.monotonic() - started
        cpu, device = sampler.summarise(samples, start_s=plan.warmup_s)
        append_samples(self.folder, self._sample_rows(samples, result, load, index, repeat))
        return Repeat(fio=result, cpu=cpu, device=device, wall_s=wall)

    def _sample_rows(
        self, samples: list, result: object, load: Load, index: int, repeat: int
    ) -> Iterator[dict]:
        warmup = self.plan.warmup_s
        for sample in samples:
            t = sample["t_s"]  # the end of the sample's interval
            measuring = t - 0.5 > warmup
            second = round(t - warmup) - 1  # fio's per-second log, which starts after warm-up
            reads, writes = result.read_iops_per_second, result.write_iops_per_second
            yield {
                **sample,
                "run_id": self.run.run_id,
                "point": index + 1,
                "repeat": repeat + 1,
                "load_kind": load.kind,
                "load_value": load.value,
                "phase": "measure" if measuring else "warmup",
                "io_read_iops": reads[second] if 0 <= second < len(reads) else None,
                "io_write_iops": writes[second] if 0 <= second < len(writes) else None,
            }

    def _point_line(self, title: str, point: Point) -> str:
        read_p99 = (
            point.read_lat_ms.p99
            if point.read_lat_ms and point.read_lat_ms.p99 is not None
            else None
        )
        metric = slo_value(point, self.plan.slo.metric)
        flags = [
            f
            for f, on in (
                ("saturated", point.saturated),
                ("not steady", point.trust.steady is False),
                ("noisy", point.trust.noisy),
            )
            if on
        ]
        cpu = point.cpu.util_pct if point.cpu and point.cpu.util_pct is not None else None
        parts = [
            f"  {title:<28}",
            f"{point.iops:>10,.0f} IOPS",
            f"read p99 {read_p99:.3f} ms" if read_p99 is not None else "read p99 -",
            f"SLO metric {metric:.3f} ms"
            if metric is not None and self.plan.slo.metric != "read_lat_p99_ms"
            else "",
            f"CPU {cpu:.0f}%" if cpu is not None else "",
            f"[{', '.join(flags)}]" if flags else "",
        ]
        return "  ".join(p for p in parts if p)


def _live_iops(sampler: Sampler) -> float | None:
    sample = sampler.latest()
    if not sample or sample.get("dev_read_iops") is None:
        return None
    return (sample["dev_read_iops"] or 0) + (sample["dev_write_iops"] or 0)
