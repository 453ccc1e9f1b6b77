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

import datetime
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from decimal import Decimal
from typing import Any

from dbstor.dialects.oracle import BATCH_ROWS, gather_stats
from dbstor.engines.base import Engine
from dbstor.workloads.dss import row_loader, schema
from dbstor.workloads.dss.generate import Generated
from dbstor.workloads.dss.phases import Phases

DEFAULT_INDEXES = "all"  # the indexes built unless --indexes says
KEY_INLINE = False  # primary keys added after the load
PARALLEL = True  # the loader takes workers (one data file part each)
FORMAT = "csv"
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


def build(
    engine: Engine,
    data: Generated,
    scale: float,
    indexes: str,
    say: Callable[[str], None],
    workers: int = 2,
) -> Phases:
    return row_loader.build(engine, data, scale, indexes, workers, send, gather_stats)


def send(cur: Any, table: schema.Table, rows: Iterable[Sequence[str]]) -> Iterator[int]:
    """A part's rows typed and bound by position, BATCH_ROWS a call; the rows each carried."""
    sql = insert_sql(table)
    for batch in typed_batches(table, rows):
        cur.executemany(sql, batch)
        yield len(batch)


key_statements = row_loader.key_statements  # the keys and indexes of one table
