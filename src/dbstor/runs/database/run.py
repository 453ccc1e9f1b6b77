"""One database run: a real database (engine x workload) on a target over a users,
instances or rate series, measured with the storage and the host, written to its folder.

Lifecycle: create and load every instance the series needs (through the database worker)
-> for each point describe it, let the worker measure it (virtual users, telemetry and
engine counters beside them) and save the point -> record per-object I/O for the placement
advisor -> stop the engines and remove what they created unless kept. A server that dies
mid-point fails that point; finished points stay.
"""

from __future__ import annotations

import os
import time
from typing import Any

from dbstor.analysis.bursts import write_bursts
from dbstor.analysis.histogram import merge_all
from dbstor.drivers.processes import AUTO, processes_for
from dbstor.errors import PointFailed
from dbstor.results.model import Load, Point, Run, run_status
from dbstor.runs.auto_search import AUTO_MAX_INSTANCES, AUTO_MAX_USERS, PeakSearch, load_fractions
from dbstor.runs.database import saturation
from dbstor.runs.database.memory_cap import load_words, needed_bytes, oom_killed, oom_message
from dbstor.runs.database.plan import DatabaseRunner, DbRunPlan, instance_setup
from dbstor.runs.database.point import DbPoint, TxnOutcome
from dbstor.runs.database.summary import database_point, point_line
from dbstor.runs.database.worker import DatabaseWorker
from dbstor.runs.events import point_events
from dbstor.runs.measuring import add_host_views
from dbstor.runs.pauses import PauseWatch, mark_paused
from dbstor.runs.progress import live_device_iops
from dbstor.runs.repeats import combine_repeats
from dbstor.runs.telemetry import measured_window, storage_text
from dbstor.telemetry.roles import role_figures, roles_line, sampled_devices, target_roles


def cores() -> int:
    """The host's cores (the CPU shares and the run queue are of these)."""
    return os.cpu_count() or 1


class CapKilled(Exception):
    """dbstor's own memory cap killed the point: it is recorded, later points are skipped."""

    def __init__(self, point: Point):
        super().__init__(point.error)
        self.point = point


