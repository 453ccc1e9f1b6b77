"""MySQL's hot path: a statement sent through libmariadb and its reply read apart.

mysqlclient's connection is libmariadb's MYSQL handle: send_query() writes a statement and
returns at once, read_query_result() reads its reply, store_result() and fetch_row() its
rows, all in C. A transaction here is one short text (a CALL, or one blocks statement) with
its parameters written as literals by the compiled core (hotpath.sql_literals: ints, NULL,
datetimes and Decimals as mysqlclient writes them) and by the connection itself for text
(mysql_real_escape_string, so its character set and sql_mode are respected), so the client pays
for one send and one read per transaction and no Python protocol code. Because sending and
reading are apart, the driver's loop thread (drivers/multiplex.py) keeps every virtual
user's transaction in flight at once; the same two halves, back to back, are run().

read_query_result() reads until the first result is complete: the multiplexing loop calls
it once the socket is readable, by which time the server is writing the reply (a stored
procedure's result row comes as it ends, with its final status right behind it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dbstor.hotpath import sql_literals


class Sender:
    """Statements by name on one autocommit connection; `%s` placeholders in their text."""

    can_submit = True

    def __init__(self, connection: Any, statements: Mapping[str, str]):
        connection.commit()  # whatever the connection had open, before autocommit
        connection.autocommit(True)
        self.conn = connection
        self.texts = {name: text.encode() for name, text in statements.items()}
        self.literal = connection.literal  # a value as an SQL literal, bytes
        self.affected = 0  # rows the last statement changed (an UPDATE's count)

    def send(self, name: str, params: Sequence[Any]) -> int:
        """Send the statement without waiting; the socket its reply comes on."""
        conn = self.conn
        conn.send_query(self.texts[name] % sql_literals(params, self.literal))
        return int(conn.fileno())

    def receive(self) -> tuple | None:
        """Read the sent statement's reply: its first row (None without a row), the
        results after it (a CALL's own status) read past."""
        conn = self.conn
        conn.read_query_result()
        self.affected = conn.affected_rows()
        result = conn.store_result()
        rows = result.fetch_row() if result is not None else ()
        while conn.next_result() == 0:
            conn.store_result()
        return rows[0] if rows else None

    def run(self, name: str, params: Sequence[Any]) -> tuple | None:
        """send() and receive() back to back."""
        self.send(name, params)
        return self.receive()

    def close(self) -> None:
        pass


def first(row: tuple | None) -> Any:
    """The first column of a reply's row; None without a row."""
    return None if row is None else row[0]
