"""One query-workload run (dss, TPC-H-like): a real database on a target, its selected
queries run as power and throughput runs, every query measured with the storage and the
host, written to its run folder.

Lifecycle: create the engine and load the data (rows/s and MB/s recorded) -> warm: one
unmeasured power run fills the caches; cold: before every point the engine restarts and
its files are dropped from the host's page cache -> for each streams value N a point:
N == 1 is a power run (stream 0, each query once, in order), N > 1 a throughput run (N
streams at once, each on its own connection, streams 1..N in their own query order) ->
stop the engine and remove what it created unless kept.

Each query records its elapsed time, rows, status (ok, failed, timeout) and what the
device under the target and the host's CPU did during it. results.json is rewritten after
every query, so a killed run keeps the queries that finished. A query that fails or runs
past the query timeout is recorded and the run goes on; a server that dies fails the
point, and the points before it stay.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dbstor.analysis.queries import elapsed_stats, peak_of_queries, point_metrics
from dbstor.db_sweep import DatabaseRunner, device_await
from dbstor.drivers.streams import StreamsOutcome, StreamsRun, one_line
from dbstor.engines.base import Engine, EngineSettings
from dbstor.errors import PointFailed, UserError
from dbstor.results.model import Load, Point, Run, Trust, run_status
from dbstor.results.store import append_samples, save_run
from dbstor.study.model import DatabaseSpec
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.sampler import Sampler
from dbstor.telemetry.window import WindowCounters
from dbstor.workloads.registry import workload_class

MEMORY_SHARE = 0.1  # a point whose device read less than this share of the database: memory


# --- what a query workload is ------------------------------------------------------------


def is_query_workload(cls: type) -> bool:
    """A workload of queries in streams (dss), not of transactions by virtual users."""
    return callable(getattr(cls, "stream", None)) and callable(getattr(cls, "run_query", None))


def runs_queries(spec: DatabaseSpec) -> bool:
    """Whether this database spec is run by DssSweep (a streams series)."""
    return spec.series.kind == "streams"


def check_query_spec(spec: DatabaseSpec) -> None:
    """Everything about a query run that can be checked before anything is created: the
    load series, the timeout, the workload's scale, options and query names (the workload
    raises UserError), and its generator when the workload offers a preflight()."""
    cls = workload_class(spec.workload)
    query = is_query_workload(cls)
    if query and spec.series.kind != "streams":
        raise UserError(
            f"workload {spec.workload} runs queries: give its load as query streams "
            f"(--streams 1,2,4 or streams = [1, 2, 4]), not {spec.series.kind}"
        )
    if not query and spec.series.kind == "streams":
        raise UserError(
            f"streams are for query workloads (dss); workload {spec.workload} takes "
            "--users, --instances or --rate"
        )
    if not query:
        return
    if not spec.series.values or any(v < 1 for v in spec.series.values):
        raise UserError("streams: give one or more counts of 1 or more, e.g. --streams 1,2,4")
    if spec.query_timeout_s is not None and spec.query_timeout_s <= 0:
        raise UserError("--query-timeout: must be above zero, e.g. 10min")
    scale = spec.scale if spec.scale is not None else cls.default_scale
    workload: Any = cls(scale, seed=spec.seed, options=spec.options)
    if not workload.query_set():
        raise UserError(f"workload {spec.workload}: no queries selected; check --queries")
    check = getattr(workload, "preflight", None)
    if callable(check):
        check()


def _files_bytes(paths: Sequence[Path]) -> int | None:
    total, found = 0, False
    for path in paths:
        walker = os.walk(path) if path.is_dir() else [(str(path.parent), [], [path.name])]
        for root, _, names in walker:
            for name in names:
                with contextlib.suppress(OSError):
                    total += Path(root, name).lstat().st_size
                    found = True
    return total if found else None


def _point_title(index: int, streams: int, cache: str) -> str:
    what = "power run" if streams == 1 else f"throughput run, {streams} streams"
    return f"[{index + 1}] {what} ({cache})"


# --- the run -----------------------------------------------------------------------------


class DssSweep(DatabaseRunner):
    """A query run: same plan, folder, safety, progress and on_point as DbSweep."""

    def setup(self) -> None:
        self.cache = "cold" if self.plan.database.cold else "warm"
        self.engine: Engine | None = None
        self.workload: Any = None
        self.counters = WindowCounters()
        self.database_bytes: int | None = None
        self._lock = threading.Lock()  # results.json is written from the stream threads
        self._noted: set[str] = set()

    def workload_header(self) -> dict[str, Any]:
        header = {**super().workload_header(), "kind": "queries", "cache": self.cache}
        return header | {"query_timeout_s": self.plan.database.query_timeout_s}

    def slo(self) -> dict[str, Any]:
        return {"metric": None, "limit_ms": None}  # no latency limit: compare elapsed time

    # --- lifecycle -----------------------------------------------------------------

    def execute(self) -> Run:
        spec = self.plan.database
        data = self.plan.target.paths[0] if self.plan.target.paths else None
        self.devices = devices_for_path(data) if data and spec.dsn is None else []
        self.counters = WindowCounters(self.devices)
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
                self._create()
                if spec.cold:
                    self.progress.say(
                        "cold: before each point the engine restarts and its files are "
                        "dropped from the page cache"
                    )
                else:
                    self._warm_up()
                for value in spec.series.values:
                    self._measure(value)
        finally:
            try:
                self._save()
            finally:
                self._stop()
        return self.run

    def _save(self, notify: bool = True) -> None:
        with self._lock:
            self.run.peak = peak_of_queries(self.run.points)
            self.run.knee = None  # no latency limit applies to a query run
            save_run(self.folder, self.run)
        if notify:
            self.on_point(self.run)

    def _note(self, text: str) -> None:
        if text not in self._noted:
            self._noted.add(text)
            self.run.notes.append(text)

    def _settings(self) -> EngineSettings:
        spec = self.plan.database
        return EngineSettings(
            paths=self.plan.target.roles,
            dsn=spec.dsn,
            instance=0,
            buffer_bytes=spec.buffer_bytes,
            memory_limit_bytes=spec.memory_limit_bytes,
            keep=self.safety.keep,
            allow_overwrite=self.safety.allow_overwrite,
        )

    def _create(self) -> None:
        spec = self.plan.database
        workload = self.workload_cls(self.scale, seed=spec.seed, options=spec.options)
        chosen = workload.query_set()  # bad query names fail here, before anything exists
        engine = self.engine_cls(self._settings())
        self.progress.say(
            f"creating {self.engine_cls.title} and loading {spec.workload} at scale "
            f"{self.scale:g} ({', '.join(q.name for q in chosen)})"
        )
        self.engine, self.workload = engine, workload
        engine.start()
        report = workload.create(engine, self.progress.say)
        self.database_bytes = _files_bytes(engine.cache_paths()) if engine.managed else None
        self.run.engine = engine.describe()
        self.run.target["paths"] = engine.data_paths() | {
            r: [str(p) for p in ps] for r, ps in self.plan.target.roles.items() if r != "data"
        }
        self.run.workload = {
            **_describe(workload),
            **{k: v for k, v in self.run.workload.items() if k != "scale"},
            "queries": [
                {
                    "number": q.number,
                    "name": q.name,
                    "title": q.title,
                    "tr3476": q.tr3476,
                    "tr3476_code": getattr(q, "tr3476_code", None),
                }
                for q in chosen
            ],
            "database_bytes": self.database_bytes,
        }
        mbps = report.bytes / report.seconds / 1e6 if report.bytes and report.seconds > 0 else None
        self.run.workload["load"] = [
            {
                "instance": 0,
                "rows": report.rows,
                "seconds": round(report.seconds, 2),
                "rows_per_s": round(report.rows_per_s),
                "bytes": report.bytes,
                "mb_per_s": round(mbps, 2) if mbps is not None else None,
                "tables": dict(report.tables),
            }
        ]
        speed = f", {mbps:,.1f} MB/s" if mbps is not None else ""
        self.progress.say(
            f"  loaded {report.rows:,} rows in {report.seconds:.1f} s "
            f"({report.rows_per_s:,.0f} rows/s{speed})"
        )
        self._save()

    def _stop(self) -> None:
        if self.engine is None:
            return
        try:
            self.engine.stop()
        except Exception as exc:  # the points matter more than a clean stop
            self.run.notes.append(f"stopping {self.engine.title} failed: {one_line(exc)}")

    # --- warm and cold -------------------------------------------------------------

    def _streams(self, streams: int) -> dict[int, list[tuple[Any, str]]]:
        assert self.engine is not None
        numbers = [0] if streams == 1 else list(range(1, streams + 1))
        return {n: list(self.workload.stream(n, self.engine.dialect)) for n in numbers}

    def _warm_up(self) -> None:
        """One unmeasured power run, so that the first point meets the caches the later
        ones do (warm)."""
        assert self.engine is not None
        queries = self._streams(1)
        self.progress.say(
            f"warm-up: one power run of {len(queries[0])} queries fills the caches (not measured)"
        )
        streams = StreamsRun(
            self.engine,
            queries,
            self.workload.run_query,
            self.counters,
            self.plan.database.query_timeout_s,
            "warm-up",
            lambda record: None,
        )
        outcome = streams.run()
        bad = [r for r in outcome.records if r["status"] != "ok"]
        self.run.workload["warmup"] = {
            "queries": len(outcome.records),
            "not_ok": len(bad),
            "seconds": round(outcome.wall_s, 3),
        }
        if outcome.fatal:
            raise PointFailed(f"warm-up: {outcome.fatal}")
        if bad:
            self._note(
                f"warm-up: {len(bad)} of {len(outcome.records)} queries did not finish "
                f"(first: {bad[0]['name']} {bad[0]['status']}: {bad[0]['error']})"
            )
        self._save(notify=False)

    def _make_cold(self) -> str:
        """Restart the engine and drop its files from the page cache; the point's note."""
        assert self.engine is not None
        engine = self.engine
        restarted = True
        try:
            engine.restart()
        except NotImplementedError as exc:
            restarted = False
            self._note(f"cold: {exc}; the engine's own cache was not emptied before points")
        except Exception as exc:  # the server did not come back: no later point can run
            raise PointFailed(
                f"cold: {engine.title} did not come back after a restart: {one_line(exc)}"
            ) from None
        paths = engine.cache_paths()
        if not paths:
            self._note(
                "cold: the database's files are not on this host (external server); its page "
                "cache was not dropped"
            )
            return "cold: no files on this host to drop from the page cache"
        dropped = engine.drop_cache()
        if dropped.note:
            self._note(f"cold: {dropped.note}")
        what = f"{engine.title} restarted" if restarted else f"{engine.title} not restarted"
        return (
            f"cold: {what}, {dropped.files} files ({dropped.bytes / 1e6:,.1f} MB) dropped from "
            "the page cache before the point"
        )

    # --- points --------------------------------------------------------------------

    def _measure(self, streams: int) -> Point:
        assert self.engine is not None
        spec = self.plan.database
        index = len(self.run.points)
        title = _point_title(index, streams, self.cache)
        load = Load(kind="streams", value=streams, jobs=streams)
        try:
            cold_note = self._make_cold() if spec.cold else None
        except PointFailed as exc:
            with self._lock:
                self.run.points.append(
                    Point(load=load, duration_s=0.0, status="failed", error=str(exc), queries=[])
                )
            self._save()
            raise PointFailed(f"{title}: {exc}") from None
        queries = self._streams(streams)
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        partial = Point(
            load=load, duration_s=0.0, status="running", queries=[], started_at=started_at
        )
        with self._lock:
            self.run.points.append(partial)
        self.progress.say(title)

        def on_query(record: dict[str, Any]) -> None:
            assert partial.queries is not None
            partial.queries.append(record)
            self.progress.say(_query_line(record, streams))
            self._save(notify=False)

        before = self.engine.counters()
        sampler = Sampler(self.devices)
        sampler.start()
        runner = StreamsRun(
            self.engine,
            queries,
            self.workload.run_query,
            self.counters,
            spec.query_timeout_s,
            self.cache,
            on_query,
        )
        try:
            outcome = runner.run()
        except KeyboardInterrupt:
            sampler.stop()
            done = sum(r["status"] == "ok" for r in runner.outcome.records)
            planned = sum(len(q) for q in queries.values())
            self._replace(
                index,
                self._failed(
                    partial, f"interrupted (Ctrl-C) after {done} of {planned} queries", runner
                ),
            )
            raise
        finally:
            samples = sampler.stop()
        append_samples(self.folder, self._rows(samples, load, index))
        if outcome.fatal:
            point = self._failed(partial, outcome.fatal, runner)
            self._replace(index, point)
            self._save()
            raise PointFailed(f"{title}: {point.error}")
        after = self.engine.counters()
        cpu, device = sampler.summarise(samples)
        point = self._point(load, outcome, cpu, device, after.minus(before), started_at)
        if cold_note:
            point.trust.notes.insert(0, cold_note)
        self._replace(index, point)
        self._save()
        self.progress.say(_point_line(title, point))
        return point

    def _replace(self, index: int, point: Point) -> None:
        with self._lock:
            self.run.points[index] = point

    def _failed(self, partial: Point, error: str, runner: StreamsRun) -> Point:
        records = sorted(runner.outcome.records, key=lambda r: (r["stream"], r["position"]))
        return Point(
            load=partial.load,
            duration_s=runner.outcome.wall_s,
            status="failed",
            error=error,
            queries=records,
            errors=sum(r["status"] != "ok" for r in records),
            started_at=partial.started_at,
            wall_s=runner.outcome.wall_s,
        )

    def _point(
        self,
        load: Load,
        outcome: StreamsOutcome,
        cpu: Any,
        device: Any,
        engine: Any,
        started_at: str,
    ) -> Point:
        records = sorted(outcome.records, key=lambda r: (r["stream"], r["position"]))
        metrics = point_metrics(records, outcome.stream_s, int(load.value))
        ok = [r for r in records if r["status"] == "ok"]
        total = metrics["total_elapsed_s"]
        wall = outcome.wall_s
        if device is not None and device.read_mbps is not None:
            metrics["read_mb"] = device.read_mbps * wall
        trust = Trust(
            read_ops=round((device.read_iops or 0) * wall) if device else 0,
            write_ops=round((device.write_iops or 0) * wall) if device else 0,
        )
        memory = self._memory_note(device, wall)
        if memory:
            trust.notes.append(memory)
        bad = [r for r in records if r["status"] != "ok"]
        messages = list(dict.fromkeys(f"{r['name']} {r['status']}: {r['error']}" for r in bad))
        return Point(
            load=load,
            duration_s=wall,
            warmup_s=0.0,
            tps=len(ok) / total if total > 0 else None,
            read_iops=device.read_iops if device else None,
            write_iops=device.write_iops if device else None,
            read_mbps=device.read_mbps if device else None,
            write_mbps=device.write_mbps if device else None,
            read_lat_ms=device_await(device.read_await_ms if device else None, trust.read_ops),
            write_lat_ms=device_await(device.write_await_ms if device else None, trust.write_ops),
            txn_lat_ms=elapsed_stats([r["elapsed_s"] for r in ok]),
            device=device,
            cpu=cpu,
            cache_hit_ratio=engine.hit_ratio,
            engine_io={
                "storage_read_bytes": engine.storage_read_bytes,
                "storage_write_bytes": engine.storage_write_bytes,
            },
            workload_metrics=metrics,
            queries=records,
            errors=len(bad),
            error_messages=messages[:10],
            trust=trust,
            started_at=started_at,
            wall_s=wall,
        )

    def _memory_note(self, device: Any, wall: float) -> str | None:
        """Say when the device read far less than the database: memory served the reads."""
        if device is None or device.read_mbps is None or not self.database_bytes:
            return None
        read = device.read_mbps * 1e6 * wall
        if read >= MEMORY_SHARE * self.database_bytes:
            return None
        share = read / self.database_bytes
        return (
            f"memory served most reads: the device read {read / 1e6:,.1f} MB during the point, "
            f"{share:.0%} of the {self.database_bytes / 1e6:,.1f} MB database"
            + ("" if self.cache == "cold" else " (warm: expected; --cold reads from the storage)")
        )

    def _rows(self, samples: list, load: Load, index: int) -> list[dict]:
        return [
            {
                **sample,
                "run_id": self.run.run_id,
                "point": index + 1,
                "repeat": 1,
                "load_kind": load.kind,
                "load_value": load.value,
                "phase": "measure",
            }
            for sample in samples
        ]


