"""DuckDB's bulk path: typed tables filled from tpchgen-cli's Parquet files.

Each table is one INSERT ... SELECT FROM read_parquet(files), which DuckDB runs on all its
threads and writes straight into the database file. Keys are optional here and off by
default: DuckDB's plans scan and hash-join rather than use indexes, and building its ART
indexes after the load made it about 2.3x slower at scale factor 1 (primary keys: +5.5 s,
foreign-key indexes: +9.7 s on a 6.3 s load, and 3.3x the file size).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dbstor.engines.base import Engine
from dbstor.engines.duckdb import ctrl_c_kept
from dbstor.workloads.dss import schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "none"  # the indexes built unless --indexes says
KEY_INLINE = False  # primary keys added after the load
PARALLEL = False  # the loader takes workers (one data file part each)
FORMAT = "parquet"


def _quoted_list(files: list[Any]) -> str:
    return "[" + ", ".join("'" + str(f).replace("'", "''") + "'" for f in files) + "]"


def build(
    engine: Engine, data: Generated, scale: float, indexes: str, say: Callable[[str], None]
) -> Phases:
    phases = Phases()
    conn = engine.connect()
    try:
        with ctrl_c_kept():
            _fill(conn, engine, data, scale, indexes, phases)
    finally:
        conn.close()
    return phases


def _fill(
    conn: Any, engine: Engine, data: Generated, scale: float, indexes: str, phases: Phases
) -> None:
    placements = [engine.placement(i) for i in range(len(schema.TABLES))]
    with phases.timed("load"):
        for table, (prefix, suffix) in zip(schema.TABLES, placements, strict=True):
            conn.execute(schema.create_table(table, engine.dialect, scale, prefix, suffix))
            columns = ", ".join(table.column_names)
            done = conn.execute(
                f"INSERT INTO {prefix}{table.name} ({columns}) SELECT {columns} "
                f"FROM read_parquet({_quoted_list(data.files[table.name])})"
            ).fetchall()
            phases.rows[table.name] = int(done[0][0])
        _checkpoint(conn, placements)
    if indexes != "none":
        with phases.timed("keys"):
            for table, (prefix, _) in zip(schema.TABLES, placements, strict=True):
                conn.execute(schema.add_primary_key(table, engine.dialect, prefix))
                if indexes == "all":
                    for sql in schema.create_foreign_key_indexes(table, engine.dialect, prefix):
                        conn.execute(sql)
            _checkpoint(conn, placements)
    with phases.timed("analyze"):
        conn.execute("ANALYZE")


def _checkpoint(conn: Any, placements: list[tuple[str, str]]) -> None:
    """Write everything to the database files (and empty the write-ahead logs)."""
    conn.execute("CHECKPOINT")
    for prefix in sorted({p for p, _ in placements if p}):
        conn.execute(f"CHECKPOINT {prefix.rstrip('.')}")
