"""MySQL's brokerage part: the statements its dialect writes its own way (the rest are the
shared client-side text, rendered), and a session's statements sent through libmariadb
(Wire).

Every brokerage user on MariaDB or MySQL keeps a thread of its own, and its session sends
each statement (and COMMIT or ROLLBACK) with mysqlclient's send_query() and reads the reply
right after with read_query_result(), store_result() and fetch_row(), all libmariadb's C:
no cursor. The parameters are written as SQL literals by the connection
(mysql_real_escape_string for text), as mysqlclient's cursor writes them, and rows come
through the connection's converters, so a transaction sees the same Python values and the
same exceptions as through a cursor. The connection keeps autocommit off, so the first
statement opens the transaction and no BEGIN is sent: a round trip a transaction saved.

Why a thread each and not the driver's loop thread, as PostgreSQL's brokerage runs
(a greenlet per transaction): measured side by side (docs/benchmarks.md, session 16), the
loop thread cost x1.22-1.46 the client CPU a transaction of a thread each at 4 users and
no less at 16, while this Wire on a thread each cost x0.88 of the cursor it replaced and
ran more transactions a second.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    transaction opens at its first statement (the session's BEGIN is not sent), and ends
    with the COMMIT or ROLLBACK the session sends."""

    def __init__(self, connection: Any):
        self.conn = connection
        self.literal = connection.literal  # a value as an SQL literal, bytes
        self.affected = 0  # rows the last statement changed

    def abandon(self) -> bool:
        """Nothing is ever in flight between calls: the user's thread ends its own
        transaction before the point's end is seen."""
        return False

    def rows(self, sql: str, params: Sequence[Any]) -> list[tuple]:
        self.send(sql, params)
        return list(self.read())

    def write(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT, UPDATE or DELETE; the rows it changed, as the cursor's rowcount."""
        self.send(sql, params)
        self.read()
        return self.affected

    def command(self, sql: bytes) -> None:
        """COMMIT or ROLLBACK; BEGIN is implied by the transaction's first statement."""
        if sql != b"BEGIN":
            self.conn.send_query(sql)
            self.read()

    def send(self, sql: str, params: Sequence[Any]) -> None:
        """Write the statement with its parameters as literals: an int's digits as they are
        (what the connection writes for one, without its Python call), the rest escaped by
        the connection."""
        literal = self.literal
        values = tuple([b"%d" % v if type(v) is int else literal(v) for v in params])
        self.conn.send_query(encoded(sql) % values)

    def read(self) -> tuple:
        """The reply to the statement sent: its rows (none for a write or a command)."""
        conn = self.conn
        conn.read_query_result()
        self.affected = conn.affected_rows()
        result = conn.store_result()
        return result.fetch_row(0) if result is not None else ()
