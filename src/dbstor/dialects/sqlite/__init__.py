"""SQLite: one file per database, ? placeholders, no locking reads (the writer holds the
database), transactions opened by the client, tables clustered on their primary key."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.dialects.base import Dialect

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Table


_UNITS = {"day": "days", "month": "months", "year": "years"}
LOAD_CACHE_KIB = 65536
VALUES_PER_STATEMENT = 4000  # bound values in one bulk INSERT  # the page cache while loading


def schemas(connection: Any) -> list[str]:
    """The attached database files' schema names (main and each placement's)."""
    return [row[1] for row in connection.execute("PRAGMA database_list") if row[1] != "temp"]


class Sqlite(Dialect):
    name = "sqlite"
    executes_on_connection = True
    workloads = ("brokerage", "orders", "blocks", "dss")
    # DECIMAL(p,s) and DATETIME are declared as a TPC-C schema writes them; SQLite gives
    # both NUMERIC affinity: a whole number is stored as an INTEGER (1-8 bytes), any other
    # decimal as an 8-byte REAL (binary floating point: not exact), and ISO date-and-time
    # text ('2023-11-14 22:13:20') stays TEXT, 19 bytes, which SQLite's date functions read
    types: ClassVar[dict[str, str]] = {
        **{t: "INTEGER" for t in ("id", "int", "small", "money", "ts", "day")},
        "datetime": "DATETIME",
    }
    param = "?"
    for_update = ""
    explicit_begin = True
    loads_in_process = True
    indexes_take_prefix = True

    def create_table(self, table: Table, prefix: str = "", suffix: str = "") -> str:
        cols = self.columns(table)
        head = f"CREATE TABLE {prefix}{table.name}"
        if table.rowid_key:
            at = table.column_names.index(table.key[0])
            cols[at] = f"{table.key[0]} INTEGER PRIMARY KEY"
            return f"{head} ({', '.join(cols)}){suffix}"
        key = f", PRIMARY KEY ({', '.join(table.key)})" if table.key else ""
        rowid = " WITHOUT ROWID" if table.key else ""
        return f"{head} ({', '.join(cols)}{key}){rowid}{suffix}"

    def bind(self, value: Decimal | datetime) -> Any:
        """sqlite3 binds neither: a Decimal as its text, which NUMERIC affinity stores as
        it stores the load's ('12.34' a REAL, '10.00' an INTEGER), a datetime as ISO text."""
        if isinstance(value, Decimal):
            return format(value, "f")
        return value.isoformat(sep=" ", timespec="seconds")

    def time_literal(self, iso: str) -> str:
        return f"'{iso}'"

    def put_rows(self, cur: Any, table: Table, rows: list[tuple]) -> None:
        """Multi-row INSERTs of about 4,000 bound values each."""
        width = len(table.columns)
        per = max(1, VALUES_PER_STATEMENT // width)
        one = "(" + ",".join("?" * width) + ")"
        full = len(rows) // per * per
        if full:
            sql = f"INSERT INTO {table.name} VALUES {','.join([one] * per)}"
            chain = itertools.chain.from_iterable
            cur.executemany(sql, (tuple(chain(rows[i : i + per])) for i in range(0, full, per)))
        if full < len(rows):
            cur.executemany(f"INSERT INTO {table.name} VALUES {one}", rows[full:])

    def before_load(self, connection: Any) -> None:
        """No sync and a big page cache while loading (the load is redone if it fails)."""
        for name in schemas(connection):
            connection.execute(f"PRAGMA {name}.synchronous = OFF")
            connection.execute(f"PRAGMA {name}.cache_size = -{LOAD_CACHE_KIB}")

    def after_load(self, connection: Any) -> None:
        """Durable and compact before the first load point: sync on, WAL checkpointed."""
        for name in schemas(connection):
            connection.execute(f"PRAGMA {name}.synchronous = FULL")
            connection.execute(f"PRAGMA {name}.wal_checkpoint(TRUNCATE)")

    def analytic_type(self, kind: str, size: int | None) -> str:
        types = {"id": "INTEGER", "bigid": "INTEGER", "int": "INTEGER", "decimal": "REAL"}
        return types.get(kind, "TEXT")

    # Dates are ISO text ('1995-03-15'): literals are strings, arithmetic is date(); LIKE
    # ignores case, so patterns become GLOB (case-sensitive, as LIKE is elsewhere).

    def date(self, iso: str) -> str:
        return f"'{iso}'"

    def shift(self, iso: str, amount: int, unit: str) -> str:
        return f"date('{iso}', '{amount:+d} {_UNITS[unit]}')"

    def year(self, column: str) -> str:
        return f"cast(strftime('%Y', {column}) as integer)"

    def substring(self, column: str, start: int, length: int) -> str:
        return f"substr({column}, {start}, {length})"

    def like(self, column: str, pattern: str, negate: bool = False) -> str:
        glob = pattern.replace("%", "*")
        return f"{column} {'not ' if negate else ''}glob '{glob}'"

    def derived(self, alias: str, columns: tuple[str, ...]) -> str:
        return f"as {alias}"  # the columns are named inside (counted_as)

    def create_view(self, name: str) -> str:
        """A temporary view, the only kind that may read tables in attached database
        files (and private to the connection, like a stream's view should be)."""
        return f"create temp view {name}"

    def counted_as(self, name: str) -> str:
        return f" as {name}"

    def analyze(self, tables: Sequence[Table]) -> list[str]:
        return ["ANALYZE"]

    def connect_file(self, path: Path) -> Any:
        return sqlite3.connect(path)

    def autocommit(self, connection: Any) -> None:
        connection.isolation_level = None

    def begin(self, connection: Any, writer: bool) -> None:
        """BEGIN IMMEDIATE for a writer takes the write lock up front (no deadlock
        between two readers that both upgrade); a plain BEGIN for a reader."""
        if not connection.in_transaction:
            connection.execute("BEGIN IMMEDIATE" if writer else "BEGIN")


DIALECT = Sqlite()
