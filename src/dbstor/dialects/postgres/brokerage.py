"""PostgreSQL's brokerage part: the shared statements as they are (no STATEMENTS of its
own), and a session's statements sent without a thread of its own (Wire).

A brokerage transaction is several statements whose order depends on what the earlier ones
found, so it cannot be one request and one reply as an orders CALL is. Its body runs in a
greenlet instead (Wire.start): each statement (and BEGIN, COMMIT, ROLLBACK) is sent through
libpq and the greenlet switches back to the driver's loop thread (drivers/multiplex.py),
which resumes it with the reply (Wire.collect) once the socket has delivered all of it. The
loop thread runs every such user, so a thousand users need no thousand threads. The
statements are the ones the cursor would run, and prepared as psycopg prepares them: a
statement runs unprepared (one round trip, parsed each time) until its PREPARE_AFTER-th
use on the connection, then it is prepared once (a round trip of its own). Preparing at
first use cost a thousand users, each running only a dozen transactions in a point, about
a round trip in five. Rows are read with psycopg's own loaders, so a transaction sees the
same Python values as through a cursor and its errors are psycopg's, classified the same.
The dialect offers this path (Postgres.statements_without_thread) only where greenlet is
installed (the postgres extra).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from dbstor.engines.pg_prepared import Libpq, encode

PREPARE_AFTER = 5  # uses before a statement is prepared: psycopg's prepare_threshold
STATEMENTS: dict[str, str] = {}  # none written PostgreSQL's own way


@cache
def numbered(sql: str) -> bytes:
    """A statement with %s placeholders in PostgreSQL's $1, $2 ... form."""
    count = sql.count("%s")
    return (sql.replace("%s", "$%d") % tuple(range(1, count + 1))).encode()


class Wire(Libpq):
    """One autocommit connection's libpq handle; the session sends BEGIN and COMMIT."""

    def __init__(self, connection: Any):
        from psycopg.adapt import Transformer

        super().__init__(connection)
        self.socket: int = self.pg.socket
        self.loader = Transformer(connection)
        self.prepared: dict[str, bytes] = {}  # statement text -> its prepared name
        self.uses: dict[str, int] = {}  # statement text -> runs while not prepared
        self._first: Any = None  # the first result of the reply being read
        self.flight: Any = None  # the greenlet running the submitted transaction

    # --- the session's side -----------------------------------------------------------

    def start(self, body: Callable[[str], Any], transaction: str) -> int:
        """Run body(transaction) in a greenlet until it waits for its first reply; the
        socket that reply comes on."""
        from greenlet import greenlet  # only on this path: the postgres extra installs it

        self.flight = greenlet(body)
        self.flight.switch(transaction)
        return self.socket

    def collect(self) -> bool | None:
        """Feed the transaction the reply that arrived: None while it has statements left,
        True once it ended; raises as the body did."""
        reply = self.receive()
        if reply is None:
            return None
        self.flight.switch(reply)
        return True if self.flight.dead else None

    def abandon(self) -> bool:
        """Forget the transaction in flight (the point stopped); whether there was one."""
        flight, self.flight = self.flight, None
        return flight is not None and not flight.dead

    # --- in the transaction's greenlet -----------------------------------------------

    def rows(self, sql: str, params: Sequence[Any]) -> list[tuple]:
        result = self.execute(sql, params)
        loader = self.loader
        loader.set_pgresult(result)
        return loader.load_rows(0, result.ntuples, tuple)

    def write(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT, UPDATE or DELETE; the rows it touched."""
        return int(self.execute(sql, params).command_tuples)

    def execute(self, sql: str, params: Sequence[Any]) -> Any:
        """Run a statement (%s placeholders), prepared from its PREPARE_AFTER-th use on;
        its result."""
        values = [encode(p) for p in params]
        name = self.prepared.get(sql)
        if name is None:
            uses = self.uses[sql] = self.uses.get(sql, 0) + 1
            if uses < PREPARE_AFTER:
                self.pg.send_query_params(numbered(sql), values)
                return self.wait()
            name = b"dbstor_b%d" % len(self.prepared)
            self.pg.send_prepare(name, numbered(sql))
            self.wait()
            self.prepared[sql] = name
            del self.uses[sql]
        self.pg.send_query_prepared(name, values)
        return self.wait()

    def command(self, sql: bytes) -> None:
        """BEGIN, COMMIT or ROLLBACK."""
        self.pg.send_query(sql)
        self.wait()

    def wait(self) -> Any:
        """Hand the thread back to the loop until the reply is in: the result, or the
        exception psycopg's cursor would raise."""
        from greenlet import getcurrent

        return self.check(getcurrent().parent.switch())

    # --- in the loop thread -----------------------------------------------------------

    def receive(self) -> Any:
        """After the socket turned readable: None while the reply is incomplete, else its
        first result (for the greenlet's wait() to check)."""
        pg = self.pg
        pg.consume_input()
        while not pg.is_busy():
            result = pg.get_result()
            if result is None:  # the reply is complete
                first, self._first = self._first, None
                return first
            if self._first is None:
                self._first = result
        return None
