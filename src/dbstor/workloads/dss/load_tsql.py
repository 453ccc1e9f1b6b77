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

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from dbstor.engines.base import Engine
from dbstor.workloads.dss import row_loader, schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "all"  # the indexes built unless --indexes says
KEY_INLINE = False  # primary keys added after the load
PARALLEL = True  # the loader takes workers (one data file part each)
FORMAT = "csv"
VALUES_ROWS = 1000
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
    return row_loader.build(engine, data, scale, indexes, workers, send, statistics)


def send(cur: Any, table: schema.Table, rows: Iterable[Sequence[str]]) -> Iterator[int]:
    """A part's rows as multi-row INSERTs of literals; the rows each carried."""
    for sql, count in inserts(table, rows):
        cur.execute(sql)
        yield count


def statistics(table: str) -> str:
    return f"UPDATE STATISTICS {table} WITH FULLSCAN"
