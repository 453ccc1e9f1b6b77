"""One database run: a real database (engine x workload) on a target over a users or
instances series, measured with the storage and the host, written to its run folder.

Lifecycle: create and load every instance the series needs -> for each point drive the
virtual users (telemetry and engine counters beside them) and save the point -> record
per-object I/O for the placement advisor -> stop the engines and remove what they created
unless kept. A server that dies mid-point fails that point; finished points stay.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dbstor import __version__
from dbstor.analysis.curve import find_knee, find_peak
from dbstor.analysis.trust import drift_pct, is_steady
from dbstor.drivers.processes import run_in_processes
from dbstor.drivers.tally import DriveResult
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineCounters, EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.errors import PointFailed
from dbstor.host import host_facts
from dbstor.progress import Progress
from dbstor.results.model import LatencyStats, Load, Point, Run, Trust, run_status
from dbstor.results.store import append_samples, save_run
from dbstor.study.model import DatabaseSpec, Slo, Target
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.sampler import Sampler
from dbstor.testfiles import Safety
from dbstor.workloads.registry import workload_class

MEMORY_READS_PER_TXN = 0.05  # fewer device reads per transaction than this: memory served reads
RATE_SHORTFALL = 0.97  # an open-loop point finishing fewer of its arrivals than this is saturated


@dataclass(frozen=True)
class DbRunPlan:
    run_id: str
    target: Target
    database: DatabaseSpec
    slo: Slo
    duration_s: float
    warmup_s: float
    study: dict[str, Any]


def new_database_run(
    plan: DbRunPlan, engine_cls: type, workload: dict[str, Any], slo: dict[str, Any]
) -> Run:
    """A database run's results before its first point: the target, the engine (its
    version comes once it is started), the workload, the host and the SLO."""
    return Run(
        run_id=plan.run_id,
        tool_version=__version__,
        study=plan.study,
        target={
            "label": plan.target.label,
            "paths": {r: [str(p) for p in ps] for r, ps in plan.target.roles.items()},
            "device": None,
            "facts": plan.target.facts,
        },
        engine={
            "name": engine_cls.name,
            "title": engine_cls.title,
            "version": None,
            "managed": plan.database.dsn is None,
        },
        workload=workload,
        host=host_facts(),
        slo=slo,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


class DatabaseRunner:
    """What every database run starts from: its plan, folder, safety rules, progress, the
    callback after each point, the engine and workload classes and scale it names, and its
    results header. A runner adds its own state in setup() and says what its results
    record of the workload (workload_header()) and of the latency limit (slo())."""

    def __init__(
        self,
        plan: DbRunPlan,
        folder: Path,
        safety: Safety,
        progress: Progress,
        on_point: Callable[[Run], None] | None = None,
    ):
        self.plan, self.folder, self.safety, self.progress = plan, folder, safety, progress
        self.on_point = on_point or (lambda run: None)
        spec = plan.database
        self.engine_cls = engine_class(spec.engine)
        self.workload_cls = workload_class(spec.workload)
        self.scale = spec.scale if spec.scale is not None else self.workload_cls.default_scale
        self.devices: list[str] = []
        self.setup()
        self.run = new_database_run(plan, self.engine_cls, self.workload_header(), slo=self.slo())

    def setup(self) -> None:
        """The runner's own state, before its results header is made."""

    def workload_header(self) -> dict[str, Any]:
        spec = self.plan.database
        return {"name": spec.workload, "scale": self.scale, "series": spec.describe()["series"]}

    def slo(self) -> dict[str, Any]:
        return {"metric": self.plan.slo.metric, "limit_ms": self.plan.slo.limit_ms}


