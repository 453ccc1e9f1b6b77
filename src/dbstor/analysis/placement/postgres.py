"""Per-table and per-index reads from a live PostgreSQL server, over an interval.

pg_statio_user_tables (heap + TOAST blocks) and pg_statio_user_indexes give blocks read
from outside shared buffers and blocks found in them; pg_table_size / pg_relation_size
give sizes. PostgreSQL counts no block writes per relation, so writes are unknown here
(0 in the count, with writes_reason saying why: shown as not kept, never as 0).
psycopg 3 is imported only when this source is used. Passwords never leave this module:
every DSN shown is masked and every server message scrubbed.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from typing import Any

from dbstor.analysis.placement.model import DbObject, Snapshot, delta
from dbstor.engines.postgres_dsn import connect_bounds
from dbstor.errors import UserError

STATS_SQL = """
SELECT 'table' AS kind, t.schemaname, t.relname,
       coalesce(t.heap_blks_read, 0) + coalesce(t.toast_blks_read, 0)
         + coalesce(t.tidx_blks_read, 0) AS blks_read,
       coalesce(t.heap_blks_hit, 0) + coalesce(t.toast_blks_hit, 0)
         + coalesce(t.tidx_blks_hit, 0) AS blks_hit,
       coalesce(pg_table_size(t.relid), 0) AS size_bytes
  FROM pg_statio_user_tables t
UNION ALL
SELECT 'index', i.schemaname, i.indexrelname,
       coalesce(i.idx_blks_read, 0), coalesce(i.idx_blks_hit, 0),
       coalesce(pg_relation_size(i.indexrelid), 0)
  FROM pg_statio_user_indexes i
"""

_URI_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@?]*:)([^@]*)(@)", re.IGNORECASE)
_KV_PASSWORD = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)", re.IGNORECASE)


def mask_dsn(dsn: str) -> str:
    """The DSN with any password replaced by ***: safe to print, store and log."""
    return _KV_PASSWORD.sub(r"\1***", _URI_PASSWORD.sub(r"\1***\3", dsn))


def _passwords(dsn: str) -> list[str]:
    found = [m.group(2) for m in _URI_PASSWORD.finditer(dsn)]
    found += [m.group(2).strip("'") for m in _KV_PASSWORD.finditer(dsn)]
    return [p for p in found if p]


def scrub(message: str, dsn: str) -> str:
    """One line of a server/driver message with the DSN's passwords removed."""
    line = (message.strip().splitlines() or [""])[0]
    for secret in _passwords(dsn):
        line = line.replace(secret, "***")
    return line


def _connect(dsn: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise UserError(
            "--postgres needs psycopg 3, which is not installed: pip install 'dbstor[postgres]'"
        ) from None
    try:
        bounds = connect_bounds(dsn, 10)  # no wait for ever on a silent network
        return psycopg.connect(dsn, autocommit=True, **bounds)
    except (psycopg.Error, ValueError) as exc:
        raise UserError(
            f"cannot connect to PostgreSQL at {mask_dsn(dsn)}: {scrub(str(exc), dsn)};"
            " check the DSN, that the server runs and pg_hba.conf lets you in"
        ) from None


def snapshot(conn: Any, label: str) -> Snapshot:
    """One reading of the block counters and sizes of every user table and index."""
    with conn.cursor() as cur:
        cur.execute("SELECT current_setting('block_size')::int")
        block = int(cur.fetchone()[0])
        cur.execute(STATS_SQL)
        rows = cur.fetchall()
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
    conn = _connect(dsn)
    notes = [
        "PostgreSQL counts no block writes per table or index: writes are not known "
        "(not 0) and the choice rests on reads (blocks read from outside shared buffers)"
    ]
    try:
        import psycopg

        try:
            first = snapshot(conn, f"{masked} at start")
            if interval_s == 0:
                with conn.cursor() as cur:
                    cur.execute(
                        "SELECT stats_reset FROM pg_stat_database "
                        "WHERE datname = current_database()"
                    )
                    row = cur.fetchone()
                since = row[0] if row and row[0] else "the server start"
                counted = (
                    f"one snapshot: counted since the statistics were last reset ({since}); "
                    "give --interval for a measured interval"
                )
                return list(first.objects.values()), notes, counted
            if interval_s >= 10:
                print(f"dbstor: counting PostgreSQL I/O for {interval_s:g} s ...", file=sys.stderr)
            sleep(interval_s)
            second = snapshot(conn, f"{masked} after {interval_s:g} s")
        except psycopg.Error as exc:
            raise UserError(
                f"PostgreSQL at {masked}: {scrub(str(exc), dsn)}; the user needs "
                "to read pg_statio_user_tables and pg_statio_user_indexes"
            ) from None
    finally:
        conn.close()
    objects, more = delta(first, second)
    return objects, notes + more, f"difference over {interval_s:g} s on {masked}"
