"""Building a workload's database: tables on their placements, bulk loading, keys, indexes,
statistics. One path for every workload; the workload gives its tables, its chunks of work
and a function that generates one chunk's rows (deterministic, in key order per table).

Bulk paths per dialect (each dialect's put_rows and load settings, dbstor/dialects/):
  sqlite    multi-row INSERTs (about 4,000 values a statement) in one transaction per
            chunk on one connection, with synchronous=OFF and a big page cache while
            loading; chunks are generated in forked worker processes ahead of the
            inserting one, and inserted in the order of the work list.
  postgres  COPY ... FROM STDIN (psycopg write_row) into key-less tables, then primary keys.
  mysql     multi-row INSERTs of about 1 MB, rendered here (not by the driver), into
            tables clustered on their primary key; rows come in key order.
Server engines load chunks in parallel forked worker processes, each on its own
connection, and build keys and indexes table by table on parallel connections. Workers
inherit what they need by fork: the chunks and the generating function are never pickled
except the chunks themselves (small descriptors).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from dbstor.dialects import registry
from dbstor.dialects.base import Dialect
from dbstor.engines.base import Engine
from dbstor.workloads import tables as ddl
from dbstor.workloads.load_report import LoadReport
from dbstor.workloads.tables import Table

Rows = dict[str, list[tuple]]  # table name -> rows, in primary-key order

MAX_WORKERS = 8
PROGRESS_EVERY_S = 5.0
_STATE: dict[str, Any] = {}  # what forked workers inherit: engine, generate


@dataclass(frozen=True)
class BulkLoad:
    """What to build: `label` names the workload in progress lines; `work` is the list of
    chunks (small picklable descriptors) and `generate(chunk)` their rows per table."""

    label: str
    tables: Sequence[Table]
    work: Sequence[Any]
    generate: Callable[[Any], Rows]
    after: Sequence[str] = ()  # statements run last (stored procedures, ...)


def build(engine: Engine, load: BulkLoad, say: Callable[[str], None]) -> LoadReport:
    """Create, load, key, index and analyze the tables on the engine; run load.after."""
    dialect = engine.dialect
    own = registry.get(dialect)
    started = time.monotonic()
    conn = engine.connect()
    try:
        placements = [engine.placement(i) for i in range(len(load.tables))]
        creates, per_table, last = ddl_statements(load.tables, dialect, placements, load.after)
        execute(conn, creates)
        if own.loads_in_process:
            counts, size = _load_in_process(conn, own, load, say, started)
        else:
            counts, size = _load_parallel(engine, load, say, started)
        loaded = time.monotonic()
        if own.loads_in_process:
            execute(conn, [s for group in per_table for s in group])
        else:
            _parallel_ddl(engine, per_table)
        execute(conn, last)
        own.after_load(conn)
        rows = sum(counts.values())
        seconds = time.monotonic() - started
        say(
            f"  {load.label}: {rows:,} rows loaded in {loaded - started:.1f} s, keys, indexes "
            f"and statistics in {time.monotonic() - loaded:.1f} s ({rows / seconds:,.0f} rows/s, "
            f"{size / seconds / 1e6:.1f} MB/s of row data)"
        )
        return LoadReport(rows=rows, seconds=seconds, bytes=size, tables=dict(counts))
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def ddl_statements(
    tables: Sequence[Table],
    dialect: str,
    placements: Sequence[tuple[str, str]] | None = None,
    after: Sequence[str] = (),
) -> tuple[list[str], list[list[str]], list[str]]:
    """The SQL build() runs, without a connection (also for `dbstor sql`): CREATE TABLE
    for each table, each table's key and indexes (built after the load), then statistics
    and `after`. `placements` come from engine.placement() (none: one data path)."""
    placed = placements or [("", "")] * len(tables)
    creates = [ddl.create_table(t, dialect, *p) for t, p in zip(tables, placed, strict=True)]
    per_table = []
    for table, (prefix, suffix) in zip(tables, placed, strict=True):
        key = ddl.add_primary_key(table, dialect, suffix)
        per_table.append([key] if key else [])
        per_table[-1] += ddl.create_indexes(table, dialect, prefix, suffix)
    return creates, per_table, ddl.analyze(dialect, tables) + list(after)


def execute(conn: Any, statements: Sequence[str]) -> None:
    """Run statements (no parameters) and commit."""
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


class Progress:
    """Says how far loading got, every few seconds: chunks, rows, rows/s, MB/s."""

    def __init__(self, label: str, total: int, say: Callable[[str], None], started: float):
        self.label, self.total, self.say, self.started = label, total, say, started
        self.done = self.rows = self.bytes = 0
        self.last = started

    def chunk(self, rows: int, size: int) -> None:
        self.done += 1
        self.rows += rows
        self.bytes += size
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S and self.done < self.total:
            self.last = now
            seconds = max(1e-9, now - self.started)
            self.say(
                f"  {self.label}: {self.done}/{self.total} chunks, {self.rows:,} rows "
                f"({self.rows / seconds:,.0f} rows/s, {self.bytes / seconds / 1e6:.1f} MB/s)"
            )


def _sizes(rows: Rows) -> tuple[dict[str, int], int]:
    return {t: len(d) for t, d in rows.items()}, sum(row_bytes(d) for d in rows.values())


# --- SQLite: one connection, generation ahead in worker processes -------------------------


def _load_in_process(
    conn: Any, own: Dialect, load: BulkLoad, say: Callable[[str], None], started: float
) -> tuple[Counter[str], int]:
    own.before_load(conn)
    by_name = {t.name: t for t in load.tables}
    counts: Counter[str] = Counter()
    size = 0
    progress = Progress(load.label, len(load.work), say, started)
    cur = conn.cursor()
    for rows in _generated(load):
        if not conn.in_transaction:
            cur.execute("BEGIN")
        for name, data in rows.items():
            if data:
                own.put_rows(cur, by_name[name], data)
        conn.commit()
        chunk_counts, chunk_bytes = _sizes(rows)
        counts.update(chunk_counts)
        size += chunk_bytes
        progress.chunk(sum(chunk_counts.values()), chunk_bytes)
    return counts, size


def _generate_in_worker(chunk: Any) -> Rows:
    return _STATE["generate"](chunk)


def _plain_signals() -> None:
    """A generating worker dies quietly when the pool ends it (SIGTERM) or on Ctrl-C: the
    parent's handlers (SIGTERM as Ctrl-C) are not for it."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _generated(load: BulkLoad) -> Iterator[Rows]:
    """Chunks' rows in work order; generated by up to 2 forked processes when there are
    CPUs to spare (the inserting process is the bottleneck), else here."""
    helpers = min(2, (os.cpu_count() or 1) - 1, len(load.work) - 1)
    if helpers < 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from (load.generate(chunk) for chunk in load.work)
        return
    _STATE["generate"] = load.generate
    try:
        with multiprocessing.get_context("fork").Pool(helpers, _plain_signals) as pool:
            yield from pool.imap(_generate_in_worker, load.work)
    finally:
        _STATE.clear()


