"""Building the user tables with set-based SQL the engine runs itself.

The rows are synthetic, so nothing is generated on the client: each table is filled by
INSERT ... SELECT over generate_series (PostgreSQL) or a recursive CTE (MariaDB/MySQL,
SQLite), in chunks, the pad computed by the engine from the seed (schema.fill). Server
engines fill several tables at once, one connection per thread (the threads only wait on
their sockets); SQLite fills them one after another on one connection with
synchronous=OFF, then checkpoints its WAL. After the fill: PostgreSQL's primary key,
statistics (PostgreSQL: VACUUM ANALYZE), the server-side visit routines (server.py) and the
tables' size as the engine reports it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.workloads.base import LoadReport
from dbstor.workloads.blocks import schema, server
from dbstor.workloads.blocks.schema import Geometry

MAX_THREADS = 4
PROGRESS_S = 5.0


@dataclass(frozen=True)
class Plan:
    """What to build: `tables` tables of `rows` rows each under `seed`."""

    tables: int
    rows: int
    seed: int

    @property
    def names(self) -> list[str]:
        return [schema.table_name(k) for k in range(1, self.tables + 1)]


@dataclass(frozen=True)
class Built:
    report: LoadReport
    shape: Geometry
    table_bytes: int | None  # the tables' size as the engine reports it


class _Progress:
    """Rows filled so far, from any thread; a line every PROGRESS_S seconds."""

    def __init__(self, total: int, say: Callable[[str], None]):
        self.total, self.say = total, say
        self.rows = 0
        self.started = self.last = time.monotonic()
        self.lock = threading.Lock()
        self.failed = threading.Event()

    def add(self, rows: int) -> None:
        with self.lock:
            self.rows += rows

    def tick(self) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_S and self.rows < self.total:
            self.last = now
            rate = self.rows / max(1e-9, now - self.started)
            self.say(f"  blocks: {self.rows:,}/{self.total:,} rows ({rate:,.0f} rows/s)")


def build(engine: Engine, plan: Plan, say: Callable[[str], None]) -> Built:
    """Create, fill, key and analyze the user tables; the load report."""
    started = time.monotonic()
    conn = engine.connect()
    try:
        shape = schema.geometry(engine.dialect, page_size(conn, engine.dialect))
        cur = conn.cursor()
        for i, name in enumerate(plan.names):
            cur.execute(schema.create_table(shape, name, *engine.placement(i)))
        conn.commit()
        progress = _Progress(plan.tables * plan.rows, say)
        if registry.get(engine.dialect).loads_in_process:
            counts = _fill_in_process(conn, shape, plan, progress)
        else:
            counts = _fill_parallel(engine, shape, plan, progress)
        size = table_bytes(conn, engine.dialect, plan.names)
    finally:
        with contextlib.suppress(Exception):
            conn.close()
    seconds = time.monotonic() - started
    rows = sum(counts.values())
    data = rows * shape.row_bytes
    on_disk = f", {size / 1e6:,.1f} MB of table ({size / rows / 8192:.2f} 8K blocks a row)"
    say(
        f"  blocks: {plan.tables} tables x {plan.rows:,} rows in {seconds:.1f} s: "
        f"{rows / seconds:,.0f} rows/s, {data / seconds / 1e6:,.1f} MB/s of row data"
        f"{on_disk if size and rows else ''}"
    )
    report = LoadReport(rows=rows, seconds=seconds, bytes=data, tables=counts)
    return Built(report=report, shape=shape, table_bytes=size)


def page_size(conn: Any, dialect: str) -> int | None:
    """InnoDB's page size (mysql) or PostgreSQL's block size; None for SQLite (8K)."""
    query = server.part(dialect).PAGE_SIZE_QUERY
    if query is None:
        return None
    cur = conn.cursor()
    cur.execute(query)
    value = int(cur.fetchone()[0])
    conn.commit()
    return value


def _fill_table(conn: Any, shape: Geometry, name: str, plan: Plan, progress: _Progress) -> int:
    """Fill one table chunk by chunk, committing each; the rows inserted."""
    cur = conn.cursor()
    statement, step, done = schema.fill(shape, name), schema.chunk_rows(shape.dialect), 0
    for first in range(1, plan.rows + 1, step):
        if progress.failed.is_set():
            break
        last = min(plan.rows, first + step - 1)
        cur.execute(statement, schema.fill_params(shape.dialect, plan.seed, first, last))
        conn.commit()
        done += cur.rowcount
        progress.add(cur.rowcount)
    return done


# --- embedded (SQLite): one connection ------------------------------------------------


def _fill_in_process(conn: Any, shape: Geometry, plan: Plan, progress: _Progress) -> dict[str, int]:
    conn.create_function(schema.PAD_FUNCTION, 3, schema.pad_text, deterministic=True)
    own = registry.get(shape.dialect)
    own.before_load(conn)
    counts = {}
    for name in plan.names:
        counts[name] = _fill_table(conn, shape, name, plan, progress)
        progress.tick()
        conn.execute(schema.analyze(shape.dialect, name))
        conn.commit()
    own.after_load(conn)  # durable and compact before the first point
    return counts


# --- PostgreSQL and MariaDB: a thread per table at a time --------------------------------


def _build_table(
    engine: Engine, shape: Geometry, name: str, index: int, plan: Plan, progress: _Progress
) -> int:
    """Fill one table on a connection of its own, then key and analyze it."""
    conn = engine.connect()
    try:
        rows = _fill_table(conn, shape, name, plan, progress)
        cur = conn.cursor()
        key = schema.add_primary_key(shape, name, engine.placement(index)[1])
        if key:
            cur.execute(key)
            conn.commit()
        if server.part(shape.dialect).ANALYZE_IN_AUTOCOMMIT:  # VACUUM: not in a transaction
            registry.get(shape.dialect).autocommit(conn)
        cur.execute(schema.analyze(shape.dialect, name))
        if cur.description:
            cur.fetchall()  # ANALYZE TABLE's result set
        conn.commit()
        for statement in server.ddl(shape.dialect, name):  # the server-side visit loop
            cur.execute(statement)
        conn.commit()
        return rows
    except BaseException:
        progress.failed.set()
        raise
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def _fill_parallel(
    engine: Engine, shape: Geometry, plan: Plan, progress: _Progress
) -> dict[str, int]:
    workers = max(1, min(MAX_THREADS, os.cpu_count() or 1, plan.tables))
    with concurrent.futures.ThreadPoolExecutor(workers, "dbstor-blocks-load") as pool:
        futures = {
            pool.submit(_build_table, engine, shape, name, i, plan, progress): name
            for i, name in enumerate(plan.names)
        }
        pending = set(futures)
        while pending:
            finished, pending = concurrent.futures.wait(
                pending, timeout=1.0, return_when=concurrent.futures.FIRST_EXCEPTION
            )
            for future in finished:
                if future.exception() is not None:
                    progress.failed.set()
                    for other in pending:
                        other.cancel()
                    raise future.exception()  # type: ignore[misc]
            progress.tick()
        return {futures[f]: f.result() for f in futures}


# --- size -------------------------------------------------------------------------------


def table_bytes(conn: Any, dialect: str, names: list[str]) -> int | None:
    """The tables' size as the engine reports it, cheaply: PostgreSQL the heaps' main
    forks (pg_relation_size), MariaDB DATA_LENGTH (pages reserved for the clustered
    index, after ANALYZE TABLE), SQLite the pages in use in its files (the tables are
    nearly all of them). None when the engine will not say."""
    try:
        return server.part(dialect).table_bytes(conn, names)
    except Exception:
        with contextlib.suppress(Exception):
            conn.rollback()
        return None
