"""SQLite: one file per database, ? placeholders, no locking reads (the writer holds the
database), transactions opened by the client, tables clustered on their primary key."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.dialects.base import Dialect

if TYPE_CHECKING:
    from dbstor.workloads.tables import Table


class Sqlite(Dialect):
    name = "sqlite"
    workloads = ("brokerage", "orders", "blocks", "dss")
    types: ClassVar[dict[str, str]] = {
        t: "INTEGER" for t in ("id", "int", "small", "money", "ts", "day")
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

    def analyze(self, tables: Sequence[Table]) -> list[str]:
        return ["ANALYZE"]

    def connect_file(self, path: Path) -> Any:
        return sqlite3.connect(path)

    def begin(self, connection: Any, writer: bool) -> None:
        """BEGIN IMMEDIATE for a writer takes the write lock up front (no deadlock
        between two readers that both upgrade); a plain BEGIN for a reader."""
        if not connection.in_transaction:
            connection.execute("BEGIN IMMEDIATE" if writer else "BEGIN")


DIALECT = Sqlite()
