"""The engines' own window figures through the one contract (Engine.counters() at each
edge, Engine.over_window()), on recorded output of the real views
(tests/fixtures/oracle/README.md, tests/fixtures/sqlserver/README.md): Oracle's
v$system_event waits and v$sysstat rates, SQL Server's wait statistics, batch requests and
hit ratio; their neutral shape, its merge over instances, results.json's round trip, and
an unreadable view as nulls with the reason. The engines' `query` answers from the
recorded rows (the code under test is what turns rows into figures, not a driver)."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from itertools import count
from pathlib import Path

import pytest

from dbstor.engines import oracle_stats, postgres_window, sqlserver_stats, window
from dbstor.engines.base import EngineCounters, EngineSettings, sum_counters
from dbstor.engines.oracle import OracleEngine
from dbstor.engines.oracle_dsn import PASSWORD_ENV as ORACLE_PASSWORD
from dbstor.engines.sqlserver import SqlServerEngine
from dbstor.errors import UserError
from dbstor.results.checks import FieldError
from dbstor.results.model import Load, Point, point_from_dict

from .test_oracle_stats import recorded_events, recorded_stats

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def csv_rows(name: str) -> list[dict[str, str]]:
    with (FIXTURES / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


def clock(monkeypatch: pytest.MonkeyPatch, module: str, start: float, step: float) -> None:
    """The engine module's monotonic clock, `step` seconds a reading apart."""
    ticks = count()
    monkeypatch.setattr(f"{module}.time.monotonic", lambda: start + step * next(ticks))


def answering(edges: list[dict[str, list[tuple]]]):
    """A query() that answers each SQL text from the current edge's rows."""
    state = {"edge": 0}

    def query(sql: str, *args: object) -> list[tuple]:
        rows = edges[state["edge"]].get(sql)
        if rows is None:
            raise UserError("ORA-00942: table or view does not exist")
        return rows

    return query, state


@pytest.fixture
def oracle(monkeypatch: pytest.MonkeyPatch) -> OracleEngine:
    monkeypatch.setenv(ORACLE_PASSWORD, "x")
    return OracleEngine(EngineSettings(dsn="oracle://system@db.example:1521/FREEPDB1"))


def test_oracle_waits_and_rates_through_the_contract(oracle, monkeypatch):
    """The AWR's waits (from an instance start: every count 0 before) and v$mystat's
    full scan (a new session: 0 before) read at two edges a minute apart."""
    stats_after = recorded_stats("mystat_full_scan.txt")
    events_after = recorded_events("awr_top5_timed_events.txt")
    query, state = answering(
        [
            {oracle_stats.SYSSTAT_SQL: [(n, 0) for n in stats_after], oracle_stats.EVENTS_SQL: []},
            {
                oracle_stats.SYSSTAT_SQL: list(stats_after.items()),
                oracle_stats.EVENTS_SQL: [(e, w, t) for e, (w, t) in events_after.items()],
            },
        ]
    )
    monkeypatch.setattr(oracle, "query", query)
    clock(monkeypatch, "dbstor.engines.oracle", 1000.0, 60.0)
    before = oracle.counters()
    state["edge"] = 1
    after = oracle.counters()
    point = oracle.over_window(before, after)
    assert point.physical_reads == 1000  # the counters as before
    figures = point.window
    assert figures["seconds"] == 60.0
    reads = figures["waits"]["db file sequential read"]
    assert reads["waits"] == 568_948 and reads["wait_ms"] == 4_375_000
    assert reads["mean_ms"] == pytest.approx(7.690, abs=0.001)
    assert figures["waits"]["log file sync"]["mean_ms"] == pytest.approx(7.089, abs=0.001)
    assert set(figures["waits"]) == set(oracle_stats.EVENTS)  # only the two asked for
    assert figures["rates"]["read I/O requests/s"] == pytest.approx(30 / 60)
    assert figures["rates"]["user commits/s"] is None  # the listing has no 'user commits'
    assert "user commits" in figures["why_null"]["user commits/s"]
    assert sum_counters([point]).window == figures  # one instance: unchanged


def test_an_event_first_waited_for_in_the_window_counts_from_zero_and_one_that_went_back_is_null():
    before = oracle_stats.Snapshot(events={"log file sync": (10.0, 5000.0)})
    after = oracle_stats.Snapshot(events={"db file sequential read": (4.0, 20_000.0)})
    found = oracle_stats.window_figures(
        oracle_stats.Edge(0.0, before), oracle_stats.Edge(10.0, after)
    )
    assert found["waits"]["db file sequential read"] == {
        "waits": 4.0,
        "wait_ms": 20.0,
        "mean_ms": 5.0,
    }
    assert found["waits"]["log file sync"]["waits"] is None  # 10 before, none after
    assert "went back" in found["why_null"]["log file sync"]


def test_oracle_without_the_catalog_role_gives_nulls_with_the_reason(oracle, monkeypatch):
    query, _ = answering([{oracle_stats.SYSSTAT_SQL: [("physical reads", 5)]}])
    monkeypatch.setattr(oracle, "query", query)
    before, after = oracle.counters(), oracle.counters()
    figures = oracle.over_window(before, after).window
    assert figures["waits"] == {} and figures["rates"] == {} and figures["seconds"] is None
    assert "v$system_event could not be read" in figures["why_null"]["all"]
    assert "SELECT_CATALOG_ROLE" in figures["why_null"]["all"]