class DatabaseRun(DatabaseRunner):
    killed_by_cap: str | None = None  # the memory cap killed a point: later ones are skipped
    held: list[tuple[int, int]]  # (users, memory the capped processes held) per point

    def setup(self) -> None:
        self.held = []
        self.worker = DatabaseWorker(self.safety, say=self.progress.say)
        spec = self.plan.database
        self.metrics = self.workload_cls(self.scale, seed=spec.seed, options=spec.options)

    def workload_header(self) -> dict[str, Any]:
        return {**super().workload_header(), "mix": dict(self.workload_cls.mix)}

    # --- lifecycle -----------------------------------------------------------------

    def execute(self) -> Run:
        spec = self.plan.database
        self.begin()
        series_started = None
        try:
            with run_status(self.run):
                with self.phases.phase("create_s"):  # the engines created and loaded
                    self._create_instances(1 if spec.series.auto else None)
                series_started = time.monotonic()
                skipped = []
                for value in self._auto() if spec.series.auto else spec.series.values:
                    if self.killed_by_cap:
                        skipped.append(spec.series.label(value))
                        continue
                    self._measure(value)
                if skipped:
                    line = f"skipped {', '.join(skipped)}: {self.killed_by_cap}"
                    self.run.notes.append(line)
                    self.progress.say(line)
        finally:
            series_s = time.monotonic() - series_started if series_started else 0.0
            try:
                self._record_objects()
                self.folder.save()
            finally:
                started = time.monotonic()
                notes = self.worker.cleanup()["notes"]  # e.g. a schema it could not drop
                self.run.notes.extend(notes)
                for note in notes:  # what was left behind is said, even with --quiet
                    self.progress.tell(f"warning: {note}")
                self.cleaned_up(time.monotonic() - started, series_s)
                self.folder.save()
        return self.run

    def _auto(self) -> list[int]:
        """users or instances "auto": double the load from 1 (the search's points kept as
        such), until throughput stops rising or the latency limit is crossed; -> the loads
        of the main series, at fractions of the best load within the limit."""
        series, slo = self.plan.database.series, self.plan.slo
        most = AUTO_MAX_INSTANCES if series.kind == "instances" else AUTO_MAX_USERS
        search = PeakSearch(slo.metric, slo.limit_ms, most)
        while search.more():
            if series.kind == "instances":
                self._create_instances(search.load)
            search.add(self._measure(search.load, "discovery"))
        best = search.best
        if best is None:
            line = (
                f"auto: no load within the SLO to measure fractions of: {search.stop}; the "
                "search's points are kept"
            )
            self.run.notes.append(line)
            self.progress.say(line)
            return []
        found = int(best.load.value)
        line = (
            f"auto: the best within the SLO was {series.label(found)} "
            f"({best.tps or 0:,.0f} TPS); the search stopped: {search.stop}; measuring at "
            "fractions of it"
        )
        self.run.notes.append(line)
        self.progress.say(line)
        return load_fractions(found)

    def _create_instances(self, upto: int | None = None) -> None:
        """Create and load the instances the series needs (`upto`: that many, for a search
        that adds them as it goes), after those already made."""
        spec = self.plan.database
        series = spec.series
        if upto is not None:
            count = upto if series.kind == "instances" else 1
        else:
            count = max(series.values) if series.kind == "instances" else 1
        if series.auto:
            users = series.users if series.kind == "instances" else AUTO_MAX_USERS
        else:
            users = series.users if series.kind in ("instances", "rate") else max(series.values)
        for n in range(len(self.worker.instances), count):
            self.progress.say(
                f"creating {self.engine_cls.title} instance {n + 1}/{count} and loading "
                f"{spec.workload} at {self.scale:,} {self.workload_cls.scale_unit}"
            )
            facts = self.worker.prepare(instance_setup(self.plan, self.scale, n, users))
            if n == 0:
                self.run.engine = facts["engine"]
                self._say_uncapped(facts["engine"])
                self.run.target["paths"] = facts["data_paths"] | {
                    r: [str(p) for p in ps]
                    for r, ps in self.plan.target.roles.items()
                    if r != "data"
                }
                self.run.workload = {
                    **facts["workload"],
                    "series": self.run.workload["series"],
                    "think_time_ms": spec.think_time_ms,
                    # auto: chosen per point (each point's client.processes); here the most
                    "client_processes": spec.client_processes
                    or processes_for(
                        users * count, AUTO, spec.dsn is not None, threaded=self.threaded()
                    ),
                    **({"client_processes_auto": True} if spec.client_processes == AUTO else {}),
                }
            self._record_devices(facts.get("devices") or [], facts.get("role_devices"))
            load = facts["load"]
            self.run.workload.setdefault("load", []).append(
                {
                    "instance": n,
                    "rows": load["rows"],
                    "seconds": round(load["seconds"], 2),
                    "rows_per_s": round(load["rows_per_s"]),
                    "bytes": load["bytes"],
                }
            )
            self.progress.say(
                f"  loaded {load['rows']:,} rows in {load['seconds']:.1f} s ({load['rows_per_s']:,.0f} rows/s)"
            )
            self.folder.save()

    def _record_devices(self, devices: list[str], by_role: dict[str, list[str]] | None) -> None:
        """On a cluster each host's worker names the devices under its data path and every
        role's as host:device; those, not the coordinator's own (begin()), are the run's."""
        if not any(":" in d for d in devices):
            return
        self.role_devices = {r: list(ds) for r, ds in (by_role or {}).items()}
        if self.role_devices:  # the mounts are the hosts', not read here
            roles = self.plan.target.roles
            self.run.target["roles"] = target_roles(roles, self.role_devices, lambda _: None)
        else:
            self.run.target.pop("roles", None)
        named = str(self.run.target.get("device") or "").split(",")
        hosts_own = [d for d in named if ":" in d]
        self.run.target["device"] = ",".join(hosts_own + [d for d in devices if d not in hosts_own])

    def _say_uncapped(self, engine: dict[str, Any]) -> None:
        """One line when --memory-limit was asked for and no cap could be applied."""
        cap = str(engine.get("memory_cap") or "")
        if self.plan.database.memory_limit_bytes is not None and cap.startswith("none"):
            line = f"memory limit not applied ({cap[6:]}): the run goes on uncapped"
            self.progress.say(line)
            self.run.notes.append(line)

    def _record_objects(self) -> None:
        if not self.worker.instances:
            return
        try:
            objects = self.worker.objects()
        except Exception as exc:  # the server may be gone; the points matter more
            self.run.notes.append(f"per-object I/O could not be read: {exc}")
            return
        self.run.engine_stats = {
            "objects": objects,
            "instance": 0,
            "cumulative_since": "instance start",
        }
        try:
            paths = self.worker.path_layout()  # a cluster's hosts: none yet
        except OSError as exc:
            self.run.notes.append(f"the files on each path could not be counted: {exc}")
            paths = None
        if paths:
            self.run.engine_stats["paths"] = paths

    # --- points --------------------------------------------------------------------

    def threaded(self) -> bool:
        """Whether the users keep a thread each (else one loop thread drives them)."""
        spec = self.plan.database
        closed = not spec.think_time_ms and spec.series.kind != "rate"
        return not (closed and self.metrics.submits(self.engine_cls.dialect))

    def describe_point(self, value: int, index: int) -> DbPoint:
        """The plain description of the point at this load value."""
        spec, plan = self.plan.database, self.plan
        series = spec.series
        return DbPoint(
            index=index,
            instances=value if series.kind == "instances" else 1,
            users=series.users if series.kind in ("instances", "rate") else value,
            warmup_s=plan.warmup_s,
            duration_s=plan.duration_s,
            client_processes=processes_for(
                (series.users if series.kind in ("instances", "rate") else value)
                * (value if series.kind == "instances" else 1),
                spec.client_processes,
                external=spec.dsn is not None,
                threaded=self.threaded(),
            ),
            think_time_ms=spec.think_time_ms,
            seed=spec.seed,
            rate=float(value) if series.kind == "rate" else None,
            devices=tuple(sampled_devices(self.devices, self.role_devices)),
            events=tuple(plan.study.get("events", ())),
            event_paths=tuple(str(p) for p in plan.target.paths),
            max_s=plan.max_duration_s,
        )

    def _measure(self, value: int, series_name: str = "main") -> Point:
        plan, series = self.plan, self.plan.database.series
        index = len(self.run.points)
        point = self.describe_point(value, index)
        load = Load(kind=series.kind, value=value, jobs=point.users * point.instances)
        title = (
            f"[{index + 1}] {series.label(value)}"
            + (f" x {point.users} users" if series.kind in ("instances", "rate") else "")
            + (" (search)" if series_name == "discovery" else "")
        )
        if self.telemetry:
            self.telemetry.start_point(
                index + 1,
                {load.kind: load.value, "users": load.jobs},
                lambda: live_device_iops(self.worker.latest()),
                self.worker.running,  # the users' tallies, live
            )
        try:
            measured = [self._repeat(point, load, title, r) for r in range(plan.repeats)]
        except CapKilled as killed:
            return killed.point
        outcomes = [outcome for outcome, _ in measured]
        repeats = [self._summarise(outcome, load) for outcome in outcomes]
        for each in repeats:
            each.series = series_name
        done = combine_repeats(
            repeats,
            [o.drive.latency for o in outcomes],
            [o.drive.per_type for o in outcomes],
        )
        add_host_views(done, self.worker, load, plan.duration_s, plan.warmup_s)
        previous = next((p for p in reversed(self.run.points) if p.series == series_name), None)
        saturation.apply(done, previous, cores())
        merged = merge_all(o.drive.latency for o in outcomes)
        self.folder.keep_histogram(index + 1, merged.to_dict() | {"unit": "ns", "of": "txn"})
        mark_paused(done, max((gap for _, gap in measured if gap), default=None))
        done.write_bursts = write_bursts(outcomes[0].samples, plan.warmup_s)
        done.events = point_events(outcomes, plan.warmup_s, self.folder, self.progress.say, True)
        if self.telemetry:
            windows = [
                measured_window(o.started_at, window_warmup(o, plan), plan.duration_s, o.samples)
                for o in outcomes
            ]
            self.telemetry.finish_point(index + 1, done, windows, self.plan.database.engine)
        self.run.points.append(done)
        self.folder.save()
        self.progress.say(point_line(title, done) + storage_text(done) + roles_line(done.roles))
        return done

    def _repeat(
        self, point: DbPoint, load: Load, title: str, repeat: int
    ) -> tuple[TxnOutcome, float | None]:
        """One measurement of the point and how long dbstor stood still during it (None:
        not at all); a fatal error fails the point (finished points stay)."""
        plan = self.plan
        with (
            self.progress.point(
                title + (f" repeat {repeat + 1}" if plan.repeats > 1 else ""),
                plan.duration_s + plan.warmup_s,
                lambda: live_device_iops(self.worker.latest()),
            ),
            PauseWatch() as watch,
        ):
            outcome = TxnOutcome.from_dict(self.worker.measure(point.to_dict()))
            paused = watch.stop()
        self.loaded(outcome.started_at, outcome.wall_s)
        self.folder.add_samples(self._rows(outcome, load, point.index, repeat))
        if outcome.memory_cap:
            self.run.engine["memory_cap"] = outcome.memory_cap
        result = outcome.drive
        if result.fatal:
            why = (
                ""
                if outcome.alive
                else f"the {self.engine_cls.title} server stopped during the point; "
            )
            if oom_killed(outcome.oom):
                needed = needed_bytes(self.held, load.jobs)
                self.killed_by_cap = oom_message(outcome.oom, load_words(load, point.users), needed)
                why = f"{self.engine_cls.title} was {self.killed_by_cap}; "
            failed = Point(
                load=load,
                duration_s=plan.duration_s,
                warmup_s=plan.warmup_s,
                status="failed",
                error=f"{why}{result.fatal}",
            )
            self.run.points.append(failed)
            self.folder.save()
            if self.killed_by_cap:
                self.progress.say(f"  {title.strip()}: {failed.error}")
                raise CapKilled(failed)
            raise PointFailed(f"{title.strip()}: {failed.error}")
        if outcome.oom and outcome.oom.get("held"):
            self.held.append((load.jobs, int(outcome.oom["held"])))
        return outcome, paused

    def _summarise(self, outcome: TxnOutcome, load: Load) -> Point:
        result, plan = outcome.drive, self.plan
        counts = {name: h.count for name, h in result.per_type.items()}
        metrics = self.metrics.point_metrics(
            counts, result.rollbacks, result.measured_s, latency_ms=result.latency.stats()
        )
        done = database_point(load, outcome, plan.duration_s, plan.warmup_s, metrics)
        done.roles = role_figures(self.role_devices, outcome.devices or {})
        return done

    def _rows(self, outcome: TxnOutcome, load: Load, index: int, repeat: int) -> list[dict]:
        warmup, per_second = window_warmup(outcome, self.plan), outcome.drive.per_second
        latency = outcome.drive.per_second_mean_ms()
        p99 = outcome.drive.per_second_p99_ms() or []
        rows = []
        for sample in outcome.samples:
            t = sample["t_s"]
            second = round(t - warmup) - 1
            rows.append(
                {
                    **sample,
                    "run_id": self.run.run_id,
                    "point": index + 1,
                    "repeat": repeat + 1,
                    "load_kind": load.kind,
                    "load_value": load.value,
                    "phase": "measure" if t - 0.5 > warmup else "warmup",
                    "tps": per_second[second] if 0 <= second < len(per_second) else None,
                    "txn_lat_mean_ms": latency[second] if 0 <= second < len(latency) else None,
                    "txn_lat_p99_ms": p99[second] if 0 <= second < len(p99) else None,
                }
            )
        return rows


def window_warmup(outcome: TxnOutcome, plan: DbRunPlan) -> float:
    """The warm-up before the outcome's measured window: a later round's settle when the
    point was held until steady (runs/database/steady.py), else the plan's."""
    return plan.warmup_s if outcome.window_warmup_s is None else outcome.window_warmup_s
