"""Per-table and per-index reads from a live PostgreSQL server, over an interval.

pg_statio_user_tables (heap + TOAST blocks) and pg_statio_user_indexes give blocks read
from outside shared buffers and blocks found in them; pg_table_size / pg_relation_size
give sizes. PostgreSQL counts no block writes per relation, so writes are unknown here
(0 in the count, with writes_reason saying why: shown as not kept, never as 0). The server
is read through engines/postgres_statio.py (the driver, the SQL, masked DSNs).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from dbstor.analysis.placement.model import DbObject, Snapshot, delta
from dbstor.engines.postgres_statio import (
    connect,
    mask_dsn,
    read_statio,
    scrub,
    server_errors,
    stats_reset,
)
from dbstor.errors import UserError

__all__ = ["mask_dsn", "read_postgres", "scrub", "snapshot"]


def snapshot(conn: Any, label: str) -> Snapshot:
    """One reading of the block counters and sizes of every user table and index."""
    block, rows = read_statio(conn)
    objects: dict[str, DbObject] = {}
    for kind, schema, name, blks_read, blks_hit, size in rows:
        full = f"{schema}.{name}"
        objects[full] = DbObject(
            name=full,
            kind=kind,
            size_bytes=int(size),
            reads=int(blks_read),
            writes=0,
            writes_reason=WRITES_NOT_KEPT,
            bytes_read=int(blks_read) * block,
            cache_hits=int(blks_hit),
        )
    return Snapshot(objects, label=label)


WRITES_NOT_KEPT = (
    "not kept by PostgreSQL: it counts blocks read and found in shared buffers per table "
    "and index (pg_statio_*), no block writes per object (pg_stat_io, 16 and later, counts "
    "writes per process type, not per table)"
)


def read_postgres(
    dsn: str, interval_s: float, sleep: Callable[[float], None] = time.sleep
) -> tuple[list[DbObject], list[str], str]:
    """-> (objects, notes, how counted): two snapshots interval_s apart, or one if 0."""
    if interval_s < 0:
        raise UserError("--interval must be 0 (counters since reset) or more seconds")
    masked = mask_dsn(dsn)
    conn = connect(dsn)
    notes = [
        "PostgreSQL counts no block writes per table or index: writes are not known "
        "(not 0) and the choice rests on reads (blocks read from outside shared buffers)"
    ]
    try:
        with server_errors(dsn):
            first = snapshot(conn, f"{masked} at start")
            if interval_s == 0:
                counted = (
                    f"one snapshot: counted since the statistics were last reset "
                    f"({stats_reset(conn)}); give --interval for a measured interval"
                )
                return list(first.objects.values()), notes, counted
            if interval_s >= 10:
                print(f"dbstor: counting PostgreSQL I/O for {interval_s:g} s ...", file=sys.stderr)
            sleep(interval_s)
            second = snapshot(conn, f"{masked} after {interval_s:g} s")
    finally:
        conn.close()
    objects, more = delta(first, second)
    return objects, notes + more, f"difference over {interval_s:g} s on {masked}"
