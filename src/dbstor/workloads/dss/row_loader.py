"""The loader every dialect that sends dss's rows itself shares (SQL Server, Oracle): the
tables created key-less on their placements, tpchgen-cli's CSV parts loaded one
connection each (biggest first, `workers` at once, a commit every ROWS_PER_TRANSACTION
rows), then the primary keys and (indexes=all) the foreign-key indexes, biggest table
first, then each table's statistics. A dialect's module gives only how a part's rows are
sent (`send`) and the statistics statement."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dbstor.engines.base import Engine
from dbstor.workloads.dss import schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

ROWS_PER_TRANSACTION = 100_000

# send(cursor, table, csv rows): sends the rows, yielding how many each statement carried
Send = Callable[[Any, schema.Table, Iterable[Sequence[str]]], Iterator[int]]


def build(
    engine: Engine,
    data: Generated,
    scale: float,
    indexes: str,
    workers: int,
    send: Send,
    statistics: Callable[[str], str],
) -> Phases:
    phases = Phases()
    placements = [engine.placement(i) for i in range(len(schema.TABLES))]
    run_statements(
        engine,
        [
            schema.create_table(t, engine.dialect, scale, *p)
            for t, p in zip(schema.TABLES, placements, strict=True)
        ],
    )
    jobs = [(t, f) for t, files in data.files.items() for f in files]
    jobs.sort(key=lambda job: job[1].stat().st_size, reverse=True)
    with phases.timed("load"):
        tasks = [lambda t=t, f=f: (t, load_part(engine, t, f, send)) for t, f in jobs]
        counts = parallel(workers, tasks)
    for table, rows in counts:
        phases.rows[table] = phases.rows.get(table, 0) + rows
    by_size = sorted(
        zip(schema.TABLES, placements, strict=True), key=lambda tp: -phases.rows.get(tp[0].name, 0)
    )
    if indexes != "none":
        with phases.timed("keys"):
            for table, (prefix, suffix) in by_size:  # a clustered key first: it moves rows
                run_statements(
                    engine, key_statements(table, engine.dialect, prefix, suffix, indexes)
                )
    with phases.timed("analyze"):
        run_statements(engine, [statistics(t.name) for t, _ in by_size])
    return phases


def key_statements(
    table: schema.Table, dialect: str, prefix: str, suffix: str, indexes: str
) -> list[str]:
    """The primary key and (indexes=all) the foreign-key indexes of one table."""
    ddl = [schema.add_primary_key(table, dialect, prefix, suffix)]
    if indexes == "all":
        ddl += schema.create_foreign_key_indexes(table, dialect, prefix, suffix)
    return ddl


def parallel(workers: int, tasks: list[Callable[[], Any]]) -> list[Any]:
    """Run the tasks on `workers` threads in order of the list; the first failure raises."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(task) for task in tasks]
        return [future.result() for future in futures]


def run_statements(engine: Engine, statements: Sequence[str]) -> None:
    """The statements on one connection of dbstor's, committed."""
    conn = engine.connect()
    try:
        cur = conn.cursor()
        for sql in statements:
            cur.execute(sql)
        conn.commit()
    finally:
        conn.close()


def load_part(engine: Engine, table: str, path: Path, send: Send) -> int:
    """One CSV part into its table on a connection of its own; the rows loaded."""
    conn = engine.connect()
    loaded = pending = 0
    try:
        cur = conn.cursor()
        with path.open(newline="", encoding="utf-8") as source:
            reader = csv.reader(source)
            next(reader, None)  # the header
            for count in send(cur, schema.TABLE[table], reader):
                loaded, pending = loaded + count, pending + count
                if pending >= ROWS_PER_TRANSACTION:
                    conn.commit()
                    pending = 0
        conn.commit()
        return loaded
    finally:
        conn.close()
