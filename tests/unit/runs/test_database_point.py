"""A database point's engine counters cover the measured window, not the warm-up: the
point's physical reads per second are the engine's rate, whatever the warm-up. Its
started_at is when its users started, not when it was summed up."""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import ClassVar

import pytest

from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineCounters, EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.results.model import Load
from dbstor.runs.database.point import DbPoint, measure_database_point
from dbstor.runs.database.summary import database_point
from dbstor.workloads.base import LoadReport, Session, Workload

READS_PER_S = 1000.0


class ClockedSQLite(SQLiteEngine):
    """A real SQLite engine whose buffer counters grow at a known rate, as a server's do."""

    def counters(self) -> EngineCounters:
        now = time.monotonic()
        return EngineCounters(
            logical_reads=10 * READS_PER_S * now, physical_reads=READS_PER_S * now
        )


class Reads(Session):
    def __init__(self, conn):
        self.conn = conn

    def run(self, transaction):
        self.conn.execute("SELECT n FROM c").fetchone()
        self.conn.commit()


class OneRow(Workload):
    name = "one-row"
    title = "one row"
    description = "reads one row"
    source = "tests"
    mix: ClassVar[dict[str, float]] = {"read": 100.0}
    dialects = ("sqlite",)

    def create(self, engine, say):
        conn = engine.connect()
        conn.execute("CREATE TABLE c (n INTEGER)")
        conn.execute("INSERT INTO c VALUES (0)")
        conn.commit()
        conn.close()
        return LoadReport(rows=1, seconds=0.0)

    def session(self, engine, connection, user):
        return Reads(connection)


def test_engine_counters_cover_the_measured_window_only(tmp_path):
    engine = ClockedSQLite(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    workload = OneRow(1, seed=1, options={})
    workload.create(engine, print)
    point = DbPoint(index=0, instances=1, users=2, warmup_s=1.5, duration_s=0.5)
    outcome = measure_database_point([Instance(engine, workload)], point)
    reads_per_s = outcome.counters.physical_reads / point.duration_s
    assert reads_per_s == pytest.approx(READS_PER_S, rel=0.3)  # was x4 with the warm-up
    assert outcome.counters.hit_ratio == pytest.approx(0.9)


def test_a_point_is_stamped_with_when_its_users_started(tmp_path):
    engine = ClockedSQLite(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    workload = OneRow(1, seed=1, options={})
    workload.create(engine, print)
    point = DbPoint(index=0, instances=1, users=1, warmup_s=1.5, duration_s=0.5)
    before = time.time()
    outcome = measure_database_point([Instance(engine, workload)], point)
    done = database_point(Load(kind="users", value=1), outcome, 0.5, 1.5, None)
    stamped = datetime.fromisoformat(done.started_at).timestamp()  # whole seconds
    assert before - 1 < stamped <= outcome.started_at  # not 2 s later, at the point's end


def test_the_point_line_shows_small_workload_figures_and_leaves_out_missing_ones():
    """A blocks point's mean visit latency of 0.07 ms reads 0.07 on the live line, not 0;
    a workload figure not measured (None) is left out, never 0 (nor a crash)."""
    from dbstor.results.model import Point
    from dbstor.runs.database.summary import point_line

    point = Point(load=Load("users", 8), duration_s=8.0, tps=12_309.0)
    point.workload_metrics = {"rows_read_per_s": 36_974.2, "visit_latency_ms_mean": 0.0712}
    line = point_line("[1] users 8", point)
    assert "36,974 rows read/s" in line and "0.0712 ms/visit" in line
    assert not re.search(r"[A-Z]{2,}_[A-Z]", line)  # names, never raw keys
    point.workload_metrics = {"visit_latency_ms_mean": None, "rows_read_per_s": 0.0}
    line = point_line("[1] users 8", point)
    assert "visit" not in line and "0 rows read/s" in line