def _describe(workload: Any) -> dict[str, Any]:
    try:
        return dict(workload.describe())
    except Exception:  # a workload without a transaction mix describes itself partly
        return {"name": getattr(workload, "name", None), "scale": getattr(workload, "scale", None)}


def _query_line(record: dict[str, Any], streams: int) -> str:
    who = f"s{record['stream']} " if streams > 1 else ""
    name = str(record.get("tr3476") or record.get("title") or "")
    mbps = record.get("read_mbps")
    parts = [
        f"    {who}{record['name']:<4} {name[:34]:<34}",
        f"{record['elapsed_s']:9.3f} s",
        f"{mbps:8.1f} MB/s read" if mbps is not None else "",
        "" if record["status"] == "ok" else f"{record['status'].upper()}: {record['error']}",
    ]
    return "  ".join(p for p in parts if p)


def _point_line(title: str, point: Point) -> str:
    metrics = point.workload_metrics or {}
    bad = int(metrics.get("queries_failed", 0) + metrics.get("queries_timeout", 0))
    parts = [
        f"  {title}:",
        f"total {metrics.get('total_elapsed_s', 0.0):,.2f} s",
        f"{metrics['queries_per_hour']:,.0f} queries/h" if "queries_per_hour" in metrics else "",
        f"geomean {metrics['geomean_s']:.3g} s" if "geomean_s" in metrics else "",
        f"read {point.read_mbps:,.1f} MB/s" if point.read_mbps is not None else "",
        f"CPU {point.cpu.util_pct:.0f}%" if point.cpu and point.cpu.util_pct is not None else "",
        f"{bad} not ok" if bad else "",
    ]
    return "  ".join(p for p in parts if p)
