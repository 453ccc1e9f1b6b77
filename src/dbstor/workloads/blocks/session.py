"""One blocks virtual user: random rows of its own table, one statement per transaction.

Each transaction is one statement on a connection in autocommit mode: one round trip,
committed by the engine as the statement ends (durably: the engines keep synchronous
commits). With the server loop (server.py, PostgreSQL and MariaDB by default) the
statement calls the table's routine, which draws the keys and visits `batch` rows inside
the database; otherwise it names the keys the client drew (sql.py). The client does as
little as it can per transaction (each dialect's blocks part: dbstor.dialects.<d>.blocks):
  postgres  the statements are prepared once on the session's connection and run through
            psycopg's libpq layer (Connection.pgconn.exec_prepared, parameters as text):
            about half the client CPU of a cursor's execute() and fetchone(); without a
            think time the driver's loop thread sends and collects them (submit/collect).
  sqlite    the driver's statement cache keeps both statements prepared.
  mysql     libmariadb writes the parameters in (no server-side statements) and the
            statement is sent and its reply read apart (dialects/mysql/calls.py): the
            loop thread drives these users too.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.base import Session
from dbstor.workloads.blocks import server, sql

TRANSACTIONS = frozenset(("read", "update"))


class MissingRows(RuntimeError):
    """A statement found fewer rows than it asked for: the table is not as built."""


class _Cursor:
    """The two statements through a DB-API cursor (SQLite)."""

    can_submit = False
    loop_calls = None  # no calls bound for the loop thread

    def __init__(self, connection: Any, dialect: str, table: str, batch: int):
        connection.commit()
        registry.get(dialect).autocommit(connection)
        self.cur = connection.cursor()
        self.read_sql = sql.read_sql(dialect, table, batch)
        self.update_sql = sql.update_sql(dialect, table, batch)

    def read(self, keys: Sequence[int]) -> int:
        self.cur.execute(self.read_sql, keys)
        return int(self.cur.fetchone()[0])

    def update(self, keys: Sequence[int]) -> int:
        self.cur.execute(self.update_sql, keys)
        return int(self.cur.rowcount)

    def close(self) -> None:
        self.cur.close()


class BlocksSession(Session):
    """Reads or updates `batch` random rows of `table` per transaction."""

    def __init__(
        self,
        dialect: str,
        connection: Any,
        table: str,
        rows: int,
        batch: int,
        rng: random.Random,
        server_loop: bool = False,
    ):
        part = server.part(dialect)
        self.server_loop = server_loop and bool(part.SERVER_LOOP)
        # the dialect's own statements (server loop, prepared) or a plain cursor
        self.statements: Any
        if self.server_loop:
            calls = server.calls(dialect, table)
            self.statements = part.server_loop(connection, calls, batch, rows, rng.random())
        else:
            read, update = (
                sql.read_sql(dialect, table, batch),
                sql.update_sql(dialect, table, batch),
            )
            own = part.prepared(connection, table, batch, read, update)
            self.statements = own or _Cursor(connection, dialect, table, batch)
        self.table, self.rows, self.batch, self.rng = table, rows, batch, rng
        self.done: Counter[str] = Counter()  # transactions this session finished, by type
        self._ids = range(1, rows + 1)
        self.can_submit = bool(self.statements.can_submit)  # one prepared statement
        self._sent = ""  # the transaction submit() sent
        # the dialect's sends bound per call, the socket and its reply reader, when it binds
        # them (postgres's server loop): no dialect frame between the loop thread and libpq
        self._sends, self._fd, self._receive_any = self.statements.loop_calls or (None, 0, None)

    def keys(self) -> Sequence[int]:
        """`batch` distinct random row ids, sorted."""
        if self.batch == 1:
            return (int(self.rng.random() * self.rows) + 1,)
        return sorted(self.rng.sample(self._ids, self.batch))

    def run(self, transaction: str) -> None:
        if transaction not in TRANSACTIONS:
            raise ValueError(f"unknown blocks transaction {transaction!r}")
        if self.server_loop:
            found = self.statements.call(transaction)
        elif transaction == "read":
            found = self.statements.read(self.keys())
        else:
            found = self.statements.update(self.keys())
        self._finish(transaction, found)

    def submit(self, transaction: str) -> int:
        if transaction not in TRANSACTIONS:
            raise ValueError(f"unknown blocks transaction {transaction!r}")
        self._sent = transaction
        if self._sends is not None:  # bound: the routine draws its own keys
            self._sends[transaction]()
            return self._fd
        if self.server_loop:  # the routine draws its own keys
            return self.statements.send(transaction, ())
        return self.statements.send(transaction, self.keys())

    def collect(self) -> bool | None:
        """The loop thread's half of a transaction: _finish written out, its one check."""
        receive = self._receive_any
        found = receive() if receive is not None else self.statements.receive(self._sent)
        if found is None:
            return None
        if found != self.batch:
            self._finish(self._sent, found)  # raises MissingRows
        self.done[self._sent] += 1
        return True

    def _finish(self, transaction: str, found: int) -> None:
        if found != self.batch:
            raise MissingRows(
                f"blocks {transaction} found {found} of {self.batch} rows in {self.table}: "
                "the table is not as built"
                + (" (or its server-side routines are not)" if self.server_loop else "")
            )
        self.done[transaction] += 1

    def close(self) -> None:
        self.statements.close()
