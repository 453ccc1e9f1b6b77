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
