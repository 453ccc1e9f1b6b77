"""Statements prepared once on a psycopg connection and run through its libpq handle.

A workload's hot path (one statement or one CALL per transaction) costs about a third of
the client CPU this way than through a cursor's execute() and fetch: parameters go as
text, results are read as bytes, and psycopg's adaptation layer is skipped. Errors are
raised as psycopg's cursor would raise them (the server's SQLSTATE class, or
OperationalError when the connection is lost), so engine.classify() treats them the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from dbstor.hotpath import encode, encode_all

Param = int | str | Decimal | datetime | None | list[int]
# encode(value): one parameter in PostgreSQL's text format (int arrays as {1,2,3}, a Decimal
# in positional notation, a datetime as ISO text with the last one's text kept: what
# numeric and timestamp read); encode_all(values) a call's list of them. Compiled
# (dbstor/hotpath.c): most of a transaction's parameters pass through here.
__all__ = ["Libpq", "Param", "PreparedStatements", "encode", "encode_all"]


class Libpq:
    """One psycopg connection's libpq handle, in autocommit; results checked as psycopg's
    cursor would check them."""

    def __init__(self, connection: Any):
        from psycopg import errors, pq

        self.errors = errors
        self.ok = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)
        self.bad = pq.ConnStatus.BAD
        if not connection.autocommit:
            connection.commit()
            connection.autocommit = True
        self.pg = connection.pgconn
        self.encoding = connection.info.encoding

    def check(self, result: Any) -> Any:
        """The result, or the exception psycopg's cursor would raise."""
        if result.status in self.ok:
            return result
        if self.pg.status == self.bad:
            message = result.error_message.decode(self.encoding, "replace").strip()
            raise self.errors.OperationalError(f"the connection to PostgreSQL is lost: {message}")
        raise self.errors.error_from_result(result, encoding=self.encoding)


class PreparedStatements(Libpq):
    """Named statements (SQL with %s placeholders) prepared on one autocommit connection."""

    def __init__(
        self,
        connection: Any,
        statements: Mapping[str, str],
        types: Mapping[str, list[int]] | None = None,
    ):
        super().__init__(connection)
        self.names: dict[str, bytes] = {}
        self._result: Any = None  # the first result of a statement sent and not yet received
        for number, (name, text) in enumerate(statements.items()):
            count = text.count("%s")
            numbered = text.replace("%s", "$%d") % tuple(range(1, count + 1))
            self.names[name] = b"dbstor_%d" % number
            oids = (types or {}).get(name)
            self.check(self.pg.prepare(self.names[name], numbered.encode(), oids))

    def run(self, name: str, params: Iterable[Param]) -> Any:
        """Execute a prepared statement; its libpq result (get_value(row, col) -> bytes)."""
        return self.check(self.pg.exec_prepared(self.names[name], encode_all(params)))

    def send(self, name: str, params: Iterable[Param]) -> int:
        """Send a prepared statement without waiting for it; the socket its reply comes on."""
        pg = self.pg
        pg.send_query_prepared(self.names[name], encode_all(params))
        self._result = None
        return pg.socket

    def send_encoded(self, name: str, values: list[bytes | None]) -> int:
        """send() with its parameters encoded already (encode): a caller sending the same
        parameters every time encodes them once."""
        pg = self.pg
        pg.send_query_prepared(self.names[name], values)
        self._result = None
        return pg.socket

    def receive(self) -> Any:
        """After the socket turned readable: None while the reply is incomplete, else the
        sent statement's result, as run() returns it (or raises). A whole reply (the usual
        case: one packet) takes consume_input, then is_busy and get_result twice. The
        first result is let go once the reply is complete, so a caller may send without
        send_encoded (blocks' server loop: pg.send_query_prepared itself)."""
        pg = self.pg
        pg.consume_input()
        while not pg.is_busy():
            result = pg.get_result()
            if result is None:  # the reply is complete
                first, self._result = self._result, None
                if first is not None and first.status in self.ok:
                    return first
                return self.check(first)
            if self._result is None:
                self._result = result
        return None
