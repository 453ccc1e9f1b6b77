"""Oracle's bulk path for dss: tpchgen-cli's CSV rows bound by executemany().

One connection per table part (biggest first), the rows typed by column kind (int,
Decimal, datetime.date, str) and bound by position in batches of the dialect's
BATCH_ROWS, a commit every ROWS_PER_TRANSACTION rows, into key-less tables in their
tablespaces; then the primary keys (USING INDEX TABLESPACE ...) and the foreign-key
indexes, biggest table first, then DBMS_STATS.GATHER_TABLE_STATS per table. Parsed by
sqlglot in tests/unit/dialects/test_oracle_dss.py; not run against a live Oracle here
(docs/engines.md).
"""

from __future__ import annotations

import csv
import datetime
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

from dbstor.dialects.oracle import BATCH_ROWS, gather_stats
from dbstor.engines.base import Engine
from dbstor.workloads.dss import schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "all"  # the indexes built unless --indexes says
PARALLEL = True  # the loader takes workers (one data file part each)
FORMAT = "csv"
ROWS_PER_TRANSACTION = 100_000
_CONVERT: dict[str, Callable[[str], Any]] = {
    "id": int,
    "bigid": int,
    "int": int,
    "decimal": Decimal,
    "date": datetime.date.fromisoformat,
    "char": str,
    "varchar": str,
}


def insert_sql(table: schema.Table) -> str:
    """The INSERT of one row, its values bound by position (:b1, :b2, ...)."""
    marks = ", ".join(f":b{i}" for i in range(1, len(table.columns) + 1))
    return f"INSERT INTO {table.name} ({', '.join(table.column_names)}) VALUES ({marks})"


def typed_batches(
    table: schema.Table, rows: Iterable[Sequence[str]], size: int = BATCH_ROWS
) -> Iterator[list[tuple[Any, ...]]]:
    """The CSV rows as typed tuples, `size` at a time; ValueError on a field that is not
    of its column's kind (a key that is not a number, a date that is not ISO)."""
    convert = [_CONVERT[c.kind] for c in table.columns]
    rows = iter(rows)
    while batch := list(itertools.islice(rows, size)):
        yield [tuple(f(v) for f, v in zip(convert, row, strict=True)) for row in batch]


def key_statements(
    table: schema.Table, dialect: str, prefix: str, suffix: str, indexes: str
) -> list[str]:
    """The primary key and (indexes=all) the foreign-key indexes of one table."""
    ddl = [schema.add_primary_key(table, dialect, prefix, suffix)]
    if indexes == "all":
        ddl += schema.create_foreign_key_indexes(table, dialect, prefix, suffix)
    return ddl


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
            for table, (prefix, suffix) in by_size:
                _run(engine, key_statements(table, engine.dialect, prefix, suffix, indexes))
    with phases.timed("analyze"):
        _run(engine, [gather_stats(t.name) for t, _ in by_size])
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
    own = schema.TABLE[table]
    sql = insert_sql(own)
    conn = engine.connect()
    loaded = pending = 0
    try:
        cur = conn.cursor()
        with path.open(newline="", encoding="utf-8") as source:
            reader = csv.reader(source)
            next(reader, None)  # the header
            for batch in typed_batches(own, reader):
                cur.executemany(sql, batch)
                loaded, pending = loaded + len(batch), pending + len(batch)
                if pending >= ROWS_PER_TRANSACTION:
                    conn.commit()
                    pending = 0
        conn.commit()
        return loaded
    finally:
        conn.close()
