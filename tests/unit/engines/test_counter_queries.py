"""The counter queries `dbstor engines --check` runs are the ones the counters run (one
constant each), and what the check makes of a query's rows and failures."""

from __future__ import annotations

import sqlite3

import pytest

from dbstor import cli
from dbstor.commands.engine_check import run_counter_query
from dbstor.engines import mariadb_stats, postgres_stats, postgres_window
from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from dbstor.engines.postgres import PostgresEngine
from dbstor.engines.probes import CounterQuery


def test_postgres_lists_what_it_runs_for_its_version() -> None:
    engine = PostgresEngine(EngineSettings(dsn="postgresql://u@127.0.0.1:1/app", instance=999))
    for number, writes in ((150000, "pg_stat_bgwriter"), (170000, "pg_stat_checkpointer")):
        engine._server_num = number  # what _read_version() sets on connecting
        buffer, block, objects, *window = engine.counter_queries()
        # and the queries of the engine's own window figures (engines/postgres_window.py)
        assert [q.sql for q in window] == [
            q.sql for q in postgres_window.counter_queries(number)
        ] and window
        assert buffer.sql == postgres_stats.counters_sql(number, managed=False)
        assert writes in buffer.sql and writes in buffer.name
        assert buffer.params == {"db": "dbstor", "schema": "dbstor_999"}
        assert block is postgres_stats.BLOCK_SIZE
        assert objects.sql == postgres_stats.STATS_SQL == engine.file_stats_query
        assert objects.params == {"schema": "dbstor_999"}


def test_mariadb_lists_what_it_runs() -> None:
    engine = MariaDBEngine(EngineSettings(dsn="mysql://u@127.0.0.1:1/", instance=999))
    buffer, sizes, ps, files = engine.counter_queries()
    assert buffer.sql == mariadb_stats.COUNTERS_SQL
    assert sizes.params == ("dbstor_999", "dbstor_marker")
    assert files.sql == mariadb_stats.FILE_STATS_SQL == engine.file_stats_query
    assert "GRANT SELECT ON performance_schema.*" in files.needs
    assert ps.verdict is not None and files.verdict is not None
    assert ps.verdict([(1,)]) is None and "performance_schema is OFF" in str(ps.verdict([(0,)]))
    assert files.verdict([("ibdata1",)]) is None
    assert "wait/io/file/innodb" in str(files.verdict([]))


def test_a_failing_query_says_what_it_needs_and_a_verdict_is_missing() -> None:
    conn = sqlite3.connect(":memory:")
    bad = CounterQuery("per-file I/O", "SELECT * FROM no_such_view", "VIEW SERVER STATE")
    line = run_counter_query(conn, bad)
    assert not line.ok and "no such table: no_such_view" in line.detail
    assert line.detail.endswith("needs VIEW SERVER STATE")
    off = CounterQuery("feature", "SELECT 0", "it on", verdict=lambda r: "off: turn it on")
    assert run_counter_query(conn, off).detail == "off: turn it on"
    good = run_counter_query(conn, CounterQuery("one", "SELECT ?", "nothing", params=(7,)))
    assert good.ok and good.detail == "1 row"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["engines", "--engine", "postgres"], "--engine belongs to --check"),
        (["engines", "--check"], "--check needs --engine"),
        (["engines", "--check", "--engine", "sqlite", "--scale", "2"], "add --workload"),
        (["engines", "--check", "--engine", "sqlite", "--json"], "--json lists the engines"),
        (["engines", "--check", "--engine", "sqlite", "--dsn", "x"], "takes target paths"),
        (["engines", "--check", "--engine", "sqlite", "--workload", "order"], "did you mean"),
    ],
)
def test_check_refusals_are_one_line(capsys, argv: list[str], needle: str) -> None:
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and needle in err
