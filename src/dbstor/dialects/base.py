"""The dialect contract: every SQL text and behaviour that differs between engines, with
the defaults most dialects share; each dialect's package overrides what it does its own way.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Table


class Dialect:
    """One SQL dialect (several engines may speak one: MariaDB and MySQL speak mysql)."""

    name: ClassVar[str]
    workloads: ClassVar[tuple[str, ...]] = ()  # the workloads that run on this dialect
    # neutral column type (workloads/tables.py) -> this dialect's type; 'str:N' and
    # 'dec:P:S' are written by column_type() (VARCHAR, decimal_type())
    types: ClassVar[dict[str, str]] = {}
    param: ClassVar[str] = "%s"  # the DB-API placeholder
    for_update: ClassVar[str] = " FOR UPDATE"  # a locking read's tail
    # the client opens each transaction itself (BEGIN, or BEGIN IMMEDIATE for writers)
    explicit_begin: ClassVar[bool] = False
    loads_in_process: ClassVar[bool] = False  # bulk load on one connection, no workers
    keys_after_load: ClassVar[bool] = False  # primary keys built after the rows are in
    indexes_take_suffix: ClassVar[bool] = False  # CREATE INDEX takes the placement suffix
    indexes_take_prefix: ClassVar[bool] = False  # an index name takes the schema prefix
    on_takes_prefix: ClassVar[bool] = False  # ALTER TABLE / CREATE INDEX ON name the schema
    # its driver sends a statement and reads the reply apart (libpq's asynchronous calls), so a
    # brokerage session can run in a greenlet on the driver's loop thread (its brokerage part's Wire)
    statements_without_thread: ClassVar[bool] = False
    # its brokerage part's Wire runs a user's transactions on the user's own thread (each
    # reply read after its send): the session's statements go through it, not a cursor
    wire_in_any_thread: ClassVar[bool] = False
    # its driver's connection runs a statement itself (sqlite3, psycopg, DuckDB, whose
    # cursor() is a new connection without the search path); else through a cursor
    executes_on_connection: ClassVar[bool] = False

    def execute(self, connection: Any, statement: str) -> Any:
        """Run one statement on a connection; what fetchall() reads its rows from."""
        if self.executes_on_connection:
            return connection.execute(statement)
        cursor = connection.cursor()
        cursor.execute(statement)
        return cursor

    # --- parts ------------------------------------------------------------------------

    @property
    def lineage(self) -> tuple[str, ...]:
        """This dialect's name and its kin's, nearest first: a kin dialect (a subclass of
        another dialect, as sqlglot's Redshift of Postgres) uses its parent's parts and
        loaders wherever it has none of its own."""
        found = [c.__dict__["name"] for c in type(self).__mro__ if "name" in c.__dict__]
        return tuple(dict.fromkeys(found))

    def part(self, workload: str) -> ModuleType | None:
        """This dialect's SQL for one workload (dbstor.dialects.<name>.<workload>, or the
        nearest kin's), or None where neither has one."""
        for name in self.lineage:
            module = f"dbstor.dialects.{name}.{workload}"
            try:
                return importlib.import_module(module)
            except ModuleNotFoundError as e:
                if e.name not in (module, f"dbstor.dialects.{name}"):
                    raise
        return None

    # --- tables -----------------------------------------------------------------------

    def column_type(self, neutral: str) -> str:
        """The type for a neutral type, with NOT NULL unless it ends in '?'."""
        nullable = neutral.endswith("?")
        base = neutral.rstrip("?")
        sql = self.text_type(int(base[4:])) if base.startswith("str:") else self.scalar_type(base)
        return sql if nullable else f"{sql} NOT NULL"

    def text_type(self, size: int) -> str:
        return f"VARCHAR({size})"

    def scalar_type(self, base: str) -> str:
        """The type of a neutral type other than text: 'dec:P:S' by decimal_type(), the
        others from `types`."""
        if base.startswith("dec:"):
            precision, scale = (int(n) for n in base[4:].split(":"))
            return self.decimal_type(precision, scale)
        return self.types[base]

    def decimal_type(self, precision: int, scale: int) -> str:
        """An exact decimal of `precision` digits, `scale` of them after the point."""
        return f"DECIMAL({precision},{scale})"

    def columns(self, table: Table) -> list[str]:
        return [f"{name} {self.column_type(kind)}" for name, kind in table.columns]

    def create_table(self, table: Table, prefix: str = "", suffix: str = "") -> str:
        """CREATE TABLE with its primary key; (prefix, suffix) from engine.placement()."""
        key = f", PRIMARY KEY ({', '.join(table.key)})" if table.key else ""
        return f"CREATE TABLE {prefix}{table.name} ({', '.join(self.columns(table))}{key}){suffix}"

    def add_primary_key(self, table: Table, suffix: str = "") -> str | None:
        """The primary key built after loading; None where CREATE made it (or none)."""
        return None

    def create_index(
        self, name: str, table: str, columns: Sequence[str], prefix: str = "", suffix: str = ""
    ) -> str:
        index = f"{prefix}{name}" if self.indexes_take_prefix else name
        on = f"{prefix}{table}" if self.on_takes_prefix else table
        tail = suffix if self.indexes_take_suffix else ""
        return f"CREATE INDEX {index} ON {on} ({', '.join(columns)}){tail}"

    def analytic_type(self, kind: str, size: int | None) -> str:
        """The type of an analytic (dss) column kind: id, bigid, int, decimal, date, char,
        varchar."""
        if kind == "char":
            return "VARCHAR"
        return {
            "id": "INTEGER",
            "bigid": "BIGINT",
            "int": "INTEGER",
            "decimal": "DECIMAL(15,2)",
            "date": "DATE",
            "varchar": f"VARCHAR({size})",
        }[kind]

    def add_key_after(
        self, table: str, name: str, key: Sequence[str], prefix: str, suffix: str
    ) -> str:
        """ALTER TABLE ... ADD CONSTRAINT <name> PRIMARY KEY, after loading."""
        using = f" USING INDEX{suffix}" if self.indexes_take_suffix and suffix else ""
        on = f"{prefix}{table}" if self.on_takes_prefix else table
        return f"ALTER TABLE {on} ADD CONSTRAINT {name} PRIMARY KEY ({', '.join(key)}){using}"

    def analyze(self, tables: Sequence[Table]) -> list[str]:
        """Statements that gather optimizer statistics on the tables."""
        return [f"ANALYZE TABLE {', '.join(t.name for t in tables)}"]

    def connect_file(self, path: Path) -> Any:
        """A DB-API connection to a new database in one file (embedded dialects only)."""
        raise ValueError(f"{self.name} keeps no database in one file")

    def put_rows(self, cur: Any, table: Table, rows: list[tuple]) -> None:
        """Bulk-load generated rows (ints, None, plain ASCII text) into the table."""
        raise NotImplementedError(f"no bulk load path for {self.name}")

    def before_load(self, connection: Any) -> None:
        """Settings for a bulk load on one connection (loads_in_process dialects)."""

    def after_load(self, connection: Any) -> None:
        """Durable and compact again before the first load point."""

    # --- values of DECIMAL and date-and-time columns ------------------------------------

    def bind(self, value: Decimal | datetime) -> Any:
        """A Decimal or a datetime as this dialect's driver binds it: itself (psycopg,
        mysqlclient, pymssql and python-oracledb bind both exactly)."""
        return value

    def time_literal(self, iso: str) -> str:
        """A date-and-time literal ('2026-01-01 00:00:00'): standard SQL's TIMESTAMP."""
        return f"TIMESTAMP '{iso}'"

    # --- query text (standard SQL; SQLite differs) ------------------------------------------

    def date(self, iso: str) -> str:
        """A date literal."""
        return f"date '{iso}'"

    def shift(self, iso: str, amount: int, unit: str) -> str:
        """The date `iso` moved by `amount` days, months or years (negative: earlier)."""
        sign = "-" if amount < 0 else "+"
        return f"date '{iso}' {sign} interval '{abs(amount)}' {unit}"

    def year(self, column: str) -> str:
        return f"extract(year from {column})"

    def substring(self, column: str, start: int, length: int) -> str:
        return f"substring({column} from {start} for {length})"

    def like(self, column: str, pattern: str, negate: bool = False) -> str:
        """column [NOT] LIKE pattern, case-sensitive everywhere (patterns use % only)."""
        return f"{column} {'not ' if negate else ''}like '{pattern}'"

    def derived(self, alias: str, columns: tuple[str, ...]) -> str:
        """A derived table's alias with its column names."""
        return f"as {alias} ({', '.join(columns)})"

    def table_alias(self, alias: str) -> str:
        """A derived table's alias (Oracle takes no AS before it)."""
        return f"as {alias}"

    def first_rows(self, count: int) -> str:
        """What follows a query's ORDER BY to return only its first `count` rows."""
        return f"limit {count}"

    def create_view(self, name: str) -> str:
        return f"create view {name}"

    def counted_as(self, name: str) -> str:
        """The alias a derived table's column needs where derived() cannot name it."""
        return ""

    # --- statements and sessions ------------------------------------------------------

    def render(self, text: str) -> str:
        """A statement written with ? placeholders and {for_update}, in this dialect."""
        text = text.replace("{for_update}", self.for_update)
        return text if self.param == "?" else text.replace("?", self.param)

    def autocommit(self, connection: Any) -> None:
        """Make every statement its own transaction (mysqlclient's and pymssql's way: a method)."""
        connection.autocommit(True)

    def begin(self, connection: Any, writer: bool) -> None:
        """Open a transaction where the client must (explicit_begin); else nothing."""

    def script_statement(self, sql: str) -> str:
        """One statement as a script for this dialect's own client ends it (`dbstor sql`):
        psql and sqlite3 take a semicolon, also after a dollar-quoted procedure body."""
        return sql.rstrip().rstrip(";").rstrip() + ";"

    def statement_timeout(self, seconds: float) -> str | None:
        """The statement that sets a server-side limit on each statement; None where the
        engine has none (the client's QueryTimer interrupts instead)."""
        return None
