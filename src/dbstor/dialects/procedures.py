"""What the kin dialects that call stored procedures through a plain DB-API cursor share
(T-SQL and Oracle; PostgreSQL's are prepared through libpq and MySQL's sent through
libmariadb instead, dialects/mysql/calls.py): one caller
parametrised by its call text (orders' Caller, blocks' ServerLoop), the NULL that their
VALUES lists written by repr() need, and New-Order's item lines as text. A dialect's part
subclasses these and overrides only what differs, as sqlglot's dialects extend their
parent's tables: Oracle's autocommit is an attribute and its procedures answer in an OUT
bind (OutBind); T-SQL's seed statement answers a row it must read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from dbstor.hotpath import int_list


class SqlNull:
    """Renders as SQL NULL inside a tuple's repr()."""

    def __repr__(self) -> str:
        return "NULL"


NULL = SqlNull()


def with_nulls(rows: list[tuple]) -> list[tuple]:
    """Rows whose repr() is a SQL VALUES list: None written as NULL."""
    if not any(None in row for row in rows):
        return rows
    return [tuple(NULL if v is None else v for v in row) for row in rows]


# One of New-Order's three line lists as text for the procedure to split, 1,2,3 (compiled:
# once per line list of every New-Order)
item_lines = int_list


class ProcedureCursor:
    """Stored-procedure calls on one autocommit connection's cursor: each call's text from
    `calls` by name, the value the procedure answers read from the row it ends with."""

    can_submit: ClassVar[bool] = False  # the driver waits for each call: no send/receive

    def __init__(self, connection: Any, calls: Mapping[str, str]):
        self.calls = dict(calls)
        self.autocommit(connection)
        self.cur = connection.cursor()
        self.opened()

    def opened(self) -> None:
        """After the cursor is made: what a kind of call needs on it (an OUT bind)."""

    def autocommit(self, connection: Any) -> None:
        connection.autocommit(True)  # pymssql's: a method

    def binds(self, params: Sequence[Any]) -> Any:
        return tuple(params)

    def answer(self) -> Any:
        """The first column of the call's result row (None without one); the call's own
        status results read past."""
        row = self.cur.fetchone()
        while self.cur.nextset():
            pass
        return None if row is None else row[0]

    def execute_call(self, name: str, params: Sequence[Any]) -> Any:
        self.cur.execute(self.calls[name], self.binds(params))
        return self.answer()

    def close(self) -> None:
        self.cur.close()


class OutBind(ProcedureCursor):
    """Calls whose procedure answers in an OUT bind, the last one (python-oracledb)."""

    def opened(self) -> None:
        self.out = self.cur.var(int)

    def autocommit(self, connection: Any) -> None:
        connection.autocommit = True

    def binds(self, params: Sequence[Any]) -> Any:
        return [*params, self.out]

    def answer(self) -> Any:
        return self.out.getvalue()


class OrdersCaller(ProcedureCursor):
    """orders' Caller: one call per transaction (the part's CALLS); False when New-Order
    rolled back (its unused item), which its procedure answers with a value other than 0."""

    CALLS: ClassVar[dict[str, str]] = {}

    def __init__(self, connection: Any):
        super().__init__(connection, self.CALLS)

    def run(self, name: str, params: tuple) -> bool:
        value = self.execute_call(name, params)
        return not (name == "New-Order" and value is not None and value != 0)


class BlocksLoop(ProcedureCursor):
    """blocks' server-side loop: the table's two procedures called with (batch, rows), the
    session's generator seeded once first; call() answers the rows visited."""

    loop_calls = None  # no calls bound for the loop thread (postgres's ServerLoop binds them)

    def __init__(
        self,
        connection: Any,
        calls: Mapping[str, str],
        batch: int,
        rows: int,
        seed: tuple[str, tuple],
    ):
        connection.commit()
        super().__init__(connection, calls)
        self.params = (batch, rows)
        self.seed(*seed)

    def seed(self, text: str, params: tuple) -> None:
        self.cur.execute(text, params)

    def call(self, transaction: str) -> int:
        return int(self.execute_call(transaction, self.params))
