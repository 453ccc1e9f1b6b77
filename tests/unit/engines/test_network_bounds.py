"""The network bounds on connections to an external server, and the user's DSN winning.

The end-to-end proof (a real server behind a cut network) is
tests/integration/test_server_cut.py; these check the pieces one at a time.
"""

from __future__ import annotations

import errno
import socket

import pytest

from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from dbstor.engines.mariadb_dsn import parse_dsn
from dbstor.engines.network import (
    KEEPALIVE_IDLE_S,
    SILENCE_S,
    address,
    bound_descriptor,
    libpq_bounds,
    lost_line,
    timed_out,
)
from dbstor.errors import UserError


def test_libpq_bounds_fill_only_what_the_user_left_out():
    assert libpq_bounds({})["tcp_user_timeout"] == SILENCE_S * 1000
    mine = libpq_bounds({"keepalives_idle": "120", "tcp_user_timeout": "", "host": "h"})
    assert "keepalives_idle" not in mine
    assert mine["tcp_user_timeout"] == SILENCE_S * 1000  # empty counts as not set
    assert mine["keepalives"] == 1


def test_postgres_connect_bounds_leave_the_dsns_own_parameters(monkeypatch):
    pytest.importorskip("psycopg")
    from dbstor.engines.postgres_dsn import connect_bounds, dsn_address

    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    plain = connect_bounds("postgresql://u:pw@db.example:6432/app", 10)
    assert plain["connect_timeout"] == 10 and plain["keepalives_idle"] == KEEPALIVE_IDLE_S
    own = connect_bounds(
        "host=db port=5433 connect_timeout=60 tcp_user_timeout=90000 keepalives=0", 10
    )
    assert not {"connect_timeout", "tcp_user_timeout", "keepalives"} & set(own)
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "45")
    assert "connect_timeout" not in connect_bounds("postgresql://u@db/app", 10)
    assert dsn_address("postgresql://u:pw@db.example:6432/app") == "db.example:6432"
    assert dsn_address("host=::1 port=5433") == "[::1]:5433"
    with pytest.raises(UserError, match="does not parse"):
        connect_bounds("host=db port", 10)


def test_mysql_dsn_timeouts_are_the_users_and_checked():
    args = parse_dsn("mysql://u:pw@db:3307/?connect_timeout=60&read_timeout=600")
    assert args["connect_timeout"] == 60 and args["read_timeout"] == 600
    assert "write_timeout" not in args
    with pytest.raises(UserError, match=r"read_timeout must be seconds .* \?read_timeout=30"):
        parse_dsn("mysql://u:pw@db/?read_timeout=soon")
    with pytest.raises(UserError) as caught:
        parse_dsn("mysql://u:pw@db/?connect_timeout=0")
    assert "pw" not in str(caught.value)


def test_a_drivers_own_tcp_socket_gets_keepalive_and_user_timeout():
    with socket.create_server(("127.0.0.1", 0)) as server:
        sock = socket.create_connection(("127.0.0.1", server.getsockname()[1]), 5)
        with sock:
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 0
            bound_descriptor(sock.fileno())  # as libmariadb's socket gets them
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == KEEPALIVE_IDLE_S
            user_timeout = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT)
            assert user_timeout == SILENCE_S * 1000
            sock.sendall(b"x")  # the driver's descriptor still open after the duplicate's close


def test_a_unix_socket_is_left_as_it_is(tmp_path):
    with socket.socket(socket.AF_UNIX) as sock:
        bound_descriptor(sock.fileno())
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 0


def test_lost_line_says_stopped_answering_only_for_a_timeout():
    quiet = OSError(errno.ETIMEDOUT, "Connection timed out")
    assert timed_out(quiet)
    assert lost_line("MariaDB", "db:3306", quiet) == "MariaDB at db:3306 stopped answering"
    assert "broke" in lost_line("MariaDB", "db:3306", ConnectionResetError("reset by peer"))
    wrapped = RuntimeError("lost connection")
    wrapped.__cause__ = quiet
    assert timed_out(wrapped)
    assert address("/run/mysqld/mysqld.sock", 3306) == "/run/mysqld/mysqld.sock"


def test_mariadb_names_the_server_for_lost_connections_only():
    mysqldb = pytest.importorskip("MySQLdb")
    engine = MariaDBEngine(EngineSettings(paths={}, dsn="mysql://u:secret@db.example:3307/"))
    lost = mysqldb.OperationalError(
        2013, "Lost connection to MySQL server during query ([Errno 110] Connection timed out)"
    )
    line = engine.lost_server(lost)
    assert line == "MariaDB at db.example:3307 stopped answering"
    assert engine.lost_server(mysqldb.OperationalError(1114, "The table is full")) is None
    managed = MariaDBEngine(EngineSettings(paths={}))
    assert managed.lost_server(lost) is None


class _SilentServer:
    """An external engine whose server no longer answers: connecting times out."""

    title = "PostgreSQL"
    dialect = "postgres"

    def connect(self):
        raise TimeoutError("connection timeout expired")

    def alive(self):
        return False

    def unanswered(self):
        return "PostgreSQL at db.example:5432 stopped answering"


def test_a_query_stream_names_the_server_that_stopped_answering():
    from dbstor.drivers.streams import StreamsRun
    from dbstor.workloads.dss.catalog import QuerySpec

    query = QuerySpec(1, "Q1", "one row", None)
    run = StreamsRun(_SilentServer(), {1: [(query, "SELECT 1")]}, None, None, None, "warm", print)
    outcome = run.run()
    assert outcome.fatal == (
        "PostgreSQL at db.example:5432 stopped answering during the point; "
        "stream 1 could not connect: connection timeout expired"
    )


def test_users_put_the_server_before_the_error_that_stopped_them():
    from types import SimpleNamespace

    from dbstor.drivers.users import Instance, VirtualUsers

    mysqldb = pytest.importorskip("MySQLdb")
    engine = MariaDBEngine(EngineSettings(paths={}, dsn="mysql://u:secret@db.example:3307/"))
    users = VirtualUsers([Instance(engine, SimpleNamespace(mix={"t": 1}))], 1)
    users.fail(mysqldb.OperationalError(2013, "Lost connection ([Errno 110] timed out)"), engine)
    users.fail(RuntimeError("a later error"), engine)
    assert users.stop.is_set()
    assert users.fatal is not None
    assert users.fatal.startswith("MariaDB at db.example:3307 stopped answering: ")
    assert "secret" not in users.fatal


def test_mariadb_tells_a_silent_server_from_a_closed_one_after_a_plain_lost_connection():
    # libmariadb words both as 2013 "Lost connection" without the errno: a bounded connect
    # tells them apart (a listener that never answers times out; a closed port refuses)
    mysqldb = pytest.importorskip("MySQLdb")
    plain = mysqldb.OperationalError(2013, "Lost connection to server during query")
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never says hello
        port = silent.getsockname()[1]
        engine = MariaDBEngine(EngineSettings(paths={}, dsn=f"mysql://u:secret@127.0.0.1:{port}/"))
        assert engine.lost_server(plain) == f"MariaDB at 127.0.0.1:{port} stopped answering"
    with socket.create_server(("127.0.0.1", 0)) as gone:
        port = gone.getsockname()[1]
    engine = MariaDBEngine(EngineSettings(paths={}, dsn=f"mysql://u:secret@127.0.0.1:{port}/"))
    assert engine.lost_server(plain) == f"the connection to MariaDB at 127.0.0.1:{port} broke"
