"""One blocks virtual user: random rows of its own table, one statement per transaction.

Each transaction is one statement on a connection in autocommit mode: one round trip,
committed by the engine as the statement ends (durably: the engines keep synchronous
commits). The client does as little as it can per transaction:
  postgres  both statements are prepared once on the session's connection and run through
            psycopg's libpq layer (Connection.pgconn.exec_prepared, keys sent as text):
            about half the client CPU of a cursor's execute() and fetchone().
  sqlite    the driver's statement cache keeps both statements prepared.
  mysql     PyMySQL has no server-side statements: it fills the %s in on the client.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dbstor.workloads.base import Session
from dbstor.workloads.blocks import sql

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

    READ, UPDATE = b"dbstor_blocks_read", b"dbstor_blocks_update"

    def __init__(self, connection: Any, table: str, batch: int):
        from psycopg import errors, pq

        self.errors, self.ok = errors, (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)
        self.bad = pq.ConnStatus.BAD
        connection.commit()
        connection.autocommit = True
        self.pg = connection.pgconn
        self.encoding = connection.info.encoding
        types = [INT4_OID] * batch
        for name, text in (
            (self.READ, sql.read_sql("postgres", table, batch)),
            (self.UPDATE, sql.update_sql("postgres", table, batch)),
        ):
            numbered = text.replace("%s", "$%d") % tuple(range(1, batch + 1))
            self._check(self.pg.prepare(name, numbered.encode(), types))

    def _check(self, result: Any) -> Any:
        """The result, or the exception psycopg's cursor would raise: the server's error
        with its SQLSTATE, or OperationalError (fatal) when the connection is lost."""
        if result.status in self.ok:
            return result
        if self.pg.status == self.bad:
            message = result.error_message.decode(self.encoding, "replace").strip()
            raise self.errors.OperationalError(f"the connection to PostgreSQL is lost: {message}")
        raise self.errors.error_from_result(result, encoding=self.encoding)

    def read(self, keys: Sequence[int]) -> int:
        result = self._check(self.pg.exec_prepared(self.READ, [b"%d" % k for k in keys]))
        return int(result.get_value(0, 0))

    def update(self, keys: Sequence[int]) -> int:
        result = self._check(self.pg.exec_prepared(self.UPDATE, [b"%d" % k for k in keys]))
        return int(result.command_tuples or 0)

    def close(self) -> None:
        pass


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
    ):
        if dialect not in sql.PLACEHOLDER:
            raise ValueError(f"unknown dialect {dialect!r}")
        self.statements: _Cursor | _Prepared = (
            _Prepared(connection, table, batch)
            if dialect == "postgres"
            else _Cursor(connection, dialect, table, batch)
        )
        self.table, self.rows, self.batch, self.rng = table, rows, batch, rng
        self.done: Counter[str] = Counter()  # transactions this session finished, by type
        self._ids = range(1, rows + 1)

    def keys(self) -> Sequence[int]:
        """`batch` distinct random row ids, sorted."""
        if self.batch == 1:
            return (int(self.rng.random() * self.rows) + 1,)
        return sorted(self.rng.sample(self._ids, self.batch))

    def run(self, transaction: str) -> None:
        if transaction == "read":
            found = self.statements.read(self.keys())
        elif transaction == "update":
            found = self.statements.update(self.keys())
        else:
            raise ValueError(f"unknown blocks transaction {transaction!r}")
        if found != self.batch:
            raise MissingRows(
                f"blocks {transaction} found {found} of {self.batch} rows in {self.table}: "
                "the table is not as built"
            )
        self.done[transaction] += 1

    def close(self) -> None:
        self.statements.close()
