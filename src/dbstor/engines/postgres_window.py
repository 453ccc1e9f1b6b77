"""PostgreSQL's own figures over a measured window, in the engines' neutral shape
(engines/window.py), read at each edge by ServerEngine.counters() (which finds this module
by the engine's name):

- pg_stat_database of the database dbstor works in: `blks_read` (blocks read from outside
  shared buffers: the page cache or the storage) with `blk_read_time` (ms, counted only
  with track_io_timing on, as dbstor's managed servers run) as the wait event
  `DataFileRead`, PostgreSQL's own name for that wait; `xact_commit` as commits per second;
- pg_stat_wal (PostgreSQL 14 and later, server-wide): `wal_sync` with `wal_sync_time`
  (track_wal_io_timing, off by default) as `WALSync`, a commit's wait on the log device;
  `wal_bytes` as WAL bytes per second.

A time PostgreSQL did not count (its setting off) is null with the setting to turn on,
never 0; a counter that went back (statistics reset) is null with the reason.
"""

from __future__ import annotations

import time
from typing import Any

from dbstor.engines.probes import CounterQuery
from dbstor.engines.window import Edge, failed, figures, unread, wait

DATABASE_SQL = (
    "SELECT xact_commit, blks_read, blk_read_time, current_setting('track_io_timing') = 'on'"
    " FROM pg_stat_database WHERE datname = current_database()"
)
WAL_SQL = (
    "SELECT wal_bytes, wal_sync, wal_sync_time, current_setting('track_wal_io_timing') = 'on'"
    " FROM pg_stat_wal"
)
VERSION_SQL = "SELECT current_setting('server_version_num')::int"
WAL_FROM = 140000  # pg_stat_wal: PostgreSQL 14


def counter_queries(server_version_num: int) -> list[CounterQuery]:
    """The queries edge() runs, for `dbstor engines --check`."""
    out = [
        CounterQuery("server version", VERSION_SQL, "any login"),
        CounterQuery(
            "the engine's own window: block reads, read time, commits",
            DATABASE_SQL,
            "any login (times need track_io_timing = on)",
        ),
    ]
    if server_version_num >= WAL_FROM:
        out.append(
            CounterQuery(
                "the engine's own window: WAL bytes and syncs",
                WAL_SQL,
                "PostgreSQL 14 (times need track_wal_io_timing = on)",
            )
        )
    return out


def edge(engine: Any) -> Edge:
    """One reading at a window's edge through the engine's monitoring connection."""
    reading: dict[str, Any] = {}
    commits, blocks, read_ms, timed = engine.query(DATABASE_SQL)[0]
    reading["database"] = (float(commits), float(blocks), float(read_ms), bool(timed))
    if int(engine.query(VERSION_SQL)[0][0]) >= WAL_FROM:
        wal_bytes, syncs, sync_ms, wal_timed = engine.query(WAL_SQL)[0]
        reading["wal"] = (float(wal_bytes), float(syncs), float(sync_ms), bool(wal_timed))
    return Edge(time.monotonic(), reading)


def _delta(after: float, before: float) -> float | None:
    return after - before if after >= before else None


def window_figures(before: Edge | None, after: Edge | None) -> dict[str, Any]:
    """The window's figures from two edges (engines/window.py's shape)."""
    why = unread(before, after)
    if why is not None:
        return failed(why)
    assert before is not None and after is not None
    nulls: dict[str, str] = {}
    back = "its counter went back in the window (statistics reset?)"
    c0, b0, t0, _ = before.reading["database"]
    c1, b1, t1, timed = after.reading["database"]
    read_ms = _delta(t1, t0) if timed else None
    if not timed:
        nulls["DataFileRead"] = "track_io_timing is off: PostgreSQL did not time its reads"
    waits = {"DataFileRead": wait(_delta(b1, b0), read_ms)}
    counts = {"commits/s": _delta(c1, c0)}
    for name, value in (
        ("DataFileRead", waits["DataFileRead"]["waits"]),
        ("commits/s", counts["commits/s"]),
    ):
        if value is None:
            nulls[name] = back
    if "wal" in before.reading and "wal" in after.reading:
        w0, s0, st0, _ = before.reading["wal"]
        w1, s1, st1, wal_timed = after.reading["wal"]
        sync_ms = _delta(st1, st0) if wal_timed else None
        if not wal_timed:
            nulls["WALSync"] = "track_wal_io_timing is off: PostgreSQL did not time its WAL syncs"
        waits["WALSync"] = wait(_delta(s1, s0), sync_ms)
        counts["WAL bytes/s"] = _delta(w1, w0)
    else:
        nulls["WAL bytes/s"] = "pg_stat_wal needs PostgreSQL 14 or later"
        counts["WAL bytes/s"] = None
    return figures(before, after, waits, counts, None, nulls)
