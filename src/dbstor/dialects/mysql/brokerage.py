"""MySQL's brokerage part: the statements its dialect writes its own way (the rest are the
shared client-side text, rendered), and a session's statements sent through libmariadb
(Wire).

A brokerage transaction is several statements whose order depends on what the earlier ones
found, so it cannot be one request and one reply as an orders CALL is. Its body runs in a
greenlet instead (Wire.start), as PostgreSQL's does (dialects/postgres/brokerage.py): each
statement (and COMMIT or ROLLBACK) is sent with mysqlclient's send_query() and the
greenlet switches back to the driver's loop thread (drivers/multiplex.py), which reads the
reply once the socket is readable (read_query_result(), store_result(), fetch_row(): all
libmariadb's C) and resumes the greenlet with it (Wire.collect). The loop thread runs every
such user, so a thousand users need no thousand threads.

A user that keeps a thread of its own (a think time, a rate, a crash event: drivers/user.py)
runs the same statements on the same Wire, each reply read right after its send: MariaDB's
brokerage has one statement path. The parameters are written as SQL literals by the
connection (mysql_real_escape_string for text), as mysqlclient's cursor writes them, and
rows come through the connection's converters, so a transaction sees the same Python
values and the same exceptions as through a cursor.

read_query_result() and store_result() read a reply to its end: called once the socket is
readable, they wait only for the rest of a reply the server is already writing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

STATEMENTS = {
    "summary_add": "INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty)"
    " VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE hs_qty = hs_qty + VALUES(hs_qty)",
}


@cache
def encoded(sql: str) -> bytes:
    """A statement's text (%s placeholders) as the bytes its literals are put into."""
    return sql.encode()


class Wire:
    """One connection's libmariadb handle, autocommit off as the session's cursor had it: a
    transaction opens at its first statement (the session's BEGIN is not sent: a round trip
    a transaction saved), and ends with the COMMIT or ROLLBACK the session sends."""

    def __init__(self, connection: Any):
        self.conn = connection
        self.socket = int(connection.fileno())
        self.literal = connection.literal  # a value as an SQL literal, bytes
        self.flight: Any = None  # the greenlet running a submitted transaction
        self.loop: Any = None  # the loop thread's greenlet, which reads the replies
        self.threaded = True  # until the first start(): replies read where they are awaited
        self.affected = 0  # rows the last statement changed

    # --- the session's side -----------------------------------------------------------

    def start(self, body: Callable[[str], Any], transaction: str) -> int:
        """Run body(transaction) in a greenlet until it waits for its first reply; the
        socket that reply comes on."""
        from greenlet import getcurrent, greenlet  # the mariadb extra installs it

        self.loop, self.threaded = getcurrent(), False
        self.flight = greenlet(body)
        self.flight.switch(transaction)
        return self.socket

    def collect(self) -> bool | None:
        """Read the reply that arrived and feed it to the transaction: None while it has
        statements left, True once it ended; raises as the body did."""
        try:
            reply: Any = self.read()
        except Exception as exc:  # the statement's error, raised where it was sent
            reply = _Failed(exc)
        self.flight.switch(reply)
        return True if self.flight.dead else None

    def abandon(self) -> bool:
        """Forget the transaction in flight (the point stopped); whether there was one.
        Dropped, the greenlet unwinds (GreenletExit) without waiting for a reply."""
        flight, self.flight = self.flight, None
        return flight is not None and not flight.dead

    # --- where the transaction runs ---------------------------------------------------

    def rows(self, sql: str, params: Sequence[Any]) -> list[tuple]:
        self.send(sql, params)
        return list(self.wait())

    def write(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT, UPDATE or DELETE; the rows it changed, as the cursor's rowcount."""
        self.send(sql, params)
        self.wait()
        return self.affected

    def command(self, sql: bytes) -> None:
        """COMMIT or ROLLBACK; BEGIN is implied by the transaction's first statement."""
        if sql != b"BEGIN":
            self.conn.send_query(sql)
            self.wait()

    def send(self, sql: str, params: Sequence[Any]) -> None:
        """Write the statement with its parameters as literals: an int's digits as they are
        (what the connection writes for one, without its Python call), the rest escaped by
        the connection."""
        literal = self.literal
        values = tuple([b"%d" % v if type(v) is int else literal(v) for v in params])
        self.conn.send_query(encoded(sql) % values)

    def wait(self) -> tuple:
        """The sent statement's rows: on the loop thread, once the loop has read them (the
        greenlet hands the thread back meanwhile); in a user's own thread, read here."""
        if self.threaded:
            return self.read()
        if self.flight is None:  # abandoned: its statement's reply is never read
            raise ConnectionAbortedError("the point stopped with this transaction in flight")
        reply = self.loop.switch()
        if isinstance(reply, _Failed):
            raise reply.exc
        return reply

    def read(self) -> tuple:
        """The reply to the statement sent: its rows (none for a write or a command)."""
        conn = self.conn
        conn.read_query_result()
        self.affected = conn.affected_rows()
        result = conn.store_result()
        return result.fetch_row(0) if result is not None else ()


class _Failed:
    """A statement's error, read on the loop thread, to be raised in the transaction."""

    __slots__ = ("exc",)

    def __init__(self, exc: Exception):
        self.exc = exc
