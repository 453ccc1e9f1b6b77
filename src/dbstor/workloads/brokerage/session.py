"""One virtual user's session: runs the ten transactions on its own connection.

What a session assumes about its connection: a DB-API connection in the engine's default
transaction mode (autocommit off). The session ends every transaction with
connection.commit() (or rollback() on an error, then re-raises). psycopg and mysqlclient open
the transaction at the first statement; on SQLite (Python's sqlite3, legacy transaction
control, any isolation_level including None) the session opens it itself when none is
open: BEGIN IMMEDIATE for the four writing transactions, so a writer takes SQLite's
single write lock before reading instead of failing to upgrade a read snapshot later,
and plain BEGIN for the readers, whose WAL snapshot then spans all their statements.

Where the dialect sends statements without a thread (Dialect.statements_without_thread:
PostgreSQL with greenlet) a session can also run its transactions that way (can_submit):
submit() starts the transaction on the dialect part's Wire (dialects/postgres/brokerage.py),
which sends its statements through libpq, and collect() feeds it each reply. The first
submit() switches the connection to autocommit and the session sends BEGIN and COMMIT
itself; from then on its transactions run only through submit() and collect(). Where the
dialect's Wire serves the user's own thread (Dialect.wire_in_any_thread: MySQL's, through
libmariadb), the session makes it at once and every statement goes through it, each reply
read after its send: autocommit stays off, so its first statement opens the transaction.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.base import Session
from dbstor.workloads.brokerage.keys import Keys
from dbstor.workloads.brokerage.market import Market
from dbstor.workloads.brokerage.sql import statement
from dbstor.workloads.brokerage.transactions import TRANSACTIONS, WRITERS
from dbstor.workloads.brokerage.volumes import END_TS, TRADE_ID_BLOCK


class BrokerageSession(Session):
    """Runs one transaction at a time on its own connection, with its own random stream."""

    def __init__(
        self, keys: Keys, market: Market, seed: int, dialect: str, connection: Any, user: int
    ):
        """`keys`, `market` and `seed` are the workload's: shared by its sessions."""
        self.dialect = dialect
        self.own = registry.get(dialect)  # the dialect's own ways (how a transaction opens)
        self.conn = connection
        self.cur = connection.cursor()
        self.keys = keys
        self.market = market
        volumes = keys.volumes
        self.market.seed(connection, dialect, volumes.trades - volumes.pending + 1)
        number = next(self.market.sessions)  # new streams at every load point
        self.rng = random.Random(f"{seed}:session:{number}:{user}")
        self.result: Any = None
        self.ordered: list[int] = []  # trades this session's Trade-Orders committed
        self.completed: list[int] = []  # trades its Trade-Results settled
        self.idle_results = 0  # Trade-Results that found nothing waiting
        self.outcomes: Counter[str] = Counter()
        self._next_id = self._end_id = 0
        self._claimed = False
        self._on_commit: list[Callable[[], None]] = []
        self._on_rollback: list[Callable[[], None]] = []
        self.can_submit = self.own.statements_without_thread
        # the dialect part's Wire: at once where it serves any thread, else at the first submit
        in_any = self.own.wire_in_any_thread
        self.wire: Any = self.own.part("brokerage").Wire(connection) if in_any else None

    # --- what transactions use ------------------------------------------------------

    def rows(self, name: str, params: Sequence[Any], count: int = 0) -> list[tuple]:
        if self.wire is not None:
            return self.wire.rows(statement(self.dialect, name, count), params)
        self.cur.execute(statement(self.dialect, name, count), tuple(params))
        return list(self.cur.fetchall())

    def one(self, name: str, params: Sequence[Any]) -> tuple | None:
        if self.wire is not None:
            found = self.wire.rows(statement(self.dialect, name), params)
            return found[0] if found else None
        self.cur.execute(statement(self.dialect, name), tuple(params))
        return self.cur.fetchone()

    def write(self, name: str, params: Sequence[Any]) -> int:
        """Run an INSERT, UPDATE or DELETE; the number of rows it touched."""
        if self.wire is not None:
            return int(self.wire.write(statement(self.dialect, name), params))
        self.cur.execute(statement(self.dialect, name), tuple(params))
        return self.cur.rowcount

    def now(self) -> int:
        return max(END_TS + 1, int(time.time()))

    def on_commit(self, action: Callable[[], None]) -> None:
        self._on_commit.append(action)

    def on_rollback(self, action: Callable[[], None]) -> None:
        self._on_rollback.append(action)

    def next_trade_id(self) -> int:
        """A new trade id from this session's block, claiming a block in this transaction
        when the last one is used up (a rolled-back claim is forgotten)."""
        if self._next_id >= self._end_id:
            self.write("claim_ids", (TRADE_ID_BLOCK,))
            end = self.one("read_ids", ())[0]  # type: ignore[index]
            self._next_id, self._end_id, self._claimed = end - TRADE_ID_BLOCK, end, True
        self._next_id += 1
        return self._next_id - 1

    # --- the contract ---------------------------------------------------------------

    def run(self, transaction: str) -> None:
        """One transaction of this type, committed (or rolled back, then re-raised)."""
        body = TRANSACTIONS[transaction]
        self._on_commit, self._on_rollback = [], []
        try:
            self._begin(transaction in WRITERS)
            keep = body(self) is not False
            if keep:
                self._end(b"COMMIT")
        except BaseException:
            with contextlib.suppress(Exception):
                self._end(b"ROLLBACK")
            self._undo()
            raise
        if not keep:
            self._end(b"ROLLBACK")
            self._undo()
            self.outcomes["rolled back"] += 1
            return
        self._claimed = False
        for action in self._on_commit:
            action()
        self.outcomes[transaction] += 1

    def submit(self, transaction: str) -> int:
        """Start the transaction on the wire; it returns here once its first statement
        (PostgreSQL's BEGIN) is sent."""
        if self.wire is None:
            self.wire = self.own.part("brokerage").Wire(self.conn)
        return int(self.wire.start(self.run, transaction))

    def collect(self) -> bool | None:
        """Feed the transaction the reply that arrived: None while it has statements left,
        True once committed (or rolled back by design); raises as run() would."""
        return self.wire.collect()

    def close(self) -> None:
        """A transaction still in flight (the point stopped) is given up: its connection
        is closed by the caller, which rolls it back on the server."""
        if self.wire is not None and self.wire.abandon():
            self._undo()

    def _begin(self, writer: bool) -> None:
        if self.wire is not None:
            self.wire.command(b"BEGIN")
        else:
            self.own.begin(self.conn, writer)

    def _end(self, command: bytes) -> None:
        if self.wire is not None:
            self.wire.command(command)
        elif command == b"COMMIT":
            self.conn.commit()
        else:
            self.conn.rollback()

    def _undo(self) -> None:
        if self._claimed:  # the block claim was rolled back with the transaction
            self._next_id = self._end_id = 0
            self._claimed = False
        actions, self._on_rollback = self._on_rollback, []  # once, however many undo it
        for action in actions:
            action()
