"""Query streams read their times on the clock they are given (as pacing.py's Pacer does):
a test's own clock makes every figure exact."""

from __future__ import annotations

import itertools

from dbstor.drivers.streams import StreamsRun
from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.telemetry.window import WindowCounters
from dbstor.workloads.dss.catalog import QuerySpec


def test_a_query_and_its_stream_are_timed_on_the_given_clock(tmp_path):
    engine = SQLiteEngine(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    ticks = itertools.count(100.0, 1.0)  # one second a reading: one stream, one thread

    def clock() -> float:
        return next(ticks)

    query = QuerySpec(1, "Q1", "one row", None)
    run = StreamsRun(
        engine,
        {0: [(query, "SELECT 1")]},
        lambda connection, sql, dialect: len(connection.execute(sql).fetchall()),
        WindowCounters(clock=clock),
        None,
        "warm",
        lambda record: None,
        clock=clock,
    )
    try:
        outcome = run.run()
    finally:
        engine.stop()
    (record,) = outcome.records
    assert record["status"] == "ok" and record["rows"] == 1
    assert record["elapsed_s"] == 1.0  # started, then ended: two readings
    assert record["started_s"] == 1.0  # the counters' reading, one after the streams' start
    assert outcome.wall_s == outcome.stream_s[0] + 1.0  # the stream ended one reading earlier


def test_a_server_still_up_is_given_its_grace_on_the_given_clock(tmp_path):
    """server_gone waits SERVER_GONE_GRACE_S on the clock it is given, sleeping through the
    sleep it is given: a database still there is not gone, one removed is at once, and no
    real second passes."""
    from dbstor.drivers.streams import SERVER_GONE_GRACE_S, server_gone

    engine = SQLiteEngine(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    now = [50.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    try:
        assert not server_gone(engine, lambda: now[0], sleep)  # an embedded engine is up
        assert SERVER_GONE_GRACE_S - 1e-9 <= now[0] - 50.0 < SERVER_GONE_GRACE_S + 0.2
    finally:
        engine.stop()
    slept.clear()
    assert server_gone(engine, lambda: now[0], sleep) and slept == []  # its files are gone