# --- PostgreSQL and MariaDB: worker processes, one connection each ---------------------


def _worker(tasks: Any, results: Any) -> None:
    _plain_signals()  # ended by terminate() when another worker failed: quietly
    logging.getLogger("psycopg").setLevel(logging.ERROR)  # the error itself is reported
    engine, load = _STATE["engine"], _STATE["load"]
    put = registry.get(engine.dialect).put_rows
    by_name = {t.name: t for t in load.tables}
    conn = None
    try:
        conn = engine.connect()
        cur = conn.cursor()
        while (index := tasks.get()) is not None:
            rows = load.generate(load.work[index])
            for name, data in rows.items():
                if data:
                    put(cur, by_name[name], data)
            conn.commit()
            results.put(("ok", *_sizes(rows)))
    except Exception as exc:
        results.put(("error", f"{type(exc).__name__}: {exc}", 0))
    finally:
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def workers_for(work: int) -> int:
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1, work))


def _load_parallel(
    engine: Engine, load: BulkLoad, say: Callable[[str], None], started: float
) -> tuple[Counter[str], int]:
    workers = workers_for(len(load.work))
    _STATE.update(engine=engine, load=load)
    ctx = multiprocessing.get_context("fork")
    tasks, results = ctx.Queue(), ctx.Queue()
    for index in range(len(load.work)):
        tasks.put(index)
    for _ in range(workers):
        tasks.put(None)
    procs = [
        ctx.Process(target=_worker, args=(tasks, results), daemon=True) for _ in range(workers)
    ]
    for proc in procs:
        proc.start()
    counts: Counter[str] = Counter()
    size = 0
    progress = Progress(load.label, len(load.work), say, started)
    finished = False
    try:
        for _ in load.work:
            status, payload, nbytes = _next_result(load.label, results, procs)
            if status != "ok":
                raise RuntimeError(f"{load.label} load failed: {payload}")
            counts.update(payload)
            size += nbytes
            progress.chunk(sum(payload.values()), nbytes)
        finished = True
    finally:
        for proc in procs:
            proc.join(timeout=60 if finished else 0)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        _STATE.clear()
    return counts, size


def _next_result(label: str, results: Any, procs: list[Any]) -> tuple[str, Any, int]:
    while True:
        try:
            return results.get(timeout=1)
        except queue.Empty:
            if not any(p.is_alive() for p in procs):
                raise RuntimeError(f"{label} load workers exited early") from None


def _parallel_ddl(engine: Engine, groups: list[list[str]]) -> None:
    """Each table's key and index statements, tables spread over parallel connections
    (threads: the server does the work), biggest tables first as listed."""
    pending = queue.SimpleQueue()
    for group in groups:
        if group:
            pending.put(group)
    failures: list[BaseException] = []

    def run() -> None:
        try:
            conn = engine.connect()
        except Exception as exc:
            failures.append(exc)
            return
        try:
            while not failures:
                try:
                    group = pending.get_nowait()
                except queue.Empty:
                    return
                execute(conn, group)
        except Exception as exc:
            failures.append(exc)
        finally:
            with contextlib.suppress(Exception):
                conn.close()

    threads = [
        threading.Thread(target=run, name=f"dbstor-ddl-{n}")
        for n in range(workers_for(len(groups)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
