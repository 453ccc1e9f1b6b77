"""MariaDB's and MySQL's connections through mysqlclient (MySQLdb, C over libmariadb), and
what its errors mean to dbstor.

mysqlclient is dbstor's one MariaDB driver: its protocol layer is libmariadb's C, so a
CALL costs the client about a third of PyMySQL's CPU (pure Python), and its connection
can send a statement and read the reply apart (send_query, read_query_result), which lets
one loop thread drive every virtual user (drivers/multiplex.py; dialects/mysql/calls.py).
docs/architecture.md says why; bench/bench_mariadb_floor.py measures it.

libmariadb opens its own TCP socket, so dbstor's network bounds (engines/network.py) are
put on it once it is connected, and the connect itself runs under answer_within().
"""

from __future__ import annotations

import errno
import math
from typing import Any

from dbstor.engines.network import answer_within, bound_descriptor, timed_out_note
from dbstor.engines.server import import_driver

MODULE = "MySQLdb"
MISSING = (
    "MariaDB and MySQL need the mysqlclient driver, which is not installed: "
    "apt-get install libmariadb-dev pkg-config gcc, then pip install mysqlclient"
)
RETRY_CODES = {1213, 1205}  # deadlock, lock wait timeout
# cannot connect (socket, TCP), gone away, lost during a query, bad handshake, and
# libmariadb's own read and write failures on the network
LOST_CODES = {2002, 2003, 2006, 2013, 2055, 5013, 5014}
FATAL_CODES = LOST_CODES | {1927, 1053, 1021, 1114, 4031}  # + killed, shutdown, disk full
TIMEOUTS = ("connect_timeout", "read_timeout", "write_timeout")


def driver() -> Any:
    """The MySQLdb module; UserError with how to install it when it is missing."""
    return import_driver(MODULE, MISSING)


def connect(args: dict[str, Any], database: str | None, autocommit: bool) -> Any:
    """A connection from parse_dsn()'s (or the managed socket's) arguments: over a Unix
    socket as it is; over TCP under a wall-clock bound, then with the network bounds."""
    mysqldb = driver()
    given = dict(args)
    for name in TIMEOUTS:  # libmariadb takes whole seconds
        if name in given:
            given[name] = max(1, math.ceil(float(given[name])))
    if database is not None:
        given["database"] = database

    def opened() -> Any:
        return mysqldb.connect(**given, autocommit=autocommit, charset="utf8mb4")

    if "unix_socket" in given:
        return opened()
    conn = answer_within(float(given["connect_timeout"]), opened, "connect_timeout")
    bound_descriptor(conn.fileno())
    return conn


def error_code(exc: BaseException) -> int | None:
    """The server's or libmariadb's error number the driver raised with, if any."""
    return exc.args[0] if exc.args and isinstance(exc.args[0], int) else None


def timed_out_text(exc: BaseException) -> bool:
    """Whether libmariadb's message carries ETIMEDOUT's number ("system error: 110",
    "(110)"): its way of saying a connect or read timed out."""
    text = str(exc)
    return f"system error: {errno.ETIMEDOUT}" in text or f"({errno.ETIMEDOUT})" in text


def connect_note(text: str, exc: BaseException, bound_s: float) -> str:
    """The driver's message of a failed connect, with the bound it waited and the DSN
    parameter that changes it when it timed out (libmariadb says only "system error: 110")."""
    bound_s = max(1, math.ceil(bound_s))  # as connect() handed it to libmariadb
    if timed_out_text(exc):
        return f"{text} (timed out: no answer within {bound_s:g} s, connect_timeout)"
    return timed_out_note(text, bound_s, "connect_timeout")


def lost(exc: BaseException) -> bool:
    """Whether the error says the connection broke (not a statement's error)."""
    mysqldb = driver()
    return isinstance(exc, mysqldb.InterfaceError) or error_code(exc) in LOST_CODES


def fatal(exc: BaseException) -> bool:
    """Whether no statement can follow on this connection or server (lost, shut down,
    disk full)."""
    mysqldb = driver()
    return isinstance(exc, mysqldb.InterfaceError) or error_code(exc) in FATAL_CODES
