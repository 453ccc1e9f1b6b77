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

from dbstor.hotpath import PgReply, bind_libpq, encode, encode_all

Param = int | str | Decimal | datetime | None | list[int]
# encode(value): one parameter in PostgreSQL's text format (int arrays as {1,2,3}, a Decimal
# in positional notation, a datetime as ISO text with the last one's text kept: what
# numeric and timestamp read); encode_all(values) a call's list of them. Compiled
# (dbstor/hotpath.c): most of a transaction's parameters pass through here.
__all__ = ["Libpq", "Param", "PgReply", "PreparedStatements", "encode", "encode_all"]

# The libpq functions PgReply (src/hotpath/replies.c) calls, in the order it takes them
LIBPQ_FUNCTIONS = (
    "PQconsumeInput",
    "PQisBusy",
    "PQgetResult",
    "PQresultStatus",
    "PQgetvalue",
    "PQgetisnull",
    "PQntuples",
    "PQcmdTuples",
    "PQclear",
    "PQstatus",
    "PQresultErrorField",
    "PQresultErrorMessage",
    "PQerrorMessage",
)
_bound: list[str] = []  # the libpq PgReply was bound to (once per process)


def loaded_libpq() -> str:
    """The path of the libpq psycopg has loaded (its binary package's own): the one
    PgReply must call, never a second one."""
    from psycopg import pq

    if pq.__impl__ != "binary":  # the pure-Python one loads the system's libpq itself
        raise RuntimeError(f"dbstor needs psycopg's binary implementation, not {pq.__impl__}")
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.rstrip("\n").split(maxsplit=5)  # address, perms, offset, dev, inode, path
            path = fields[5] if len(fields) == 6 else ""
            if "/libpq" in path and ".so" in path:
                return path
    raise RuntimeError("psycopg's libpq is not loaded in this process")


def bind_loaded_libpq() -> None:
    """Give PgReply the functions of psycopg's loaded libpq (dlopen RTLD_NOLOAD: the
    library already mapped, never loaded again), once."""
    if _bound:
        return
    import ctypes
    import os

    path = loaded_libpq()
    library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    bind_libpq(
        [ctypes.cast(getattr(library, name), ctypes.c_void_p).value for name in LIBPQ_FUNCTIONS]
    )
    _bound.append(path)


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

    def failure(self, fields: dict[int, bytes] | None, message: bytes, bad: int) -> Exception:
        """What check() raises for a failed reply PgReply read: its error fields (psycopg's
        DiagnosticField codes), message and whether the connection is BAD."""
        from psycopg.pq.misc import strip_severity

        text = message.decode(self.encoding, "replace")
        if bad:
            return self.errors.OperationalError(
                f"the connection to PostgreSQL is lost: {text.strip()}"
            )
        state = (fields or {}).get(ord("C"), b"").decode("utf-8", "replace")
        try:
            kind = self.errors.lookup(state)
        except KeyError:
            kind = self.errors.get_base_exception(state)
        return kind(
            strip_severity(text) or "no error details available",
            info=fields,
            encoding=self.encoding,
        )


class PreparedStatements(Libpq):
    """Named statements (SQL with %s placeholders) prepared on one autocommit connection."""

    def __init__(
        self,
        connection: Any,
        statements: Mapping[str, str],
        types: Mapping[str, list[int]] | None = None,
    ):
        super().__init__(connection)
        bind_loaded_libpq()
        # the replies of what send() sent, read in one compiled call each (value(), rows(),
        # status(), ok(): None while incomplete; a failure raised as check() raises it)
        self.reply = PgReply(self.pg, self.failure)
        self.names: dict[str, bytes] = {}
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
        return pg.socket

    def send_encoded(self, name: str, values: list[bytes | None]) -> int:
        """send() with its parameters encoded already (encode): a caller sending the same
        parameters every time encodes them once."""
        pg = self.pg
        pg.send_query_prepared(self.names[name], values)
        return pg.socket
