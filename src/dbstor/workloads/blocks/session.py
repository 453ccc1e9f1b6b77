"""One blocks virtual user: random rows of its own table, one statement per transaction.

Each transaction is one statement on a connection in autocommit mode: one round trip,
committed by the engine as the statement ends (durably: the engines keep synchronous
commits). With the server loop (server.py, PostgreSQL and MariaDB by default) the
statement calls the table's routine, which draws the keys and visits `batch` rows inside
the database; otherwise it names the keys the client drew (sql.py). The client does as
little as it can per transaction:
  postgres  the statements are prepared once on the session's connection and run through
            psycopg's libpq layer (Connection.pgconn.exec_prepared, parameters as text):
            about half the client CPU of a cursor's execute() and fetchone(); without a
            think time the driver's loop thread sends and collects them (submit/collect).
  sqlite    the driver's statement cache keeps both statements prepared.
  mysql     PyMySQL has no server-side statements: it fills the %s in on the client.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dbstor.engines.pg_prepared import PreparedStatements
from dbstor.workloads.base import Session
from dbstor.workloads.blocks import server, sql

INT4_OID = 23  # PostgreSQL type of the key parameters (int4)


class MissingRows(RuntimeError):
    """A statement found fewer rows than it asked for: the table is not as built."""


class _Cursor:
    """The two statements through a DB-API cursor (SQLite, PyMySQL)."""

    def __init__(self, connection: Any, dialect: str, table: str, batch: int):
        if dialect == "sqlite":
            connection.commit()
            connection.isolation_level = None  # autocommit
        else:
            connection.commit()
            connection.autocommit(True)
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


class _Prepared:
    """The two statements prepared on a psycopg connection's libpq handle."""

    def __init__(self, connection: Any, table: str, batch: int):
        types = [INT4_OID] * batch
        self.statements = PreparedStatements(
            connection,
            {
                "read": sql.read_sql("postgres", table, batch),
                "update": sql.update_sql("postgres", table, batch),
            },
            {"read": types, "update": types},
        )

    def read(self, keys: Sequence[int]) -> int:
        return self.found("read", self.statements.run("read", keys))

    def update(self, keys: Sequence[int]) -> int:
        return self.found("update", self.statements.run("update", keys))

    @staticmethod
    def found(transaction: str, result: Any) -> int:
        """The rows a read counted or an update changed."""
        if transaction == "read":
            return int(result.get_value(0, 0))
        return int(result.command_tuples or 0)

    def close(self) -> None:
        pass


class _ServerLoop:
    """The table's two routines (server.py), called with (batch, rows): the keys are drawn
    and the rows visited inside the database."""

    def __init__(
        self, connection: Any, dialect: str, table: str, batch: int, rows: int, seed: float
    ):
        self.dialect, self.params = dialect, (batch, rows)
        text, params = server.seed_statement(dialect, seed)
        calls = server.calls(dialect, table)
        if dialect == "postgres":
            self.statements = PreparedStatements(
                connection, {"seed": text.replace("%s", "%s::float8"), **calls}
            )
            self.statements.run("seed", [repr(params[0])])
            return
        connection.commit()
        connection.autocommit(True)
        self.cur = connection.cursor()
        self.cur.execute(text, params)
        self.calls = calls

    def read(self, keys: Sequence[int]) -> int:
        return self.call("read")

    def update(self, keys: Sequence[int]) -> int:
        return self.call("update")

    def call(self, transaction: str) -> int:
        if self.dialect == "postgres":
            return int(self.statements.run(transaction, self.params).get_value(0, 0))
        self.cur.execute(self.calls[transaction], self.params)
        row = self.cur.fetchone()
        while self.cur.nextset():  # the CALL's own status result
            pass
        return int(row[0])

    def close(self) -> None:
        if self.dialect != "postgres":
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
        if dialect not in sql.PLACEHOLDER:
            raise ValueError(f"unknown dialect {dialect!r}")
        self.server_loop = server_loop and dialect in server.DIALECTS
        self.statements: _Cursor | _Prepared | _ServerLoop
        if self.server_loop:
            self.statements = _ServerLoop(connection, dialect, table, batch, rows, rng.random())
        elif dialect == "postgres":
            self.statements = _Prepared(connection, table, batch)
        else:
            self.statements = _Cursor(connection, dialect, table, batch)
        self.table, self.rows, self.batch, self.rng = table, rows, batch, rng
        self.done: Counter[str] = Counter()  # transactions this session finished, by type
        self._ids = range(1, rows + 1)
        self.can_submit = dialect == "postgres"  # one prepared statement: submit, collect
        self._sent = ""  # the transaction submit() sent

    def keys(self) -> Sequence[int]:
        """`batch` distinct random row ids, sorted."""
        if self.batch == 1:
            return (int(self.rng.random() * self.rows) + 1,)
        return sorted(self.rng.sample(self._ids, self.batch))

    def run(self, transaction: str) -> None:
        if transaction not in ("read", "update"):
            raise ValueError(f"unknown blocks transaction {transaction!r}")
        if isinstance(self.statements, _ServerLoop):
            found = self.statements.call(transaction)
        elif transaction == "read":
            found = self.statements.read(self.keys())
        else:
            found = self.statements.update(self.keys())
        self._finish(transaction, found)

    def submit(self, transaction: str) -> int:
        if transaction not in ("read", "update"):
            raise ValueError(f"unknown blocks transaction {transaction!r}")
        self._sent = transaction
        if isinstance(self.statements, _ServerLoop):
            return self.statements.statements.send(transaction, self.statements.params)
        assert isinstance(self.statements, _Prepared)
        return self.statements.statements.send(transaction, self.keys())

    def collect(self) -> bool | None:
        assert isinstance(self.statements, _Prepared | _ServerLoop)
        result = self.statements.statements.receive()
        if result is None:
            return None
        if isinstance(self.statements, _ServerLoop):  # the routine's count of rows visited
            self._finish(self._sent, int(result.get_value(0, 0)))
        else:
            self._finish(self._sent, _Prepared.found(self._sent, result))
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
