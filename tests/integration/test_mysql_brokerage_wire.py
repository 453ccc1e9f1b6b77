"""MariaDB's brokerage Wire (dialects/mysql/brokerage.py) on a managed server: each reply
read after its send, it gives the rows a cursor gives, a failing statement raises the
cursor's exception and its transaction is rolled back, a killed connection raises what the
engine calls fatal; and brokerage users, each on its own thread through the Wire, count
exactly what the server committed (its own Com_commit)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import MySQLdb
import pytest
from brokerage_checks import Recorded, committed_as_counted
from needs import usable

from dbstor.dialects.mysql.brokerage import Wire
from dbstor.drivers.users import Instance, VirtualUsers
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


def test_rows_as_a_cursor_reads_them(engine):
    conn = engine.connect()
    try:
        cur = conn.cursor()
        cur.execute(ROWS, (2,))
        expected = list(cur.fetchall())
        conn.commit()
        wire = Wire(engine.connect())
        got = wire.rows(ROWS, [2])
        assert got == expected
        assert [type(v) for v in expected[0]] == [type(v) for v in got[0]]
        # a parameter with a quote and non-ASCII text: written as the connection escapes it
        assert wire.rows("SELECT id FROM wired WHERE name = %s", ["o'brien"]) == [(1,)]
        assert wire.rows("SELECT id FROM wired WHERE name = %s", ["ünï"]) == [(2,)]
        wire.conn.close()
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
            duplicate(wire)
        assert engine.classify(caught.value) != ErrorKind.FATAL
        price = wire.rows("SELECT price FROM wired WHERE id = %s", [3])
        assert str(price[0][0]) == "3.00"  # the UPDATE before it was rolled back
    finally:
        conn.close()


def test_a_killed_connection_is_fatal(engine):
    admin = engine.connect()
    try:
        conn = engine.connect()
        wire = Wire(conn)
        admin.cursor().execute("KILL CONNECTION %s", (conn.thread_id(),))
        with pytest.raises(Exception) as caught:
            wire.rows(ROWS, [1])
        assert engine.classify(caught.value) == ErrorKind.FATAL, caught.value
        conn.close()
    finally:
        admin.close()


def server_commits(conn: Any) -> int:
    """MariaDB's own count of COMMIT statements run (every connection's)."""
    cur = conn.cursor()
    cur.execute("SHOW GLOBAL STATUS LIKE 'Com_commit'")
    return int(cur.fetchone()[1])


def test_users_on_their_own_threads_through_the_wire_count_what_the_server_committed():
    cls = usable("mariadb")
    base = Path(tempfile.mkdtemp(prefix="dbstor-wire-users-"))
    base.chmod(0o711)
    (base / "d").mkdir()
    engine = cls(EngineSettings(paths={"data": [base / "d"]}, buffer_bytes=64 << 20, users=8))
    try:
        engine.start()
        workload = Recorded(50, seed=2)
        workload.create(engine, lambda m: None)
        conn = engine.connect()
        try:
            before, seeding = server_commits(conn), not workload.market.seeded
            result = VirtualUsers([Instance(engine, workload)], 8, seed=5).run(0.0, 3.0)
            committed = server_commits(conn) - before
        finally:
            conn.close()
        assert result.fatal is None and result.errors == 0, result.messages
        sessions = workload.sessions
        assert len(sessions) == 8 and all(s.wire is not None and not s.can_submit for s in sessions)
        done = committed_as_counted(result, sessions)
        # the server's own count: a COMMIT each (and the market's seeding), nothing else
        assert committed == sum(done.values()) + seeding > 0
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
