"""PostgreSQL's statistics queries: the catalog SQL behind counters() and object_io().

Block counts come from pg_stat_database (dbstor's own database, managed) or from
pg_statio_user_tables (dbstor's schema, external); buffers written moved from
pg_stat_bgwriter to pg_stat_checkpointer and pg_stat_io in PostgreSQL 17.
"""

from __future__ import annotations

from typing import Any

from dbstor.engines import postgres_window
from dbstor.engines.base import MARKER_TABLE, ObjectIO
from dbstor.engines.probes import CounterQuery

# the tablespace a relation is in (0: the database's default) and where it lies
# ('' for pg_default and pg_global, which are in the data directory)
_LOCATION = (
    "pg_tablespace_location(coalesce(nullif(c.reltablespace, 0), (SELECT dattablespace"
    " FROM pg_database WHERE datname = current_database())))"
)
STATS_SQL = f"""
SELECT 'table' AS kind, t.relname AS name,
       coalesce(t.heap_blks_read, 0) + coalesce(t.toast_blks_read, 0)
         + coalesce(t.tidx_blks_read, 0) AS blks_read,
       pg_table_size(t.relid) AS size_bytes,
       {_LOCATION} AS location,
       s.n_tup_ins + s.n_tup_upd + s.n_tup_del AS rows_changed
  FROM pg_statio_user_tables t JOIN pg_class c ON c.oid = t.relid
  JOIN pg_stat_user_tables s ON s.relid = t.relid
 WHERE t.schemaname = %(schema)s AND t.relname <> '{MARKER_TABLE}'
UNION ALL
SELECT 'index', i.indexrelname, coalesce(i.idx_blks_read, 0), pg_relation_size(i.indexrelid),
       {_LOCATION}, NULL
  FROM pg_statio_user_indexes i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.schemaname = %(schema)s AND i.relname <> '{MARKER_TABLE}'
 ORDER BY 1 DESC, 2
"""
_WRITES_15 = "(SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter)"
_WRITES_17 = (
    "(SELECT buffers_written FROM pg_stat_checkpointer)"
    " + (SELECT buffers_clean FROM pg_stat_bgwriter)"
    " + (SELECT coalesce(sum(writes), 0) FROM pg_stat_io WHERE object = 'relation'"
    " AND backend_type NOT IN ('checkpointer', 'background writer'))"
)
_DB_READS = "SELECT blks_hit + blks_read, blks_read FROM pg_stat_database WHERE datname = %(db)s"
_SCHEMA_READS = (
    "SELECT coalesce(sum(heap_blks_hit + heap_blks_read + coalesce(idx_blks_hit, 0)"
    " + coalesce(idx_blks_read, 0) + coalesce(toast_blks_hit, 0) + coalesce(toast_blks_read, 0)), 0),"
    " coalesce(sum(heap_blks_read + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0)), 0)"
    " FROM pg_statio_user_tables WHERE schemaname = %(schema)s"
)


def counters_sql(server_version_num: int, managed: bool) -> str:
    """One row: block requests, block misses, buffers written (server-wide). Parameters:
    db (managed) and schema (external)."""
    writes = _WRITES_17 if server_version_num >= 170000 else _WRITES_15
    reads = _DB_READS if managed else _SCHEMA_READS
    return f"SELECT r.*, {writes} FROM ({reads}) r"


# Every query reads statistics PostgreSQL shows any role (pg_stat_*, pg_statio_* of the
# role's own schema, current_setting): none needs pg_monitor or pg_read_all_stats.
ANY_ROLE = "any role that can connect (no pg_monitor or pg_read_all_stats needed)"
BLOCK_SIZE = CounterQuery(
    "block size (per-object bytes read)", "SELECT current_setting('block_size')::int", ANY_ROLE
)


def buffer_query(
    server_version_num: int, managed: bool, database: str, schema: str
) -> CounterQuery:
    """Block requests, misses and buffers written, as counters() runs it."""
    where = "pg_stat_database" if managed else "pg_statio_user_tables of dbstor's schema"
    writes = (
        "pg_stat_checkpointer, pg_stat_io" if server_version_num >= 170000 else "pg_stat_bgwriter"
    )
    return CounterQuery(
        f"buffer cache: block requests and misses ({where}), buffers written ({writes})",
        counters_sql(server_version_num, managed),
        ANY_ROLE,
        {"db": database, "schema": schema},
    )


def objects_query(schema: str) -> CounterQuery:
    """Per table and per index: blocks read, size and the tablespace's location
    (object_io(), dbstor advise, the layout per path)."""
    return CounterQuery(
        "per-table and per-index blocks read, size, tablespace location and rows changed "
        "(pg_statio_user_tables, pg_statio_user_indexes, pg_tablespace_location, "
        "pg_stat_user_tables; dbstor advise)",
        STATS_SQL,
        ANY_ROLE,
        {"schema": schema},
    )


def objects_from_rows(rows: list[Any], block: int, default_path: str | None) -> list[ObjectIO]:
    """objects_query's rows as ObjectIO; a relation in the default tablespace (location
    '') lies in `default_path` (the data directory, when dbstor knows it). A table's rows
    inserted, updated and deleted (pg_stat_user_tables) are `rows_changed`: the write
    activity PostgreSQL keeps per table, which is not block writes (none per object)."""
    return [
        ObjectIO(
            name=str(name),
            kind=str(kind),
            size_bytes=int(size),
            reads=float(reads),
            read_bytes=float(reads) * block,
            path=str(location) if location else default_path,
            rows_changed=None if changed is None else float(changed),
        )
        for kind, name, reads, size, location, changed in rows
    ]


def counter_queries(
    server_version_num: int, managed: bool, database: str, schema: str
) -> list[CounterQuery]:
    """Every query counters() and object_io() run, in the order they run them."""
    return [
        buffer_query(server_version_num, managed, database, schema),
        BLOCK_SIZE,
        objects_query(schema),
        *postgres_window.counter_queries(server_version_num),  # the window's own figures
    ]
