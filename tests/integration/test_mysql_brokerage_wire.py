"""MariaDB's brokerage Wire (dialects/mysql/brokerage.py) on a managed server: on the loop
(a greenlet per transaction, the reply read apart) and in a thread of its own (read after
each send) it gives the rows a cursor gives, a failing statement raises the cursor's
exception where it was sent and its transaction is rolled back, and a killed connection
raises what the engine calls fatal."""

from __future__ import annotations

import select
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import MySQLdb
import pytest
from needs import usable

from dbstor.dialects.mysql.brokerage import Wire
from dbstor.engines.base import EngineSettings, ErrorKind

pytestmark = pytest.mark.integration
ROWS = "SELECT id, name, price, made FROM wired WHERE id <= %s ORDER BY id"


@pytest.fixture(scope="module")
def engine() -> Iterator[Any]:
    cls = usable("mariadb")
    base = Path(tempfile.mkdtemp(prefix="dbstor-wire-"))
    base.chmod(0o711)  # the server's account must reach its directories
    (base / "d").mkdir()
    engine = cls(EngineSettings(paths={"data": [base / "d"]}, buffer_bytes=16 << 20))
    try:
        engine.start()
        conn = engine.connect()
        cur = conn.cursor()
        cur.execute(
            "CREATE TABLE wired (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2),"
            " made DATETIME NULL)"
        )
        cur.execute(
            "INSERT INTO wired VALUES (1, 'o''brien', 1.50, '2026-11-29 10:00:00'),"
            " (2, 'ünï', 2.25, NULL), (3, 'c', 3.00, NULL)"
        )
        conn.commit()
        conn.close()
        yield engine
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)


def on_loop(wire: Wire, body: Any) -> Any:
    """Run body(wire) as the driver's loop runs a transaction: start, then collect on
    every readable socket until it ends; what it returned, or its exception."""
    found: list[Any] = []
    epoll = select.epoll()
    try:
        epoll.register(wire.start(lambda _: found.append(body(wire)), "T"), select.EPOLLIN)
        while True:
            assert epoll.poll(10), "no reply within 10 s"
            if wire.collect():
                return found[0]
    finally:
        epoll.close()


def test_rows_as_a_cursor_reads_them_on_the_loop_and_in_a_thread(engine):
    conn = engine.connect()
    try:
        cur = conn.cursor()
        cur.execute(ROWS, (2,))
        expected = list(cur.fetchall())
        conn.commit()
        wire = Wire(conn)
        read = lambda w: w.rows(ROWS, [2])  # noqa: E731
        assert on_loop(wire, read) == expected
        assert [type(v) for v in expected[0]] == [type(v) for v in on_loop(wire, read)[0]]
        thread = Wire(engine.connect())
        assert read(thread) == expected  # no greenlet: read right after the send
        # a parameter with a quote and non-ASCII text: written as the connection escapes it
        named = on_loop(wire, lambda w: w.rows("SELECT id FROM wired WHERE name = %s", ["o'brien"]))
        assert named == [(1,)]
        assert thread.rows("SELECT id FROM wired WHERE name = %s", ["ünï"]) == [(2,)]
        thread.conn.close()
    finally:
        conn.close()


def test_a_failing_statement_raises_the_cursors_error_and_rolls_its_transaction_back(engine):
    conn = engine.connect()
    try:
        wire = Wire(conn)

        def duplicate(w: Wire) -> None:
            w.command(b"BEGIN")
            assert w.write("UPDATE wired SET price = price + 1 WHERE id = %s", [3]) == 1
            try:
                w.write("INSERT INTO wired (id, name) VALUES (%s, %s)", [1, "again"])
            except Exception:
                w.command(b"ROLLBACK")
                raise

        with pytest.raises(MySQLdb.IntegrityError) as caught:
            on_loop(wire, duplicate)
        assert engine.classify(caught.value) != ErrorKind.FATAL
        price = on_loop(wire, lambda w: w.rows("SELECT price FROM wired WHERE id = %s", [3]))
        assert str(price[0][0]) == "3.00"  # the UPDATE before it was rolled back
    finally:
        conn.close()


def test_a_killed_connection_is_fatal_on_the_loop_and_in_a_thread(engine):
    admin = engine.connect()
    try:
        for looped in (True, False):
            conn = engine.connect()
            wire = Wire(conn)
            cur = admin.cursor()
            cur.execute("KILL CONNECTION %s", (conn.thread_id(),))
            read = lambda w: w.rows(ROWS, [1])  # noqa: E731
            with pytest.raises(Exception) as caught:
                on_loop(wire, read) if looped else read(wire)
            assert engine.classify(caught.value) == ErrorKind.FATAL, caught.value
            conn.close()
    finally:
        admin.close()


def test_an_abandoned_transaction_unwinds_without_waiting_for_its_reply(engine):
    conn = engine.connect()
    unwound: list[str] = []

    def slow(w: Wire) -> None:
        try:
            w.rows("SELECT SLEEP(%s)", [60])  # the point stops while it runs
        except BaseException as exc:
            with pytest.raises(ConnectionAbortedError):
                w.command(b"ROLLBACK")  # as the session's rollback would: no read
            unwound.append(type(exc).__name__)
            raise

    try:
        wire = Wire(conn)
        wire.start(lambda _: slow(wire), "T")
        assert wire.abandon()
        assert unwound == ["GreenletExit"]
        assert not wire.abandon()  # nothing in flight any more
    finally:
        conn.close()
