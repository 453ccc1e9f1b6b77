"""SQL Server's bulk path for dss: tpchgen-cli's CSV rows as multi-row INSERTs.

One connection per table part, 1,000 rows a statement (T-SQL's limit on a VALUES list)
and 100,000 rows a transaction, into key-less tables (heaps) on their filegroups; then the
clustered primary keys and the foreign-key indexes (biggest table first) on the table's
filegroup, then UPDATE STATISTICS ... WITH FULLSCAN. Values are written as literals by
column kind: numbers as they are, dates and text quoted (a quote doubled), so no driver
formatting runs per value. Parsed by sqlglot in tests/unit/dialects/test_tsql.py; not run
against a live SQL Server here (docs/engines.md).
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dbstor.engines.base import Engine
from dbstor.workloads.dss import schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "all"  # the indexes built unless --indexes says
PARALLEL = True  # the loader takes workers (one data file part each)
FORMAT = "csv"
VALUES_ROWS = 1000
ROWS_PER_TRANSACTION = 100_000
NUMERIC = ("id", "bigid", "int", "decimal")


def literal(kind: str, text: str) -> str:
    """A CSV field as a T-SQL literal for a column of this kind."""
    if kind in NUMERIC:
        float(text)  # a number or ValueError, never text spliced into the statement
        return text
    return "'" + text.replace("'", "''") + "'"


def inserts(table: schema.Table, rows: Iterable[Sequence[str]]) -> Iterable[tuple[str, int]]:
    """(INSERT statement, rows in it) for the rows, VALUES_ROWS at a time."""
    kinds = [c.kind for c in table.columns]
    head = f"INSERT INTO {table.name} ({', '.join(table.column_names)}) VALUES "
    rows = iter(rows)
    while batch := list(itertools.islice(rows, VALUES_ROWS)):
        values = (
            "(" + ", ".join(literal(k, v) for k, v in zip(kinds, row, strict=True)) + ")"
            for row in batch
        )
        yield head + ", ".join(values), len(batch)


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
    _run(
        engine,
        [
            schema.create_table(t, engine.dialect, scale, *p)
            for t, p in zip(schema.TABLES, placements, strict=True)
        ],
    )
    jobs = [(t, f) for t, files in data.files.items() for f in files]
    jobs.sort(key=lambda job: job[1].stat().st_size, reverse=True)
    with phases.timed("load"):
        counts = _parallel(workers, [lambda t=t, f=f: (t, _load(engine, t, f)) for t, f in jobs])
    for table, rows in counts:
        phases.rows[table] = phases.rows.get(table, 0) + rows
    by_size = sorted(
        zip(schema.TABLES, placements, strict=True), key=lambda tp: -phases.rows.get(tp[0].name, 0)
    )
    if indexes != "none":
        with phases.timed("keys"):
            for table, (prefix, suffix) in by_size:  # the clustered key first: it moves rows
                ddl = [schema.add_primary_key(table, engine.dialect, prefix, suffix)]
                if indexes == "all":
                    ddl += schema.create_foreign_key_indexes(table, engine.dialect, prefix, suffix)
                _run(engine, ddl)
    with phases.timed("analyze"):
        _run(engine, [f"UPDATE STATISTICS {t.name} WITH FULLSCAN" for t, _ in by_size])
    return phases


def _parallel(workers: int, tasks: list[Callable[[], Any]]) -> list[Any]:
    """Run the tasks on `workers` threads in order of the list; the first failure raises."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(task) for task in tasks]
        return [future.result() for future in futures]


def _run(engine: Engine, statements: Sequence[str]) -> None:
    conn = engine.connect()
    try:
        cur = conn.cursor()
        for sql in statements:
            cur.execute(sql)
        conn.commit()
    finally:
        conn.close()


def _load(engine: Engine, table: str, path: Path) -> int:
    """One CSV part into its table; the rows loaded."""
    conn = engine.connect()
    loaded = pending = 0
    try:
        cur = conn.cursor()
        with path.open(newline="", encoding="utf-8") as source:
            reader = csv.reader(source)
            next(reader, None)  # the header
            for sql, count in inserts(schema.TABLE[table], reader):
                cur.execute(sql)
                loaded, pending = loaded + count, pending + count
                if pending >= ROWS_PER_TRANSACTION:
                    conn.commit()
                    pending = 0
        conn.commit()
        return loaded
    finally:
        conn.close()
