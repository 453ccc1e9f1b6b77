"""PostgreSQL's bulk path: COPY FROM STDIN of tpchgen-cli's CSV files, in parallel.

The tables are created without keys; the CSV parts (each table split into one part per
CPU) are streamed, biggest first, by one connection per CPU, each file in 1 MiB blocks
through psycopg's copy. Then primary keys and foreign-key indexes are built in parallel
(biggest table first), then VACUUM (ANALYZE) per table: statistics for the planner, and
the visibility map and hint bits set now rather than by the first queries' reads.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dbstor.engines.base import Engine
from dbstor.workloads.dss import schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "all"  # the indexes built unless --indexes says
KEY_INLINE = False  # primary keys added after the load
PARALLEL = True  # the loader takes workers (one data file part each)
FORMAT = "csv"
BLOCK = 1 << 20
INDEX_MEMORY = 256 << 20  # maintenance_work_mem for building keys and indexes


def build(
    engine: Engine,
    data: Generated,
    scale: float,
    indexes: str,
    say: Callable[[str], None],
    workers: int = 2,
) -> Phases:
    phases = Phases()
    placements = [engine.placement(i) for i in range(len(schema.TABLES))]
    conn = engine.connect()
    try:
        for table, (prefix, suffix) in zip(schema.TABLES, placements, strict=True):
            conn.execute(schema.create_table(table, engine.dialect, scale, prefix, suffix))
        conn.commit()
    finally:
        conn.close()
    jobs = [(t, f) for t, files in data.files.items() for f in files]
    jobs.sort(key=lambda job: job[1].stat().st_size, reverse=True)
    with phases.timed("load"):
        counts = _parallel(workers, [lambda t=t, f=f: (t, _copy(engine, t, f)) for t, f in jobs])
    for table, rows in counts:
        phases.rows[table] = phases.rows.get(table, 0) + rows
    if indexes != "none":
        ddl = []
        for table, (prefix, suffix) in zip(schema.TABLES, placements, strict=True):
            statements = [schema.add_primary_key(table, engine.dialect, prefix, suffix)]
            if indexes == "all":
                statements += schema.create_foreign_key_indexes(
                    table, engine.dialect, prefix, suffix
                )
            ddl += [(phases.rows.get(table.name, 0), sql) for sql in statements]
        ddl.sort(key=lambda item: item[0], reverse=True)
        memory = _index_memory(engine)
        with phases.timed("keys"):
            _parallel(workers, [lambda sql=sql: _ddl(engine, sql, memory) for _, sql in ddl])
    with phases.timed("analyze"):
        by_size = sorted(schema.TABLES, key=lambda t: -phases.rows.get(t.name, 0))
        _parallel(workers, [lambda t=t: _vacuum(engine, t.name) for t in by_size])
    return phases


def _parallel(workers: int, tasks: list[Callable[[], Any]]) -> list[Any]:
    """Run the tasks on `workers` threads in order of the list; the first failure raises."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(task) for task in tasks]
        return [future.result() for future in futures]


def _copy(engine: Engine, table: str, path: Path) -> int:
    columns = ", ".join(schema.TABLE[table].column_names)
    conn = engine.connect()
    try:
        with conn.cursor() as cur:
            sql = f"COPY {table} ({columns}) FROM STDIN (FORMAT csv, HEADER true)"
            with cur.copy(sql) as copy, path.open("rb") as source:
                while block := source.read(BLOCK):
                    copy.write(block)
            rows = int(cur.rowcount)
        conn.commit()
        return rows
    finally:
        conn.close()


def _index_memory(engine: Engine) -> int:
    limit = engine.settings.memory_limit_bytes
    return min(INDEX_MEMORY, limit // 8) if limit else INDEX_MEMORY


def _ddl(engine: Engine, sql: str, memory: int) -> None:
    conn = engine.connect()
    try:
        conn.execute(f"SET maintenance_work_mem = '{max(1024, memory // 1024)}kB'")
        conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


def _vacuum(engine: Engine, table: str) -> None:
    conn = engine.connect()
    try:
        conn.autocommit = True
        conn.execute(f"VACUUM (ANALYZE) {table}")
    finally:
        conn.close()