class DbSweep(DatabaseRunner):
    def setup(self) -> None:
        self.instances: list[Instance] = []

    def workload_header(self) -> dict[str, Any]:
        return {**super().workload_header(), "mix": dict(self.workload_cls.mix)}

    # --- lifecycle -----------------------------------------------------------------

    def execute(self) -> Run:
        spec = self.plan.database
        data = self.plan.target.paths[0] if self.plan.target.paths else None
        self.devices = devices_for_path(data) if data and spec.dsn is None else []
        self.run.target["device"] = ",".join(self.devices) or None
        if spec.dsn is not None:
            self.run.notes.append(
                "external server: device statistics are this host's; the database's storage may be elsewhere"
            )
        elif not self.devices:
            self.run.notes.append(
                "no block device found under the target: device statistics are missing"
            )
        self._save()
        try:
            with run_status(self.run):
                self._create_instances()
                for value in spec.series.values:
                    self._measure(value)
        finally:
            try:
                self._record_objects()
                self._save()
            finally:
                self._stop_all()
        return self.run

    def _save(self) -> None:
        self.run.peak = find_peak(self.run.points)
        self.run.knee = find_knee(self.run.points, self.plan.slo.metric, self.plan.slo.limit_ms)
        save_run(self.folder, self.run)
        self.on_point(self.run)

    def _settings(self, instance: int) -> EngineSettings:
        spec = self.plan.database
        return EngineSettings(
            paths=self.plan.target.roles,
            dsn=spec.dsn,
            instance=instance,
            buffer_bytes=spec.buffer_bytes,
            memory_limit_bytes=spec.memory_limit_bytes,
            keep=self.safety.keep,
            allow_overwrite=self.safety.allow_overwrite,
        )

    def _create_instances(self) -> None:
        spec = self.plan.database
        series = spec.series
        count = max(series.values) if series.kind == "instances" else 1
        users = series.users if series.kind in ("instances", "rate") else max(series.values)
        for n in range(count):
            engine = self.engine_cls(self._settings(n))
            self.progress.say(
                f"creating {self.engine_cls.title} instance {n + 1}/{count} and loading "
                f"{spec.workload} at {self.scale:,} {self.workload_cls.scale_unit}"
            )
            workload = self.workload_cls(self.scale, seed=spec.seed, options=spec.options)
            workload.expect_users(users)
            engine.start()
            self.instances.append(Instance(engine, workload))
            report = workload.create(engine, self.progress.say)
            if n == 0:
                self.run.engine = engine.describe()
                self.run.target["paths"] = engine.data_paths() | {
                    r: [str(p) for p in ps]
                    for r, ps in self.plan.target.roles.items()
                    if r != "data"
                }
                self.run.workload = {
                    **workload.describe(),
                    "series": self.run.workload["series"],
                    "think_time_ms": spec.think_time_ms,
                    "client_processes": spec.client_processes,
                }
            self.run.workload.setdefault("load", []).append(
                {
                    "instance": n,
                    "rows": report.rows,
                    "seconds": round(report.seconds, 2),
                    "rows_per_s": round(report.rows_per_s),
                    "bytes": report.bytes,
                }
            )
            self.progress.say(
                f"  loaded {report.rows:,} rows in {report.seconds:.1f} s ({report.rows_per_s:,.0f} rows/s)"
            )
            self._save()

    def _stop_all(self) -> None:
        for instance in self.instances:
            try:
                instance.engine.stop()
            except Exception as exc:  # stopping one must not keep the others running
                self.run.notes.append(f"stopping {instance.engine.title} failed: {exc}")

    def _record_objects(self) -> None:
        if not self.instances:
            return
        try:
            objects = self.instances[0].engine.object_io()
        except Exception as exc:  # the server may be gone; the points matter more
            self.run.notes.append(f"per-object I/O could not be read: {exc}")
            return
        self.run.engine_stats = {
            "objects": [vars(o) for o in objects],
            "instance": 0,
            "cumulative_since": "instance start",
        }

    # --- points --------------------------------------------------------------------

    def _measure(self, value: int) -> Point:
        spec, plan = self.plan.database, self.plan
        series = spec.series
        active = self.instances[:value] if series.kind == "instances" else self.instances[:1]
        users = series.users if series.kind in ("instances", "rate") else value
        rate = float(value) if series.kind == "rate" else None
        load = Load(kind=series.kind, value=value, jobs=users * len(active))
        index = len(self.run.points)
        title = f"[{index + 1}] {series.label(value)}" + (
            f" x {users} users" if series.kind in ("instances", "rate") else ""
        )
        before = [i.engine.counters() for i in active]
        sampler = Sampler(self.devices)
        sampler.start()
        started = time.monotonic()
        try:
            with self.progress.point(
                title, plan.duration_s + plan.warmup_s, lambda: _live(sampler)
            ):
                result = run_in_processes(
                    active,
                    users,
                    spec.client_processes,
                    plan.warmup_s,
                    plan.duration_s,
                    think_time_ms=0.0 if rate else spec.think_time_ms,
                    seed=spec.seed + index,
                    rate=rate,
                )
        finally:
            samples = sampler.stop()
        wall = time.monotonic() - started
        after = [i.engine.counters() for i in active]
        cpu, device = sampler.summarise(samples, start_s=plan.warmup_s)
        append_samples(self.folder, self._rows(samples, result, load, index))
        if result.fatal:
            alive = all(i.engine.alive() for i in active)
            why = "" if alive else f"the {self.engine_cls.title} server stopped during the point; "
            point = Point(
                load=load,
                duration_s=plan.duration_s,
                warmup_s=plan.warmup_s,
                status="failed",
                error=f"{why}{result.fatal}",
            )
            self.run.points.append(point)
            self._save()
            raise PointFailed(f"{title.strip()}: {point.error}")
        point = self._point(load, result, cpu, device, _sum_counters(after, before), wall)
        self.run.points.append(point)
        self._save()
        self.progress.say(_point_line(title, point))
        return point

    def _point(
        self,
        load: Load,
        result: DriveResult,
        cpu: Any,
        device: Any,
        engine: EngineCounters,
        wall: float,
    ) -> Point:
        plan = self.plan
        tps = result.tps
        dev_reads = device.read_iops if device else None
        dev_writes = device.write_iops if device else None

        def per_txn(value: float | None) -> float | None:
            return None if value is None or not tps else value / tps

        drift = drift_pct(result.per_second)
        trust = Trust(
            steady=is_steady(drift),
            slope_pct=drift,
            read_ops=round((dev_reads or 0) * plan.duration_s),
            write_ops=round((dev_writes or 0) * plan.duration_s),
        )
        trust.p99_trusted = result.commits >= 1000
        trust.p999_trusted = result.commits >= 10_000
        if trust.steady is False:
            trust.notes.append(
                f"not steady: transactions per second drifted {drift:+.0f}% over the last half"
            )
        reads_per_txn = per_txn(dev_reads)
        if reads_per_txn is not None and reads_per_txn < MEMORY_READS_PER_TXN:
            trust.notes.append(
                f"reads came from memory: {reads_per_txn:.3f} device reads per transaction; the storage was barely read"
            )
        point = Point(
            load=load,
            duration_s=plan.duration_s,
            warmup_s=plan.warmup_s,
            tps=tps,
            tpm=tps * 60,
            read_iops=dev_reads,
            write_iops=dev_writes,
            read_mbps=device.read_mbps if device else None,
            write_mbps=device.write_mbps if device else None,
            read_lat_ms=device_await(device.read_await_ms if device else None, trust.read_ops),
            write_lat_ms=device_await(device.write_await_ms if device else None, trust.write_ops),
            txn_lat_ms=result.latency.stats(),
            service_lat_ms=result.service.stats() if result.service else None,
            txn_types={name: h.stats() for name, h in result.per_type.items()},
            device=device,
            cpu=cpu,
            cache_hit_ratio=engine.hit_ratio,
            engine_io={
                "device_reads_per_txn": reads_per_txn,
                "device_writes_per_txn": per_txn(dev_writes),
                "engine_physical_reads_per_txn": per_txn(
                    _rate(engine.physical_reads, plan.duration_s)
                ),
                "engine_physical_writes_per_txn": per_txn(
                    _rate(engine.physical_writes, plan.duration_s)
                ),
                "storage_read_bytes": engine.storage_read_bytes,
                "storage_write_bytes": engine.storage_write_bytes,
            },
            workload_metrics=self.instances[0].workload.point_metrics(
                {name: h.count for name, h in result.per_type.items()},
                result.rollbacks,
                result.measured_s,
            )
            or None,
            client=_client(result, load.jobs, dev_reads, dev_writes),
            open_loop=_open_loop(result, load),
            errors=result.errors,
            retries=result.retries,
            error_messages=result.messages,
            trust=trust,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            wall_s=wall,
        )
        if point.open_loop and point.open_loop["finished_share"] < RATE_SHORTFALL:
            point.saturated = True
            point.saturation_reason = (
                f"finished {point.open_loop['finished_share']:.0%} of the transactions that "
                f"arrived at {load.value:,.0f}/s ({tps:,.0f}/s): the database fell behind"
            )
        return point

    def _rows(self, samples: list, result: DriveResult, load: Load, index: int) -> list[dict]:
        warmup = self.plan.warmup_s
        rows = []
        for sample in samples:
            t = sample["t_s"]
            second = round(t - warmup) - 1
            rows.append(
                {
                    **sample,
                    "run_id": self.run.run_id,
                    "point": index + 1,
                    "repeat": 1,
                    "load_kind": load.kind,
                    "load_value": load.value,
                    "phase": "measure" if t - 0.5 > warmup else "warmup",
                    "tps": result.per_second[second]
                    if 0 <= second < len(result.per_second)
                    else None,
                }
            )
        return rows


