"""The compiled PostgreSQL reply reader (src/hotpath/replies.c, engines/pg_prepared.py's
PgReply) on a real server: the values the loop thread's sessions check, an incomplete
reply, and failures raised exactly as psycopg's cursor raises them (same class, message,
SQLSTATE and diagnostics), so engine.classify treats them the same."""

from __future__ import annotations

import contextlib
import select
from collections.abc import Iterator
from typing import Any

import pg_server
import psycopg
import pytest

from dbstor.engines.base import ErrorKind
from dbstor.engines.pg_prepared import PreparedStatements, loaded_libpq
from dbstor.engines.postgres import PostgresEngine

STATEMENTS = {
    "value": "SELECT %s::int",
    "nothing": "SELECT 1 WHERE false",
    "null": "SELECT NULL::int",
    "text": "SELECT %s::text",
    "update": "UPDATE t SET v = v + 1 WHERE id <= %s",
    "divide": "SELECT 1 / %s::int",
    "insert": "INSERT INTO t VALUES (%s, 0)",
    "sleep": "SELECT 7 FROM pg_sleep(%s::float8)",
}


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with pg_server.running_server() as running:
        running.sql(
            "CREATE TABLE t (id int PRIMARY KEY, v int);"
            "INSERT INTO t SELECT g, 0 FROM generate_series(1, 5) g"
        )
        yield running


@pytest.fixture
def connection(server: Any) -> Iterator[Any]:
    with contextlib.closing(psycopg.connect(server.dsn(), autocommit=True)) as conn:
        yield conn


def _replied(statements: PreparedStatements, read: str, name: str, params: list) -> Any:
    """Send, then read the reply as the loop thread does: on each readable wake."""
    socket = statements.send(name, params)
    for _ in range(100):
        select.select([socket], [], [], 5)
        out = getattr(statements.reply, read)()
        if out is not None:
            return out
    raise AssertionError("no reply in 100 wakes")


def test_values_the_sessions_check(connection: Any) -> None:
    statements = PreparedStatements(connection, STATEMENTS)
    assert _replied(statements, "value", "value", [123456]) == 123456
    assert _replied(statements, "value", "value", [-3]) == -3
    assert _replied(statements, "value", "nothing", []) == 0  # no row: 0 (blocks: missing)
    assert _replied(statements, "value", "null", []) == 0
    assert _replied(statements, "rows", "update", [3]) == 3  # the command tag's count
    assert _replied(statements, "rows", "value", [1]) == 1  # SELECT 1's tag: one row
    # New-Order's status: committed when 0 or absent, rolled back otherwise
    assert _replied(statements, "status", "text", ["0"]) is True
    assert _replied(statements, "status", "text", ["1"]) is False
    assert _replied(statements, "status", "null", []) is True
    assert _replied(statements, "status", "nothing", []) is True
    assert _replied(statements, "ok", "value", [5]) is True
    assert connection.execute("SELECT sum(v) FROM t").fetchone()[0] == 3


def test_an_incomplete_reply_is_none_until_it_is_in(connection: Any) -> None:
    statements = PreparedStatements(connection, STATEMENTS)
    statements.send("sleep", ["1"])
    assert statements.reply.value() is None  # the server sleeps a second before replying
    select.select([connection.pgconn.socket], [], [], 10)
    while (found := statements.reply.value()) is None:
        select.select([connection.pgconn.socket], [], [], 10)
    assert found == 7


def _error_of(call: Any, *args: Any) -> Exception:
    with pytest.raises(psycopg.Error) as caught:
        call(*args)
    return caught.value


@pytest.mark.parametrize(
    ("name", "params", "sql"),
    [
        ("divide", [0], "SELECT 1 / %s::int"),
        ("insert", [1], "INSERT INTO t VALUES (%s, 0)"),
        ("value", ["x"], "SELECT %s::text::int"),
    ],
)
def test_failures_raise_what_psycopgs_cursor_raises(
    connection: Any, name: str, params: list, sql: str
) -> None:
    statements = PreparedStatements(connection, STATEMENTS)
    # psycopg's own reading of the same prepared statement's result (error_from_result)
    expected = _error_of(statements.run, name, params)
    got = _error_of(_replied, statements, "value", name, params)
    assert type(got) is type(expected)
    assert type(got) is type(_error_of(connection.execute, sql, tuple(params)))  # a cursor's
    assert str(got) == str(expected)
    assert got.sqlstate == expected.sqlstate and got.sqlstate
    for field in ("severity", "message_primary", "message_detail", "constraint_name"):
        assert getattr(got.diag, field) == getattr(expected.diag, field)
    # and the connection reads its next reply as before
    assert _replied(statements, "value", "value", [9]) == 9


def test_a_lost_connection_is_fatal_and_a_closed_one_raises(server: Any) -> None:
    engine = PostgresEngine.__new__(PostgresEngine)  # classify() reads no settings
    with contextlib.closing(psycopg.connect(server.dsn(), autocommit=True)) as conn:
        statements = PreparedStatements(conn, STATEMENTS)
        socket = statements.send("sleep", ["30"])  # in flight when its server goes
        with contextlib.closing(psycopg.connect(server.dsn(), autocommit=True)) as other:
            other.execute("SELECT pg_terminate_backend(%s)", (conn.pgconn.backend_pid,))
        with pytest.raises(psycopg.OperationalError) as caught:
            while statements.reply.value() is None:
                select.select([socket], [], [], 5)
        assert str(caught.value).startswith("the connection to PostgreSQL is lost")
        assert engine.classify(caught.value) == ErrorKind.FATAL
    with contextlib.closing(psycopg.connect(server.dsn(), autocommit=True)) as conn:
        statements = PreparedStatements(conn, STATEMENTS)
        conn.close()  # libpq's handle freed: read through it, never
        with pytest.raises(psycopg.OperationalError, match="the connection is closed"):
            statements.reply.value()


def test_the_reader_calls_psycopgs_own_libpq() -> None:
    path = loaded_libpq()
    assert "psycopg_binary" in path  # the binary package's bundled library
    with open("/proc/self/maps") as maps:
        mapped = {line.rsplit(" ", 1)[-1].strip() for line in maps if "libpq" in line}
    assert mapped == {path}  # one libpq in the process, never a second
