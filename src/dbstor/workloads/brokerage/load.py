"""Building the database: tables on their placements, bulk loading, keys, indexes, ANALYZE.

Bulk paths per dialect:
  sqlite    multi-row INSERTs (about 4,000 values a statement) in one transaction per
            chunk on one connection, with synchronous=OFF and a big page cache while
            loading; chunks are generated in worker processes ahead of the inserting one.
  postgres  COPY ... FROM STDIN (psycopg write_row) into key-less tables, then primary keys.
  mysql     multi-row INSERTs of about 1 MB, rendered here (not by the driver), into
            tables clustered on their primary key; rows come in key order.
Server engines load chunks in parallel worker processes, each on its own connection.
Secondary indexes are built after loading, then statistics gathered.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import queue
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from dbstor.engines.base import Engine
from dbstor.workloads.base import LoadReport
from dbstor.workloads.brokerage import schema
from dbstor.workloads.brokerage.generate import Chunk, Rows, chunks, generate
from dbstor.workloads.brokerage.keys import Keys

SQLITE_VALUES_PER_STATEMENT = 4000
SQLITE_LOAD_CACHE_KIB = 65536
MAX_WORKERS = 8
_STATE: dict[str, Any] = {}  # what forked workers inherit: engine, keys


def build(engine: Engine, keys: Keys, say: Callable[[str], None]) -> LoadReport:
    """Create, load, index and analyze the whole database on the engine."""
    dialect = engine.dialect
    started = time.monotonic()
    conn = engine.connect()
    try:
        placements = [engine.placement(i) for i in range(len(schema.TABLES))]
        _execute(
            conn,
            [
                schema.create_table(t, dialect, *p)
                for t, p in zip(schema.TABLES, placements, strict=True)
            ],
        )
        work = chunks(keys.volumes)
        if dialect == "sqlite":
            counts, size = _load_sqlite(conn, keys, work, say, started)
        else:
            conn.commit()
            counts, size = _load_parallel(engine, keys, work, say, started)
        loaded = time.monotonic()
        ddl = []
        for table, (prefix, suffix) in zip(schema.TABLES, placements, strict=True):
            key = schema.add_primary_key(table, dialect, suffix)
            ddl += [key] if key else []
            ddl += schema.create_indexes(table, dialect, prefix, suffix)
        _execute(conn, ddl + schema.analyze(dialect))
        if dialect == "sqlite":
            _sqlite_finish(conn)
        rows = sum(counts.values())
        seconds = time.monotonic() - started
        say(
            f"  brokerage: {rows:,} rows loaded in {loaded - started:.1f} s, keys, indexes and "
            f"statistics in {time.monotonic() - loaded:.1f} s ({rows / seconds:,.0f} rows/s, "
            f"{size / seconds / 1e6:.1f} MB/s of row data)"
        )
        return LoadReport(rows=rows, seconds=seconds, bytes=size, tables=dict(counts))
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def _execute(conn: Any, statements: list[str]) -> None:
    cur = conn.cursor()
    for sql in statements:
        cur.execute(sql)
    conn.commit()


def row_bytes(rows: list[tuple]) -> int:
    """Bytes of the rows as delimited text, estimated from about 50 of them."""
    if not rows:
        return 0
    step = max(1, len(rows) // 50)
    sample = rows[::step]
    text = sum(len(str(v)) + 1 for row in sample for v in row if v is not None)
    return round(text * len(rows) / len(sample))


class _Progress:
    def __init__(self, total: int, say: Callable[[str], None], started: float):
        self.total, self.say, self.started = total, say, started
        self.done = self.rows = 0
        self.last = started

    def chunk(self, rows: int) -> None:
        self.done += 1
        self.rows += rows
        now = time.monotonic()
        if now - self.last >= 5 and self.done < self.total:
            self.last = now
            rate = self.rows / max(1e-9, now - self.started)
            self.say(
                f"  brokerage: {self.done}/{self.total} chunks, {self.rows:,} rows ({rate:,.0f} rows/s)"
            )


# --- SQLite: one connection, generation ahead in worker processes -------------------------


def _sqlite_schemas(conn: Any) -> list[str]:
    return [row[1] for row in conn.execute("PRAGMA database_list") if row[1] != "temp"]


def _load_sqlite(
    conn: Any, keys: Keys, work: list[Chunk], say: Callable[[str], None], started: float
) -> tuple[Counter[str], int]:
    for name in _sqlite_schemas(conn):
        conn.execute(f"PRAGMA {name}.synchronous = OFF")
        conn.execute(f"PRAGMA {name}.cache_size = -{SQLITE_LOAD_CACHE_KIB}")
    counts: Counter[str] = Counter()
    size = 0
    progress = _Progress(len(work), say, started)
    cur = conn.cursor()
    for rows in _generated(keys, work):
        if not conn.in_transaction:
            cur.execute("BEGIN")
        for table, data in rows.items():
            _sqlite_insert(cur, schema.TABLE[table], data)
            counts[table] += len(data)
            size += row_bytes(data)
        conn.commit()
        progress.chunk(sum(len(d) for d in rows.values()))
    return counts, size


def _sqlite_insert(cur: Any, table: schema.Table, rows: list[tuple]) -> None:
    width = len(table.columns)
    per = max(1, SQLITE_VALUES_PER_STATEMENT // width)
    one = "(" + ",".join("?" * width) + ")"
    full = len(rows) // per * per
    if full:
        sql = f"INSERT INTO {table.name} VALUES {','.join([one] * per)}"
        chain = itertools.chain.from_iterable
        cur.executemany(sql, (tuple(chain(rows[i : i + per])) for i in range(0, full, per)))
    if full < len(rows):
        cur.executemany(f"INSERT INTO {table.name} VALUES {one}", rows[full:])


def _sqlite_finish(conn: Any) -> None:
    """Durable and compact before the first load point: sync on, WAL checkpointed."""
    for name in _sqlite_schemas(conn):
        conn.execute(f"PRAGMA {name}.synchronous = FULL")
        conn.execute(f"PRAGMA {name}.wal_checkpoint(TRUNCATE)")


def _generate_in_worker(chunk: Chunk) -> Rows:
    return generate(chunk, _STATE["keys"])


def _generated(keys: Keys, work: list[Chunk]) -> Iterator[Rows]:
    """Chunks' rows in order; generated by up to 2 forked processes when there are CPUs to
    spare (the inserting process is the bottleneck), else here."""
    helpers = min(2, (os.cpu_count() or 1) - 1, len(work) - 1)
    if helpers < 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from (generate(chunk, keys) for chunk in work)
        return
    _STATE["keys"] = keys
    with multiprocessing.get_context("fork").Pool(helpers) as pool:
        yield from pool.imap(_generate_in_worker, work)


# --- PostgreSQL and MariaDB: worker processes, one connection each ---------------------


def _copy_rows(cur: Any, table: schema.Table, rows: list[tuple]) -> None:
    with cur.copy(f"COPY {table.name} ({', '.join(table.column_names)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


class _Null:
    """Renders as SQL NULL inside a tuple's repr()."""

    def __repr__(self) -> str:
        return "NULL"