def test_sqlserver_waits_batches_and_hit_ratio_through_the_contract(monkeypatch):
    """The 2005 Express instance's PAGEIOLATCH rows (cumulative since its start: 0 before)
    and the recorded hit ratio and its base, through counters() at two edges."""
    eng = SqlServerEngine(EngineSettings(dsn="mssql://sa@db.example:1433/db"))
    perf_keys = ("object_name", "counter_name", "instance_name", "cntr_value", "cntr_type")
    perf = [tuple(r[k] for k in perf_keys) for r in csv_rows("sqlserver/perf_hit_ratio.csv")]
    waits_after = [tuple(r.values()) for r in csv_rows("sqlserver/waits_2005_express.csv")]
    waits_before = [(r[0], 0, 0, 0) for r in waits_after]
    query, state = answering(
        [
            {sqlserver_stats.PERF_SQL: perf, sqlserver_stats.WAITS_SQL: waits_before},
            {sqlserver_stats.PERF_SQL: perf, sqlserver_stats.WAITS_SQL: waits_after},
        ]
    )
    monkeypatch.setattr(eng, "query", query)
    clock(monkeypatch, "dbstor.engines.sqlserver", 50.0, 30.0)
    before = eng.counters()
    state["edge"] = 1
    figures = eng.over_window(before, eng.counters()).window
    assert figures["waits"]["PAGEIOLATCH_SH"] == {
        "waits": 178,
        "wait_ms": 327,
        "mean_ms": pytest.approx(327 / 178),
    }
    assert figures["waits"]["PAGEIOLATCH_NL"]["mean_ms"] is None  # no wait: no mean, never 0
    assert figures["ratios"]["buffer cache hit ratio"] == pytest.approx(0.9183, abs=5e-5)
    assert figures["rates"]["batch requests/s"] is None  # not in the recorded rows
    assert "Batch Requests/sec" in figures["why_null"]["batch requests/s"]


def test_two_instances_add_waits_and_rates_and_keep_no_ratio():
    def one(waits: float, wait_ms: float, rate: float) -> EngineCounters:
        window = {
            "seconds": 60.0,
            "waits": {"WRITELOG": {"waits": waits, "wait_ms": wait_ms, "mean_ms": None}},
            "rates": {"batch requests/s": rate},
            "ratios": {"buffer cache hit ratio": 0.9},
            "why_null": {},
        }
        return EngineCounters(window=window)

    merged = sum_counters([one(100, 300.0, 10.0), one(300, 500.0, 5.0)]).window
    assert merged["waits"]["WRITELOG"] == {"waits": 400.0, "wait_ms": 800.0, "mean_ms": 2.0}
    assert merged["rates"]["batch requests/s"] == 15.0
    assert merged["ratios"]["buffer cache hit ratio"] is None
    assert "several" in merged["why_null"]["buffer cache hit ratio"]
    assert sum_counters([EngineCounters(), EngineCounters()]).window is None


def test_the_figures_reach_results_json_and_come_back(oracle):
    window = {
        "seconds": 60.0,
        "waits": {"log file sync": {"waits": 7053.0, "wait_ms": 50_000.0, "mean_ms": 7.09}},
        "rates": {"user commits/s": 117.5, "redo bytes/s": None},
        "ratios": {},
        "why_null": {"redo bytes/s": "v$sysstat has no 'redo size' on this server"},
    }
    point = Point(load=Load("users", 4), duration_s=60.0, engine_window=window)
    text = json.dumps(asdict(point))
    assert point_from_dict(json.loads(text)).engine_window == window
    old = json.loads(text)
    del old["engine_window"]  # a folder from before the field
    assert point_from_dict(old).engine_window is None
    broken = json.loads(text)
    broken["engine_window"]["waits"]["log file sync"]["waits"] = "many"
    with pytest.raises(FieldError, match="engine_window.waits.log file sync.waits"):
        point_from_dict(broken)


def test_postgres_times_it_did_not_count_and_counters_that_went_back_are_null():
    """PostgreSQL's shape from constructed readings (the live figures are tested on the
    managed server in tests/integration/test_engine_postgres.py): reads without
    track_io_timing, a statistics reset, a server without pg_stat_wal."""
    before = postgres_window.Edge(0.0, {"database": (100.0, 500.0, 0.0, False)})
    after = postgres_window.Edge(10.0, {"database": (50.0, 900.0, 0.0, False)})
    found = postgres_window.window_figures(before, after)
    assert found["waits"]["DataFileRead"] == {"waits": 400.0, "wait_ms": None, "mean_ms": None}
    assert "track_io_timing is off" in found["why_null"]["DataFileRead"]
    assert found["rates"]["commits/s"] is None and "went back" in found["why_null"]["commits/s"]
    assert found["rates"]["WAL bytes/s"] is None
    assert "PostgreSQL 14" in found["why_null"]["WAL bytes/s"]
    names = [q.name for q in postgres_window.counter_queries(130000)]
    assert len(names) == 2 and len(postgres_window.counter_queries(150000)) == 3


def test_a_kin_engine_reads_its_parents_window_figures():
    """An engine that extends another (a PostgreSQL-wire engine of PostgreSQL) reads its
    own figures through the parent's engines/<name>_window.py; an engine without one has
    none."""
    from dbstor.engines.postgres import PostgresEngine

    class KinEngine(PostgresEngine):
        name = "kin_of_postgres"

    assert window.kin_reader(KinEngine) is postgres_window
    assert window.kin_reader(SqlServerEngine) is None  # its window_figures() are its own
