"""T-SQL, spoken by Microsoft SQL Server (through pymssql): %s placeholders; TOP/OFFSET
... FETCH instead of LIMIT and table hints (WITH (UPDLOCK, ROWLOCK)) instead of FOR
UPDATE, both written from the shared statements by render(); the clustered primary key
made with the table, ON [filegroup] for tables and indexes; multi-row INSERTs of at most
1,000 rows (T-SQL's limit on a VALUES list) for bulk load; UPDATE STATISTICS. SQL Server
has no server-side limit on a statement's run time (LOCK_TIMEOUT bounds lock waits
only), so the client's QueryTimer cancels a long query."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.dialects.base import Dialect
from dbstor.dialects.procedures import with_nulls

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Table

VALUES_ROWS = 1000  # T-SQL's most rows in one INSERT ... VALUES
_LIMIT = re.compile(r"\s+LIMIT\s+(\?|\d+)")
_FIRST_TABLE = re.compile(r"\bFROM (\w+)")
LOCKING_HINT = " WITH (UPDLOCK, ROWLOCK)"


class Tsql(Dialect):
    name = "tsql"
    workloads = ("brokerage", "orders", "blocks", "dss")
    types: ClassVar[dict[str, str]] = {
        "id": "BIGINT",
        "int": "INT",
        "small": "SMALLINT",
        "money": "BIGINT",
        "ts": "BIGINT",
        "day": "INT",
        "datetime": "DATETIME2(0)",  # 6 bytes, to the second; 'YYYY-MM-DD hh:mm:ss' always reads the same
    }
    for_update = ""  # a locking read is a table hint, written by render()
    indexes_take_suffix = True  # CREATE INDEX ... ON [filegroup]

    def time_literal(self, iso: str) -> str:
        """T-SQL has no TIMESTAMP literal (TIMESTAMP is rowversion there): ISO text, which
        DATETIME2 reads whatever the session's DATEFORMAT."""
        return f"'{iso}'"

    def render(self, text: str) -> str:
        """The shared statement in T-SQL: {for_update} becomes a locking hint on the
        statement's first table (every locking read reads one table), LIMIT n after an
        ORDER BY becomes OFFSET 0 ROWS FETCH NEXT n ROWS ONLY, ? becomes %s."""
        if "{for_update}" in text:
            text = _FIRST_TABLE.sub(r"FROM \1" + LOCKING_HINT, text.replace("{for_update}", ""), 1)
        text = _LIMIT.sub(r" OFFSET 0 ROWS FETCH NEXT \1 ROWS ONLY", text)
        return text.replace("?", self.param)

    def analyze(self, tables: Sequence[Table]) -> list[str]:
        return [f"UPDATE STATISTICS {t.name}" for t in tables]

    def script_statement(self, sql: str) -> str:
        """sqlcmd and SSMS run a script in batches ended by GO, and CREATE PROCEDURE must
        be alone in its batch: every statement is its own batch."""
        return sql.rstrip().rstrip(";").rstrip() + "\nGO"

    def put_rows(self, cur: Any, table: Table, rows: list[tuple]) -> None:
        """Multi-row INSERTs of at most 1,000 rows, the VALUES written by repr():
        generated values are ints, None and plain ASCII text without quotes, whose
        Python literals are T-SQL literals too."""
        head = f"INSERT INTO {table.name} ({', '.join(table.column_names)}) VALUES "
        for i in range(0, len(rows), VALUES_ROWS):
            batch = rows[i : i + VALUES_ROWS]
            batch = with_nulls(batch)
            cur.execute(head + ",".join(repr(r) if len(r) > 1 else f"({r[0]!r})" for r in batch))

    def analytic_type(self, kind: str, size: int | None) -> str:
        return f"CHAR({size})" if kind == "char" else super().analytic_type(kind, size)

    def add_key_after(
        self, table: str, name: str, key: Sequence[str], prefix: str, suffix: str
    ) -> str:
        """The clustered primary key, built after loading, on the table's filegroup."""
        return (
            f"ALTER TABLE {table} ADD CONSTRAINT {name} PRIMARY KEY CLUSTERED"
            f" ({', '.join(key)}){suffix}"
        )

    # --- query text -------------------------------------------------------------------

    def first_rows(self, count: int) -> str:
        return f"offset 0 rows fetch next {count} rows only"

    def date(self, iso: str) -> str:
        return f"CAST('{iso}' AS DATE)"

    def shift(self, iso: str, amount: int, unit: str) -> str:
        return f"DATEADD({unit}, {amount}, CAST('{iso}' AS DATE))"

    def year(self, column: str) -> str:
        return f"YEAR({column})"

    def substring(self, column: str, start: int, length: int) -> str:
        return f"SUBSTRING({column}, {start}, {length})"

    def like(self, column: str, pattern: str, negate: bool = False) -> str:
        """Case-sensitive whatever the database's collation (SQL Server's default is not)."""
        return f"{column} COLLATE Latin1_General_CS_AS {'NOT ' if negate else ''}LIKE '{pattern}'"


DIALECT = Tsql()