_NULL = _Null()
MYSQL_STATEMENT_BYTES = 1 << 20


def _insert_rows(cur: Any, table: schema.Table, rows: list[tuple]) -> None:
    """Multi-row INSERTs of about 1 MB, the VALUES written by repr(): the generator's
    values are ints, None and plain ASCII text without quotes or backslashes, whose
    Python literals are MariaDB literals too (5x faster than the driver's escaping)."""
    head = f"INSERT INTO {table.name} ({', '.join(table.column_names)}) VALUES "
    per = max(1, MYSQL_STATEMENT_BYTES // (len(repr(rows[0])) + 2))
    for i in range(0, len(rows), per):
        batch = rows[i : i + per]
        if any(None in row for row in batch):
            batch = [tuple(_NULL if v is None else v for v in row) for row in batch]
        cur.execute(head + ",".join(map(repr, batch)))


def _worker(tasks: Any, results: Any) -> None:
    engine, keys = _STATE["engine"], _STATE["keys"]
    put = _copy_rows if engine.dialect == "postgres" else _insert_rows
    conn = None
    try:
        conn = engine.connect()
        cur = conn.cursor()
        while (chunk := tasks.get()) is not None:
            rows = generate(chunk, keys)
            for table, data in rows.items():
                if data:
                    put(cur, schema.TABLE[table], data)
            conn.commit()
            results.put(
                (
                    "ok",
                    {t: len(d) for t, d in rows.items()},
                    sum(row_bytes(d) for d in rows.values()),
                )
            )
    except Exception as exc:
        results.put(("error", f"{type(exc).__name__}: {exc}", 0))
    finally:
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def _load_parallel(
    engine: Engine, keys: Keys, work: list[Chunk], say: Callable[[str], None], started: float
) -> tuple[Counter[str], int]:
    workers = max(1, min(MAX_WORKERS, os.cpu_count() or 1, len(work)))
    _STATE.update(engine=engine, keys=keys)
    ctx = multiprocessing.get_context("fork")
    tasks, results = ctx.Queue(), ctx.Queue()
    for chunk in work:
        tasks.put(chunk)
    for _ in range(workers):
        tasks.put(None)
    procs = [
        ctx.Process(target=_worker, args=(tasks, results), daemon=True) for _ in range(workers)
    ]
    for proc in procs:
        proc.start()
    counts: Counter[str] = Counter()
    size = 0
    progress = _Progress(len(work), say, started)
    finished = False
    try:
        for _ in work:
            status, payload, nbytes = _next_result(results, procs)
            if status != "ok":
                raise RuntimeError(f"brokerage load failed: {payload}")
            counts.update(payload)
            size += nbytes
            progress.chunk(sum(payload.values()))
        finished = True
    finally:
        for proc in procs:
            proc.join(timeout=60 if finished else 0)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
    return counts, size


def _next_result(results: Any, procs: list[Any]) -> tuple[str, Any, int]:
    while True:
        try:
            return results.get(timeout=1)
        except queue.Empty:
            if not any(p.is_alive() for p in procs):
                raise RuntimeError("brokerage load workers exited early") from None
