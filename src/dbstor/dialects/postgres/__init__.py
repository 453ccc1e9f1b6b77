"""PostgreSQL: %s placeholders, COPY for bulk load, primary keys and indexes built after
the rows in the table's tablespace, a server-side statement_timeout."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.dialects.base import Dialect

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Table


class Postgres(Dialect):
    name = "postgres"
    executes_on_connection = True
    workloads = ("brokerage", "orders", "blocks", "dss")
    types: ClassVar[dict[str, str]] = {
        "id": "BIGINT",
        "int": "INTEGER",
        "small": "SMALLINT",
        "money": "BIGINT",
        "ts": "BIGINT",
        "day": "INTEGER",
        "datetime": "TIMESTAMP",  # without time zone, 8 bytes; dbstor writes UTC
    }
    keys_after_load = True
    indexes_take_suffix = True
    # libpq sends and reads apart; the threadless brokerage session also needs greenlet
    statements_without_thread = importlib.util.find_spec("greenlet") is not None

    def create_table(self, table: Table, prefix: str = "", suffix: str = "") -> str:
        """The key comes after COPY (add_primary_key)."""
        return f"CREATE TABLE {prefix}{table.name} ({', '.join(self.columns(table))}){suffix}"

    def add_primary_key(self, table: Table, suffix: str = "") -> str | None:
        if not table.key:
            return None
        using = f" USING INDEX{suffix}" if suffix else ""
        return (
            f"ALTER TABLE {table.name} ADD CONSTRAINT {table.name}_pkey"
            f" PRIMARY KEY ({', '.join(table.key)}){using}"
        )

    def decimal_type(self, precision: int, scale: int) -> str:
        return f"NUMERIC({precision},{scale})"  # variable length: 2 bytes per 4 digits

    def analytic_type(self, kind: str, size: int | None) -> str:
        return f"CHAR({size})" if kind == "char" else super().analytic_type(kind, size)

    def put_rows(self, cur: Any, table: Table, rows: list[tuple]) -> None:
        """COPY FROM STDIN of the rows (psycopg 3) into a key-less table."""
        columns = ", ".join(table.column_names)
        with cur.copy(f"COPY {table.name} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def analyze(self, tables: Sequence[Table]) -> list[str]:
        return [f"ANALYZE {t.name}" for t in tables]

    def autocommit(self, connection: Any) -> None:
        connection.autocommit = True  # psycopg: an attribute

    def statement_timeout(self, seconds: float) -> str | None:
        return f"SET statement_timeout = {max(1, round(seconds * 1000))}"


DIALECT = Postgres()
