"""PostgreSQL's per-table and per-index block counters on a live server, for `dbstor advise
--postgres` (analysis/placement/postgres.py turns them into objects): psycopg 3 is imported
only when this source is used. Passwords never leave here: every DSN shown is masked and
every server message scrubbed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


def connect(dsn: str) -> Any:
    """An autocommit connection for reading the statistics (UserError, scrubbed, if not)."""
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


def read_statio(conn: Any) -> tuple[int, list[tuple[Any, ...]]]:
    """The block size and STATS_SQL's rows (kind, schema, name, blocks read, hit, size)."""
    with conn.cursor() as cur:
        cur.execute("SELECT current_setting('block_size')::int")
        block = int(cur.fetchone()[0])
        cur.execute(STATS_SQL)
        return block, list(cur.fetchall())


def stats_reset(conn: Any) -> str:
    """When the database's statistics were last reset ('the server start' if never)."""
    with conn.cursor() as cur:
        cur.execute("SELECT stats_reset FROM pg_stat_database WHERE datname = current_database()")
        row = cur.fetchone()
    return str(row[0]) if row and row[0] else "the server start"


@contextmanager
def server_errors(dsn: str) -> Iterator[None]:
    """A driver error while reading is one UserError naming the views the user must read."""
    import psycopg

    try:
        yield
    except psycopg.Error as exc:
        raise UserError(
            f"PostgreSQL at {mask_dsn(dsn)}: {scrub(str(exc), dsn)}; the user needs "
            "to read pg_statio_user_tables and pg_statio_user_indexes"
        ) from None
