"""The query worker: creates and loads one database, warms or chills its caches and
measures query points against it on the host it runs on, taking and giving plain dicts
(see runs/worker.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dbstor.drivers.streams import one_line
from dbstor.engines.base import Engine, EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.runs.database.worker import dsn_of, load_or_say_full, loading
from dbstor.runs.queries.point import QueryOutcome, QueryPoint, measure_query_point
from dbstor.runs.queries.prepare import (
    describe_workload,
    files_bytes,
    make_cold,
    stream_queries,
    warm_up,
)
from dbstor.runs.queries.steady import measure_until_steady
from dbstor.telemetry.sampler import Sampler
from dbstor.telemetry.window import WindowCounters
from dbstor.testfiles import Safety
from dbstor.workloads.registry import workload_class


class QueryWorker:
    kind = "queries"
    hosts: tuple[str, ...] = ()  # this host

    def __init__(self, safety: Safety, say: Callable[[str], None] | None = None):
        self.safety = safety
        self.say = say or (lambda message: None)
        self.engine: Engine | None = None
        self.workload: Any = None
        self.counters = WindowCounters()
        self.sampler: Sampler | None = None
        self.timeout_s: float | None = None
        self.cold_done: tuple[int, tuple[Any, list[str]]] | None = None  # ready_point()'s

    def plan(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Nothing to decide before prepare(): the engine lays out its own files."""
        return {}

    def path_layout(self) -> list[dict[str, Any]]:
        """None: only a database run records what sits on each path."""
        return []

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Create, start and load the database (setup as runs.database.plan.instance_setup,
        plus devices and query_timeout_s): the engine, data paths, workload, chosen queries,
        load report and the database's size on this host."""
        self.counters = WindowCounters(setup.get("devices", ()))
        self.timeout_s = setup.get("query_timeout_s")
        workload = workload_class(setup["workload"])(
            setup["scale"], seed=setup["seed"], options=setup["options"]
        )
        chosen = workload.query_set()  # bad query names fail here, before anything exists
        settings = EngineSettings(
            paths={role: [Path(p) for p in paths] for role, paths in setup["paths"].items()},
            dsn=dsn_of(setup),
            instance=0,
            buffer_bytes=setup.get("buffer_bytes"),
            memory_limit_bytes=setup.get("memory_limit_bytes"),
            keep=self.safety.keep,
            allow_overwrite=self.safety.allow_overwrite,
            place=dict(setup.get("place") or {}),
        )
        engine = engine_class(setup["engine"])(settings)
        self.say(
            f"creating {engine.title} and loading {setup['workload']} at scale "
            f"{setup['scale']:g} ({', '.join(q.name for q in chosen)})"
        )
        self.engine, self.workload = engine, workload
        with loading(engine):  # the memory cap binds from the first point
            engine.start()
            report = load_or_say_full(workload, engine, self.say)
        return {
            "engine": engine.describe(),
            "data_paths": engine.data_paths(),
            "workload": describe_workload(workload),
            "queries": [
                {
                    "number": q.number,
                    "name": q.name,
                    "title": q.title,
                    "tr3476": q.tr3476,
                    "tr3476_code": q.tr3476_code,
                }
                for q in chosen
            ],
            "database_bytes": files_bytes(engine.cache_paths()) if engine.managed else None,
            "load": {
                "rows": report.rows,
                "seconds": report.seconds,
                "rows_per_s": report.rows_per_s,
                "bytes": report.bytes,
                "tables": dict(report.tables),
            },
        }

    def count_queries(self, streams: int) -> int:
        assert self.engine is not None
        return sum(len(q) for q in stream_queries(self.workload, self.engine, streams).values())

    def warm_up(self) -> dict[str, Any]:
        """One unmeasured power run (see prepare.warm_up)."""
        assert self.engine is not None
        return warm_up(self.engine, self.workload, self.counters, self.timeout_s)

    def measure(
        self,
        point: dict[str, Any],
        on_record: Callable[[dict[str, Any]], None] | None = None,
        on_round: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """One point -> its QueryOutcome as a dict (with the cold step's notes under
        "notes"): rounds of its query set until steady when the point is held (its last
        round the measured one, runs/queries/steady.py), a cold point made cold before
        each. Raises PointFailed when a cold point's engine does not come back."""
        assert self.engine is not None
        described = QueryPoint.from_dict(point)
        done, self.cold_done = self.cold_done, None
        notes: list[str] = []
        before = "each round" if described.max_s else "the point"

        def one_round(number: int) -> QueryOutcome:
            assert self.engine is not None
            if number == 1 and done is not None and done[0] == described.index:
                cold_note, said = done[1]
            elif described.cache == "cold":
                cold_note, said = make_cold(self.engine, before)
            else:
                cold_note, said = None, []
            notes.extend(n for n in said if n not in notes)
            self.sampler = Sampler(described.devices)  # each round's own: the last is kept
            outcome = measure_query_point(
                self.engine,
                stream_queries(self.workload, self.engine, described.streams),
                self.workload.run_query,
                described if number == 1 else replace(described, start_at=None),
                self.counters,
                on_record,
                self.sampler,
            )
            outcome.cold_note = cold_note
            return outcome

        outcome = measure_until_steady(one_round, described, on_round)
        return {**outcome.to_dict(), "notes": notes}

    def ready_point(self, point: dict[str, Any]) -> None:
        """A cold point's cold step (the engine restarted, its files dropped from the page
        cache) ahead of measure(), so that a point started together with other workloads
        (runs/mix.py) starts at the time they set rather than after its cold step."""
        assert self.engine is not None
        described = QueryPoint.from_dict(point)
        if described.cache == "cold":
            self.cold_done = (described.index, make_cold(self.engine))

    def latest(self) -> dict[str, Any] | None:
        sample = self.sampler.latest() if self.sampler else None
        return dict(sample) if sample else None

    def running(self) -> None:
        """None: the streams' figures come with each query's record."""
        return None

    def host_views(self, load: Any, duration_s: float, warmup_s: float) -> None:
        """None: the point was measured on this host only."""
        return None

    def own_files(self) -> list[tuple[str, str]]:
        """The database's files by role (none for an external server)."""
        from dbstor.runs.own_files import engine_files

        return engine_files([self.engine] if self.engine is not None else [])

    def cleanup(self) -> dict[str, Any]:
        if self.engine is None:
            return {"notes": []}
        try:
            self.engine.stop()
        except Exception as exc:  # the points matter more than a clean stop
            return {"notes": [f"stopping {self.engine.title} failed: {one_line(exc)}"]}
        return {"notes": []}