def _client(
    result: DriveResult, users: int, dev_reads: float | None, dev_writes: float | None
) -> dict[str, Any]:
    """What the load generator cost: CPU over the measured window per transaction and per
    device I/O, and resident memory per virtual user."""
    cpu = result.client_cpu_s
    ios = None if dev_reads is None else (dev_reads + (dev_writes or 0)) * result.measured_s
    return {
        "processes": result.processes,
        "users": users,
        "cpu_s": cpu,
        "cores": None if cpu is None or not result.measured_s else cpu / result.measured_s,
        "cpu_ms_per_txn": None if cpu is None or not result.commits else cpu * 1e3 / result.commits,
        "cpu_us_per_io": None if cpu is None or not ios else cpu * 1e6 / ios,
        "rss_per_user_kib": None
        if result.client_rss_per_user_bytes is None
        else result.client_rss_per_user_bytes / 1024,
    }


def _open_loop(result: DriveResult, load: Load) -> dict[str, Any] | None:
    """A rate point's arrivals: how many were due in the window and how many finished."""
    if result.arrivals is None:
        return None
    due = result.arrivals
    return {
        "rate_per_s": load.value,
        "arrivals": due,
        "finished": result.commits,
        "backlog": result.backlog,
        "finished_share": result.commits / due if due else 1.0,
        "latency_from": "intended start (arrival); arrivals still waiting at the end count at their age then",
    }


