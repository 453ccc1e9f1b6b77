"""The MariaDB engine against a real server: managed on a tmp target, and external."""

from __future__ import annotations

import datetime
import json
import os
import select
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from dbstor.dialects.mysql.calls import Sender
from dbstor.engines.base import MARKER_TABLE, EngineSettings, ErrorKind
from dbstor.engines.mariadb import MariaDBEngine, MySQLEngine
from dbstor.errors import UserError

pytestmark = pytest.mark.integration
mysqldb = pytest.importorskip(
    "MySQLdb", reason="mysqlclient is not installed (pip install mysqlclient)"
)
if MariaDBEngine.find_server() is None:
    pytest.skip(
        "MariaDB server not found (apt-get install mariadb-server)", allow_module_level=True
    )

BUFFER = 8 << 20
LIMIT = 512 << 20
PASSWORD = "Xk4-secret-Pw9"


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    """A scratch directory the server account can reach (pytest's tmp dirs are 0700 root)."""
    path = Path(tempfile.mkdtemp(prefix="dbstor-mariadbtest-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def target(base: Path, name: str) -> dict[str, list[Path]]:
    root = base / name
    for sub in ("d1", "d2", "log", "temp"):
        (root / sub).mkdir(parents=True)
    return {"data": [root / "d1", root / "d2"], "log": [root / "log"], "temp": [root / "temp"]}


def leftovers(paths: dict[str, list[Path]]) -> list[str]:
    return sorted(str(p) for dirs in paths.values() for d in dirs for p in d.iterdir())


def one(engine: MariaDBEngine, query: str, conn: object | None = None) -> object:
    own = conn or engine.connect()
    try:
        with own.cursor() as cur:  # type: ignore[attr-defined]
            cur.execute(query)
            return cur.fetchone()[0]
    finally:
        if conn is None:
            own.close()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def db(base: Path) -> Iterator[MariaDBEngine]:
    engine = MariaDBEngine(
        EngineSettings(paths=target(base, "main"), buffer_bytes=BUFFER, memory_limit_bytes=LIMIT)
    )
    engine.start()
    yield engine
    engine.stop()


def test_managed_layout_redo_tmpdir_data_directory(db: MariaDBEngine) -> None:
    paths = db.settings.paths
    assert (paths["log"][0] / "dbstor-mariadb-0" / "redo" / "ib_logfile0").exists()
    assert not (db.datadir / "ib_logfile0").exists()
    assert one(db, "SELECT @@tmpdir") == str(paths["temp"][0] / "dbstor-mariadb-0" / "tmp")
    assert one(db, "SELECT @@innodb_flush_method") == "O_DIRECT"
    assert int(one(db, "SELECT @@innodb_buffer_pool_size")) == BUFFER
    assert int(one(db, "SELECT @@max_connections")) == 600
    assert one(db, "SELECT @@bind_address") == "127.0.0.1"
    with db.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE placed (id INT PRIMARY KEY)" + db.placement(1)[1])
        cur.execute("CREATE TABLE home (id INT PRIMARY KEY)" + db.placement(2)[1])
    placed = paths["data"][1] / "dbstor-mariadb-0-d1"
    assert (placed / "dbstor" / "placed.ibd").exists()
    assert (db.datadir / "dbstor" / "home.ibd").exists()
    assert db.placement(0) == ("", "") and db.placement(3) == ("", f" DATA DIRECTORY='{placed}'")
    assert db.dirs is not None  # preflight's check_target looks at what start claimed
    assert sorted(db.dirs.claimed) == sorted(set(db.instance_dirs()))
    status = Path(f"/proc/{db.server.pid}/status").read_text()
    uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
    assert os.geteuid() != 0 or uid != "0", "the server must not run as root"
    with pytest.raises(mysqldb.MySQLError):  # no passwordless root over TCP
        mysqldb.connect(host="127.0.0.1", port=db.port, user="root", password="", connect_timeout=5)


def test_eight_threads_connect_at_once(db: MariaDBEngine) -> None:
    results: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def user(n: int) -> None:
        try:
            start.wait()
            with db.connect() as conn, conn.cursor() as cur:
                cur.execute("CREATE TEMPORARY TABLE mine (v INT)")
                cur.executemany("INSERT INTO mine VALUES (%s)", [(i,) for i in range(n + 1)])
                cur.execute("SELECT COUNT(*) FROM mine")
                results.append(cur.fetchone()[0])
                conn.commit()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=user, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and sorted(results) == list(range(1, 9))


def test_counters_move_and_object_io(db: MariaDBEngine) -> None:
    with db.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(255))")
        cur.execute("INSERT INTO big SELECT seq, REPEAT('x', 250) FROM seq_1_to_150000")
        conn.commit()
        before = db.counters()
        cur.execute("SELECT COUNT(*), MAX(LENGTH(pad)) FROM big IGNORE INDEX (PRIMARY)")
        assert cur.fetchone() == (150000, 250)
    delta = db.counters().minus(before)
    # a full scan: about one page request per page, nearly all of them read from storage
    assert delta.logical_reads and delta.logical_reads > 1000
    assert delta.physical_reads and delta.physical_reads > 1000
    assert delta.storage_read_bytes and delta.storage_read_bytes > 10e6  # O_DIRECT: from disk
    assert before.storage_write_bytes and before.storage_write_bytes > 20e6
    assert before.physical_writes and before.physical_writes > 0
    objects = {o.name: o for o in db.object_io()}
    assert MARKER_TABLE not in objects
    big = objects["big"]
    assert big.kind == "table" and big.size_bytes and big.size_bytes > 30e6
    assert big.reads and big.read_bytes and big.read_bytes > 10e6 and big.writes
    assert big.read_stall_ms is not None and big.read_stall_ms > 0
    assert big.path and big.path.endswith("/big.ibd") and Path(big.path).is_file()


def test_classify_deadlock_lock_wait_and_plain_errors(db: MariaDBEngine) -> None:
    a, b = db.connect(), db.connect()
    try:
        with a.cursor() as ca, b.cursor() as cb:
            ca.execute("CREATE TABLE pair (id INT PRIMARY KEY, v INT)")
            ca.execute("INSERT INTO pair VALUES (1, 0), (2, 0)")
            a.commit()
            ca.execute("UPDATE pair SET v = 1 WHERE id = 1")
            cb.execute("UPDATE pair SET v = 1 WHERE id = 2")
            caught: list[BaseException] = []

            def cross(conn: object, cur: object, row: int) -> None:
                try:
                    cur.execute("UPDATE pair SET v = 2 WHERE id = %s", (row,))  # type: ignore[attr-defined]
                except mysqldb.MySQLError as exc:
                    caught.append(exc)
                conn.rollback()  # type: ignore[attr-defined]

            other = threading.Thread(target=cross, args=(a, ca, 2))
            other.start()
            time.sleep(0.3)
            cross(b, cb, 1)
            other.join(30)
            assert [exc.args[0] for exc in caught] == [1213]
            assert db.classify(caught[0]) == ErrorKind.RETRY
            ca.execute("SET SESSION innodb_lock_wait_timeout = 1")
            cb.execute("UPDATE pair SET v = 3 WHERE id = 1")
            with pytest.raises(mysqldb.MySQLError) as waited:
                ca.execute("UPDATE pair SET v = 4 WHERE id = 1")
            assert waited.value.args[0] == 1205 and db.classify(waited.value) == ErrorKind.RETRY
            b.rollback()
            with pytest.raises(mysqldb.MySQLError) as wrong:
                cb.execute("SELEC 1")
            assert db.classify(wrong.value) == ErrorKind.ERROR
    finally:
        a.close()
        b.close()


def _mentions_password(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]


def test_external_mode_marker_and_secrets(db: MariaDBEngine, base: Path) -> None:
    with db.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE USER 'ext'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
        cur.execute("GRANT ALL ON *.* TO 'ext'@'127.0.0.1'")
    dsn = f"mysql://ext:{PASSWORD}@127.0.0.1:{db.port}/"
    ext = MariaDBEngine(EngineSettings(dsn=dsn, instance=3))
    ext.start()
    try:
        assert PASSWORD not in json.dumps(ext.describe()) and "***" in ext.describe()["dsn"]
        with ext.connect() as conn, conn.cursor() as cur:
            cur.execute("CREATE TABLE orders (id INT PRIMARY KEY)")
            cur.executemany("INSERT INTO orders VALUES (%s)", [(i,) for i in range(1000)])
            conn.commit()
            cur.execute("SELECT DATABASE()")
            assert cur.fetchone()[0] == "dbstor_3"
        assert [o.name for o in ext.object_io()] == ["orders"]
        assert ext.alive() and "MariaDB" in ext.version()
        assert ext.counters().logical_reads is not None
    finally:
        ext.stop()
        ext.stop()  # idempotent
    assert (
        one(db, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'dbstor_3'")
        == 0
    )
    with db.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE dbstor_4")
        cur.execute("CREATE TABLE dbstor_4.precious (v INT)")
    foreign = MariaDBEngine(EngineSettings(dsn=dsn, instance=4))
    with pytest.raises(UserError, match="not created by dbstor"):
        foreign.start()
    foreign.stop()
    assert (
        one(db, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dbstor_4'")
        == 1
    )
    wrong = dsn.replace(PASSWORD, "wrong-" + PASSWORD[::-1])
    for bad in (
        wrong,
        f"mysql://ext:{PASSWORD}@127.0.0.1:1/",
        f"mysql://ext:{PASSWORD}@127.0.0.1:x/",
    ):
        with pytest.raises(UserError) as failed:
            MariaDBEngine(EngineSettings(dsn=bad)).start()
        message = str(failed.value)
        assert "\n" not in message and PASSWORD not in message and PASSWORD[::-1] not in message
        assert "***" in message
    assert _mentions_password(base) == []


def test_refuses_foreign_directory(base: Path) -> None:
    paths = target(base, "foreign")
    owned = paths["data"][0] / "dbstor-mariadb-0"
    owned.mkdir()
    (owned / "precious.txt").write_text("not dbstor's")
    with pytest.raises(UserError, match="not created by dbstor"):
        MariaDBEngine(EngineSettings(paths=paths)).start()
    assert (owned / "precious.txt").read_text() == "not dbstor's"
    assert leftovers(paths) == [str(owned)]


def test_keep_then_reclaim_then_remove_with_memory_cap(base: Path) -> None:
    paths = target(base, "keep")
    kept = MariaDBEngine(
        EngineSettings(paths=paths, instance=1, keep=True, memory_limit_bytes=LIMIT)
    )
    kept.start()
    cap = kept.describe()["memory_cap"]
    group = kept.cap.group
    if os.geteuid() == 0 and Path("/sys/fs/cgroup/memory/cgroup.procs").exists():
        assert cap.startswith("cgroup v1 group") and "page cache" in cap
    if group is not None:
        assert kept.server.pid in [int(x) for x in (group / "cgroup.procs").read_text().split()]
        limit = group / ("memory.max" if kept.cap.version == 2 else "memory.limit_in_bytes")
        assert int(limit.read_text()) == LIMIT
    else:
        assert cap.startswith("none: ")
    kept.stop()
    assert group is None or not group.exists()
    assert (paths["data"][0] / "dbstor-mariadb-1" / "data" / "ibdata1").exists()
    assert (paths["log"][0] / "dbstor-mariadb-1" / "redo" / "ib_logfile0").exists()
    again = MariaDBEngine(EngineSettings(paths=paths, instance=1))
    again.start()  # the kept, marked directories are dbstor's: reclaimed
    again.stop()
    again.stop()
    assert leftovers(paths) == []


def test_start_failure_is_one_line_quoting_the_log(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = target(base, "busy")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        monkeypatch.setattr("dbstor.engines.server.free_port", lambda: busy.getsockname()[1])
        with pytest.raises(UserError, match="port is taken") as failed:
            MariaDBEngine(EngineSettings(paths=paths, instance=5)).start()
    assert "\n" not in str(failed.value)
    assert leftovers(paths) == []


def test_killed_server_is_not_alive_and_fatal(base: Path) -> None:
    paths = target(base, "kill")
    engine = MariaDBEngine(EngineSettings(paths=paths, instance=2, memory_limit_bytes=LIMIT))
    engine.start()
    try:
        conn = engine.connect()
        with conn.cursor() as cur:
            cur.execute("CREATE USER 'gone'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
            cur.execute("GRANT ALL ON *.* TO 'gone'@'127.0.0.1'")
        ext = MariaDBEngine(
            EngineSettings(dsn=f"mysql://gone:{PASSWORD}@127.0.0.1:{engine.port}/", instance=7)
        )
        ext.start()
        assert engine.alive() and ext.alive()
        pid = engine.server.pid
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while engine.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not engine.alive() and not ext.alive()
        with pytest.raises(mysqldb.MySQLError) as lost, conn.cursor() as cur:
            cur.execute("SELECT 1")
        assert engine.classify(lost.value) == ErrorKind.FATAL
        conn.close()
        with pytest.raises(mysqldb.MySQLError) as refused:  # a virtual user's connect()
            ext.connect()
        assert ext.classify(refused.value) == ErrorKind.FATAL and PASSWORD not in str(refused.value)
        with pytest.raises(UserError, match="drop it yourself") as undropped:
            ext.stop()
        assert PASSWORD not in str(undropped.value)
    finally:
        group = engine.cap.group
        engine.stop()
    assert not Path(f"/proc/{pid}").exists()
    assert group is None or not group.exists()
    assert leftovers(paths) == []


def test_mysql_flavour_is_not_mariadb() -> None:
    found = MySQLEngine.find_server()
    if found is None:
        reason = MySQLEngine.availability().reason
        assert "MySQL" in reason and "mariadb" in reason
    assert MySQLEngine.name == "mysql" and MySQLEngine.dialect == "mysql"


# --- the hot path (dialects/mysql/calls.py): sent and read apart, libmariadb's literals ---

AWKWARD = "it's a \\ back'slash; -- \" and é, 100% %s"


def test_values_come_back_exactly_under_either_escaping_mode(db: MariaDBEngine) -> None:
    conn = db.connect()
    try:
        values = (AWKWARD, Decimal("12345.67"), datetime.datetime(2026, 11, 29, 10, 1, 2), None, 7)
        for mode in ("", "NO_BACKSLASH_ESCAPES"):
            with conn.cursor() as cur:
                cur.execute(f"SET SESSION sql_mode = '{mode}'")
            sender = Sender(conn, {"echo": "SELECT %s, %s, CAST(%s AS DATETIME), %s, %s"})
            fd = sender.send("echo", values)
            assert fd == conn.fileno()
            assert select.select([fd], [], [], 10)[0] == [fd]  # the reply comes on that socket
            assert sender.receive() == values, mode
    finally:
        conn.close()


def test_an_error_read_apart_is_classified_and_the_connection_goes_on(db: MariaDBEngine) -> None:
    holder, waiter = db.connect(), db.connect()
    try:
        with holder.cursor() as cur:
            cur.execute("CREATE TABLE held (id INT PRIMARY KEY, v INT)")
            cur.execute("INSERT INTO held VALUES (1, 0), (2, 0)")
            holder.commit()
            cur.execute("UPDATE held SET v = 1 WHERE id = 1")  # holds row 1
        sender = Sender(waiter, {"bump": "UPDATE held SET v = v + 1 WHERE id IN (%s, %s)"})
        with waiter.cursor() as cur:
            cur.execute("SET SESSION innodb_lock_wait_timeout = 1")
        sender.send("bump", (1, 2))
        with pytest.raises(mysqldb.MySQLError) as waited:
            sender.receive()
        assert waited.value.args[0] == 1205 and db.classify(waited.value) == ErrorKind.RETRY
        holder.rollback()
        sender.send("bump", (1, 2))  # the same connection, the next transaction
        assert sender.receive() is None and sender.affected == 2
        with pytest.raises(mysqldb.MySQLError) as wrong:
            Sender(waiter, {"bad": "SELEC %s"}).run("bad", (1,))
        assert db.classify(wrong.value) == ErrorKind.ERROR
        assert Sender(waiter, {"one": "SELECT %s"}).run("one", (1,)) == (1,)
    finally:
        holder.close()
        waiter.close()
