"""One query-workload run (dss, TPC-H-like): a real database on a target, its selected
queries run as power and throughput runs, every query measured with the storage and the
host, written to its run folder.

Lifecycle: create the engine and load the data (rows/s and MB/s recorded) -> warm: one
unmeasured power run fills the caches; cold: before every point the engine restarts and
its files are dropped from the host's page cache -> for each streams value N a point:
N == 1 is a power run (stream 0, each query once, in order), N > 1 a throughput run (N
streams at once, each on its own connection, streams 1..N in their own query order),
held until steady when the study holds its points: rounds of the query set, each cold
again for a cold run, until the rounds' queries per hour are steady, up to the maximum;
the last round is the point (runs/queries/steady.py) -> stop the engine and remove what
it created unless kept.

Each query records its elapsed time, rows, status (ok, failed, timeout) and what the
device under the target and the host's CPU did during it. results.json is rewritten after
every query, so a killed run keeps the queries that finished. A query that fails or runs
past the query timeout is recorded and the run goes on; a server that dies fails the
point, and the points before it stay.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from dbstor.analysis.queries import elapsed_stats, peak_of_queries
from dbstor.errors import PointFailed, interruption
from dbstor.results.model import Load, Point, Run, run_status
from dbstor.runs.database.plan import DatabaseRunner, instance_setup
from dbstor.runs.pauses import PauseWatch, mark_paused
from dbstor.runs.progress import live_device_iops
from dbstor.runs.queries.point import QueryOutcome, QueryPoint
from dbstor.runs.queries.summary import (
    failed_point,
    point_line,
    point_title,
    query_line,
    query_point,
    round_line,
)
from dbstor.runs.queries.worker import QueryWorker
from dbstor.runs.repeats import combine_repeats
from dbstor.runs.telemetry import measured_window, storage_text
from dbstor.telemetry.live import RunningLatencies


class QueryRun(DatabaseRunner):
    """A query run: same plan, folder, safety, progress and on_point as DatabaseRun."""

    def setup(self) -> None:
        self.cache = "cold" if self.plan.database.cold else "warm"
        self.worker = QueryWorker(self.safety, say=self.progress.say)
        self.database_bytes: int | None = None

    def workload_header(self) -> dict[str, Any]:
        header = {**super().workload_header(), "kind": "queries", "cache": self.cache}
        return header | {"query_timeout_s": self.plan.database.query_timeout_s}

    def slo(self) -> dict[str, Any]:
        return {"metric": None, "limit_ms": None}  # no latency limit: compare elapsed time

    def conclude(self, run: Run) -> None:
        run.peak = peak_of_queries(run.points)
        run.knee = None  # no latency limit applies to a query run

    # --- lifecycle -----------------------------------------------------------------

    def execute(self) -> Run:
        spec = self.plan.database
        self.begin()
        series_started = None
        try:
            with run_status(self.run):
                with self.phases.phase("create_s"):  # the engine created and loaded
                    self._create()
                if spec.cold:
                    self.progress.say(
                        "cold: before each point the engine restarts and its files are "
                        "dropped from the page cache"
                    )
                else:
                    with self.phases.phase("warmup_s"):
                        self._warm_up()
                series_started = time.monotonic()
                for value in spec.series.values:
                    self._measure(value)
        finally:
            series_s = time.monotonic() - series_started if series_started else 0.0
            try:
                self.folder.save()
            finally:
                started = time.monotonic()
                notes = self.worker.cleanup()["notes"]
                self.run.notes.extend(notes)
                for note in notes:  # what was left behind is said, even with --quiet
                    self.progress.tell(f"warning: {note}")
                self.cleaned_up(time.monotonic() - started, series_s)
                self.folder.save()
        return self.run

    def _create(self) -> None:
        setup = instance_setup(self.plan, self.scale, 0, 1)
        setup |= {"devices": self.devices, "query_timeout_s": self.plan.database.query_timeout_s}
        facts = self.worker.prepare(setup)
        self.database_bytes = facts["database_bytes"]
        self.run.engine = facts["engine"]
        cap = str(self.run.engine.get("memory_cap") or "")
        if self.plan.database.memory_limit_bytes is not None and cap.startswith("none"):
            line = f"memory limit not applied ({cap[6:]}): the run goes on uncapped"
            self.progress.say(line)
            self.run.notes.append(line)
        self.run.target["paths"] = facts["data_paths"] | {
            r: [str(p) for p in ps] for r, ps in self.plan.target.roles.items() if r != "data"
        }
        self.run.workload = {
            **facts["workload"],
            **{k: v for k, v in self.run.workload.items() if k != "scale"},
            "queries": facts["queries"],
            "database_bytes": self.database_bytes,
        }
        load = facts["load"]
        seconds = load["seconds"]
        mbps = load["bytes"] / seconds / 1e6 if load["bytes"] and seconds > 0 else None
        self.run.workload["load"] = [
            {
                "instance": 0,
                "rows": load["rows"],
                "seconds": round(seconds, 2),
                "rows_per_s": round(load["rows_per_s"]),
                "bytes": load["bytes"],
                "mb_per_s": round(mbps, 2) if mbps is not None else None,
                "tables": load["tables"],
            }
        ]
        speed = f", {mbps:,.1f} MB/s" if mbps is not None else ""
        self.progress.say(
            f"  loaded {load['rows']:,} rows in {seconds:.1f} s "
            f"({load['rows_per_s']:,.0f} rows/s{speed})"
        )
        self.folder.save()

    def _warm_up(self) -> None:
        """One unmeasured power run, so that the first point meets the caches the later
        ones do (warm)."""
        self.progress.say(
            f"warm-up: one power run of {self.worker.count_queries(1)} queries fills the "
            "caches (not measured)"
        )
        warm = self.worker.warm_up()
        first = warm.pop("first_not_ok")
        self.run.workload["warmup"] = warm
        if first:
            self.folder.note(
                f"warm-up: {warm['not_ok']} of {warm['queries']} queries did not finish "
                f"(first: {first})"
            )
        self.folder.save(notify=False)

    # --- points --------------------------------------------------------------------

    def _measure(self, streams: int) -> Point:
        """The point at this many streams, measured `repeats` times: the median repeat's
        figures, elapsed-time statistics over every repeat's queries, the spread kept."""
        index = len(self.run.points)
        repeats = [self._measure_once(streams, index, r) for r in range(self.plan.repeats)]
        stopped = next((p for p in repeats if not p.ok), None)  # dbstor stood still in one
        done = stopped or combine_repeats(repeats)
        if len(repeats) > 1 and stopped is None:
            done.txn_lat_ms = elapsed_stats(
                [q["elapsed_s"] for p in repeats for q in p.queries or [] if q["status"] == "ok"]
            )
            self._replace(index, done)
            self.folder.save()
            self.progress.say(point_line(point_title(index, streams, self.cache), done))
        return done

    def _measure_once(self, streams: int, index: int, repeat: int) -> Point:
        title = point_title(index, streams, self.cache) + (
            f" repeat {repeat + 1}" if self.plan.repeats > 1 else ""
        )
        load = Load(kind="streams", value=streams, jobs=streams)
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        partial = Point(
            load=load, duration_s=0.0, status="running", queries=[], started_at=started_at
        )
        with self.folder.lock:
            if index < len(self.run.points):
                self.run.points[index] = partial
            else:
                self.run.points.append(partial)
        self.progress.say(title)

        finished = RunningLatencies()  # each query's latency live as it finishes

        def on_record(record: dict[str, Any]) -> None:
            assert partial.queries is not None
            finished.add(record.get("elapsed_s"), record.get("status") == "ok")
            partial.queries.append(record)
            self.progress.say(query_line(record, streams))
            self.folder.save(notify=False)

        def on_round(facts: dict[str, Any]) -> None:  # a held point's further round
            with self.folder.lock:
                partial.queries = []  # the running point shows the round under way
            finished.restart()  # and so do the live figures
            self.progress.say(round_line(facts))

        point = QueryPoint(
            index=index,
            streams=streams,
            cache=self.cache,
            query_timeout_s=self.plan.database.query_timeout_s,
            devices=tuple(self.devices),
            max_s=self.plan.max_duration_s,
        )
        started = time.monotonic()
        if self.telemetry:
            self.telemetry.start_point(
                index + 1,
                {"streams": streams},
                lambda: live_device_iops(self.worker.latest()),
                finished.figures,
            )
        try:
            with PauseWatch() as watch:
                data = self.worker.measure(point.to_dict(), on_record, on_round)
                paused = watch.stop()
        except PointFailed as exc:  # the engine did not come back for a cold point
            self._replace(
                index, Point(load=load, duration_s=0.0, status="failed", error=str(exc), queries=[])
            )
            self.folder.save()
            raise PointFailed(f"{title}: {exc}") from None
        except KeyboardInterrupt:
            done = sum(r["status"] == "ok" for r in partial.queries or [])
            planned = self.worker.count_queries(streams)
            error = f"interrupted ({interruption()[1]}) after {done} of {planned} queries"
            wall = time.monotonic() - started
            self._replace(index, failed_point(load, error, partial.queries or [], wall, started_at))
            raise
        for note in data.pop("notes"):
            self.folder.note(note)
        outcome = QueryOutcome.from_dict(data)
        self.loaded(outcome.started_at, outcome.wall_s)
        if outcome.memory_cap:
            self.run.engine["memory_cap"] = outcome.memory_cap
        self.folder.add_samples(self._rows(outcome, load, index, repeat))
        if outcome.fatal:
            failed = failed_point(load, outcome.fatal, outcome.records, outcome.wall_s, started_at)
            self._replace(index, failed)
            self.folder.save()
            raise PointFailed(f"{title}: {failed.error}")
        began = datetime.fromtimestamp(outcome.started_at, UTC).isoformat(timespec="seconds")
        done = query_point(
            load, outcome, began, self.database_bytes, self.cache
        )  # the streams' start
        mark_paused(done, paused)
        if self.telemetry:  # the layers over the seconds the streams ran (no warm-up)
            window = measured_window(outcome.started_at, 0.0, outcome.wall_s, outcome.samples)
            self.telemetry.finish_point(index + 1, done, [window], self.plan.database.engine)
        self._replace(index, done)
        self.folder.save()
        self.progress.say(point_line(title, done) + storage_text(done))
        return done

    def _replace(self, index: int, point: Point) -> None:
        with self.folder.lock:
            self.run.points[index] = point

    def _rows(self, outcome: QueryOutcome, load: Load, index: int, repeat: int) -> list[dict]:
        return [
            {
                **sample,
                "run_id": self.run.run_id,
                "point": index + 1,
                "repeat": repeat + 1,
                "load_kind": load.kind,
                "load_value": load.value,
                "phase": "measure",
            }
            for sample in outcome.samples
        ]
