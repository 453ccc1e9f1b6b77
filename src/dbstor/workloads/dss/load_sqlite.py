"""SQLite's bulk path: executemany over tpchgen-cli's CSV rows, in large transactions.

One connection inserts table by table, 100,000 rows a transaction, with synchronous=OFF and
a 64 MiB page cache while loading (the write-ahead log is checkpointed between
transactions). SQLite cannot add a primary key to a table, so keys are declared in CREATE
TABLE (the rows come in key order, so the key's B-tree is appended to); the foreign-key
indexes are built after loading, then ANALYZE, then synchronous=FULL and a truncating
checkpoint. Column affinity turns the CSV's text into integers and reals.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Callable
from typing import Any

from dbstor.engines.base import Engine
from dbstor.workloads.dss import schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "all"  # the indexes built unless --indexes says
KEY_INLINE = True  # primary keys in CREATE TABLE (SQLite cannot add one later)
PARALLEL = False  # the loader takes workers (one data file part each)
FORMAT = "csv"
ROWS_PER_TRANSACTION = 100_000
LOAD_CACHE_KIB = 65536


def build(
    engine: Engine, data: Generated, scale: float, indexes: str, say: Callable[[str], None]
) -> Phases:
    phases = Phases()
    conn = engine.connect()
    try:
        databases = [row[1] for row in conn.execute("PRAGMA database_list") if row[1] != "temp"]
        for name in databases:
            conn.execute(f"PRAGMA {name}.synchronous = OFF")
            conn.execute(f"PRAGMA {name}.cache_size = -{LOAD_CACHE_KIB}")
        placements = [engine.placement(i) for i in range(len(schema.TABLES))]
        with phases.timed("load"):
            for table, (prefix, suffix) in zip(schema.TABLES, placements, strict=True):
                key = indexes != "none"
                conn.execute(schema.create_table(table, engine.dialect, scale, prefix, suffix, key))
                conn.commit()
                phases.rows[table.name] = sum(
                    _insert(conn, table, path) for path in data.files[table.name]
                )
        if indexes == "all":
            with phases.timed("keys"):
                for table, (prefix, suffix) in zip(schema.TABLES, placements, strict=True):
                    for sql in schema.create_foreign_key_indexes(
                        table, engine.dialect, prefix, suffix
                    ):
                        conn.execute(sql)
                conn.commit()
        with phases.timed("analyze"):
            conn.execute("ANALYZE")
            conn.commit()
            for name in databases:
                conn.execute(f"PRAGMA {name}.synchronous = FULL")
                conn.execute(f"PRAGMA {name}.wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return phases


def _insert(conn: Any, table: schema.Table, path: Any) -> int:
    marks = ", ".join("?" * len(table.columns))
    sql = f"INSERT INTO {table.name} VALUES ({marks})"
    rows = 0
    with path.open(newline="", encoding="utf-8") as source:
        reader = csv.reader(source)
        next(reader, None)  # the header
        while batch := list(itertools.islice(reader, ROWS_PER_TRANSACTION)):
            conn.executemany(sql, batch)
            conn.commit()
            rows += len(batch)
    return rows
