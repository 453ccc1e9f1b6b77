"""Oracle: NUMBER and VARCHAR2 columns, :1, :2, ... binds (python-oracledb binds them by
position), FETCH FIRST n ROWS ONLY for LIMIT, MERGE for upserts, tables and indexes in a
tablespace, optimizer statistics through DBMS_STATS, bulk load by executemany.

No statement sets a server-side limit on each statement: Oracle has none a session can
set in SQL (Resource Manager's limits are the DBA's, per consumer group). A query's
timeout is the client's: the QueryTimer calls python-oracledb's Connection.cancel(), which
ends the running call with ORA-01013; dbstor's own connections carry oracledb's
call_timeout (engines/oracle.py), which bounds each round trip.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.dialects.base import Dialect

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Table

BATCH_ROWS = 5_000  # rows per executemany() round trip of the bulk load
_LIMIT = re.compile(r"\bLIMIT\s+(\?|\d+)", re.IGNORECASE)


def numbered(text: str) -> str:
    """Each ? in order as :b1, :b2, ... (bound by position) (the statements hold no literal '?')."""
    count = itertools.count(1)
    return re.sub(r"\?", lambda _: f":b{next(count)}", text)


def fetch_first(text: str) -> str:
    """LIMIT n (or LIMIT ?) as Oracle's row limiting clause, FETCH FIRST n ROWS ONLY."""
    return _LIMIT.sub(r"FETCH FIRST \1 ROWS ONLY", text)


# a statement SQL*Plus reads as PL/SQL: a stored unit's CREATE, or an anonymous block
_PLSQL = re.compile(
    r"\s*(BEGIN\b|DECLARE\b|CREATE\s+(OR\s+REPLACE\s+)?(PROCEDURE|FUNCTION|PACKAGE|TRIGGER|TYPE)\b)",
    re.IGNORECASE,
)


class Oracle(Dialect):
    name = "oracle"
    workloads = ("brokerage", "orders", "blocks", "dss")
    types: ClassVar[dict[str, str]] = {
        "id": "NUMBER(19)",
        "int": "NUMBER(10)",
        "small": "NUMBER(5)",
        "money": "NUMBER(19)",
        "ts": "NUMBER(19)",
        "day": "NUMBER(10)",
        # a date and a time of day to the second (7 bytes), as HammerDB's TPROC-C has it
        "datetime": "DATE",
    }
    param = ":k"  # a bind written by hand; SQL binds each occurrence by its position
    indexes_take_suffix = True  # CREATE INDEX ... TABLESPACE x

    def text_type(self, size: int) -> str:
        return f"VARCHAR2({size})"

    def decimal_type(self, precision: int, scale: int) -> str:
        return f"NUMBER({precision},{scale})"

    def render(self, text: str) -> str:
        return numbered(fetch_first(text.replace("{for_update}", self.for_update)))

    def script_statement(self, sql: str) -> str:
        """SQL*Plus and SQLcl end a PL/SQL block (a procedure, BEGIN ... END;) with a line
        holding only "/", and a plain SQL statement with a semicolon."""
        text = sql.rstrip()
        if _PLSQL.match(text):
            return (text if text.endswith(";") else text + ";") + "\n/"
        return text.rstrip(";").rstrip() + ";"

    def insert(self, table: Table) -> str:
        """The bulk load's INSERT of one row, binds by position."""
        marks = ", ".join(f":b{i}" for i in range(1, len(table.columns) + 1))
        return f"INSERT INTO {table.name} ({', '.join(table.column_names)}) VALUES ({marks})"

    def put_rows(self, cur: Any, table: Table, rows: list[tuple]) -> None:
        """executemany() in batches: one round trip per BATCH_ROWS rows."""
        sql = self.insert(table)
        rows = typed_rows(table, rows)
        for i in range(0, len(rows), BATCH_ROWS):
            cur.executemany(sql, rows[i : i + BATCH_ROWS])

    def analyze(self, tables: Sequence[Table]) -> list[str]:
        """DBMS_STATS on each table of the session's current schema (dbstor's)."""
        return [gather_stats(t.name) for t in tables]

    def autocommit(self, connection: Any) -> None:
        connection.autocommit = True  # python-oracledb: an attribute

    # --- dss: analytic columns and query text ------------------------------------------

    def analytic_type(self, kind: str, size: int | None) -> str:
        """NUMBER for keys and counts (Oracle has no BIGINT), NUMBER(15,2) for money,
        CHAR(n) and VARCHAR2(n) for text, DATE (which also holds a time of day: dss
        writes none)."""
        return {
            "id": "NUMBER(10)",
            "bigid": "NUMBER(19)",
            "int": "NUMBER(10)",
            "decimal": "NUMBER(15,2)",
            "date": "DATE",
            "char": f"CHAR({size})",
            "varchar": f"VARCHAR2({size})",
        }[kind]

    def shift(self, iso: str, amount: int, unit: str) -> str:
        """Days by date arithmetic (an INTERVAL '120' DAY overflows its default precision
        of two digits); months and years by ADD_MONTHS (an INTERVAL of months added to
        the 31st fails with ORA-01839 where the month is shorter)."""
        if unit == "day":
            return f"(date '{iso}' {'-' if amount < 0 else '+'} {abs(amount)})"
        months = amount * (12 if unit == "year" else 1)
        return f"add_months(date '{iso}', {months})"

    def substring(self, column: str, start: int, length: int) -> str:
        return f"substr({column}, {start}, {length})"

    def derived(self, alias: str, columns: tuple[str, ...]) -> str:
        return alias  # no column list on a derived table: the columns are named inside

    def counted_as(self, name: str) -> str:
        return f" as {name}"

    def table_alias(self, alias: str) -> str:
        return alias  # AS before a table alias is an error (ORA-00933)

    def first_rows(self, count: int) -> str:
        return f"fetch first {count} rows only"


def _from_iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


def typed_rows(table: Table, rows: list[tuple]) -> list[tuple]:
    """Generated rows with decimal text ('12.34') as Decimal and ISO date-and-time text as
    datetime: python-oracledb binds those as NUMBER and DATE, where Oracle would read text by
    the session's NLS formats (a decimal comma, 'DD-MON-RR')."""
    kinds = [kind.rstrip("?") for _, kind in table.columns]
    convert = {
        at: Decimal if kind.startswith("dec:") else _from_iso
        for at, kind in enumerate(kinds)
        if kind.startswith("dec:") or kind == "datetime"
    }
    if not convert:
        return rows
    return [
        tuple(convert[at](v) if at in convert and v is not None else v for at, v in enumerate(row))
        for row in rows
    ]


def gather_stats(table: str) -> str:
    """The PL/SQL block that gathers one table's optimizer statistics."""
    return (
        "BEGIN DBMS_STATS.GATHER_TABLE_STATS(SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA'), "
        f"'{table.upper()}'); END;"
    )


DIALECT = Oracle()