def device_await(mean_ms: float | None, ops: int) -> LatencyStats | None:
    """The device's average wait per I/O: diskstats gives a mean, not a distribution."""
    return None if mean_ms is None else LatencyStats(mean=mean_ms, count=ops)


def _rate(total: float | None, seconds: float) -> float | None:
    return None if total is None or seconds <= 0 else total / seconds


def _sum_counters(after: list[EngineCounters], before: list[EngineCounters]) -> EngineCounters:
    deltas = [a.minus(b) for a, b in zip(after, before, strict=True)]
    total = EngineCounters()
    for field_name in vars(total):
        values = [getattr(d, field_name) for d in deltas]
        setattr(total, field_name, None if any(v is None for v in values) else sum(values))
    return total


def _live(sampler: Sampler) -> float | None:
    sample = sampler.latest()
    if not sample or sample.get("dev_read_iops") is None:
        return None
    return (sample["dev_read_iops"] or 0) + (sample["dev_write_iops"] or 0)


def _point_line(title: str, point: Point) -> str:
    txn, read = point.txn_lat_ms, point.read_lat_ms
    parts = [
        f"  {title:<20}",
        f"{point.tps:>8,.0f} TPS",
        *(f"{v:,.0f} {k.upper()}" for k, v in (point.workload_metrics or {}).items() if k != "tpm"),
        f"p99 {txn.p99:.1f} ms" if txn and txn.p99 is not None else "",
        f"{point.iops:,.0f} dev IOPS" if point.read_iops is not None else "",
        f"rd {read.mean:.2f} ms" if read and read.mean is not None else "",
        f"CPU {point.cpu.util_pct:.0f}%" if point.cpu and point.cpu.util_pct is not None else "",
        f"errors {point.errors}" if point.errors else "",
        "SATURATED" if point.saturated else "",
    ]
    return "  ".join(p for p in parts if p)
