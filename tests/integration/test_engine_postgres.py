"""The PostgreSQL engine against a real server: managed on a tmp target, and external."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbstor.engines.base import MARKER_TABLE, EngineSettings, ErrorKind
from dbstor.engines.postgres import PostgresEngine, find_bindir
from dbstor.errors import UserError

pytestmark = pytest.mark.integration
psycopg = pytest.importorskip(
    "psycopg", reason="psycopg 3 is not installed (pip install 'dbstor[postgres]')"
)
if find_bindir() is None:
    pytest.skip(
        "PostgreSQL binaries not found (apt-get install postgresql)", allow_module_level=True
    )

BUFFER = 8 << 20
LIMIT = 256 << 20
PASSWORD = "Zq9-secret-Pw7"


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    """A scratch directory the server account can reach (pytest's tmp dirs are 0700 root)."""
    path = Path(tempfile.mkdtemp(prefix="dbstor-pgtest-"))
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


@pytest.fixture(scope="module")
def pg(base: Path) -> Iterator[PostgresEngine]:
    engine = PostgresEngine(
        EngineSettings(paths=target(base, "main"), buffer_bytes=BUFFER, memory_limit_bytes=LIMIT)
    )
    engine.start()
    yield engine
    engine.stop()


def test_managed_layout_wal_tablespaces_and_account(pg: PostgresEngine) -> None:
    paths = pg.settings.paths
    wal = paths["log"][0] / "dbstor-pg-0" / "wal"
    assert any(p.name.startswith("0000000100") for p in wal.iterdir())
    assert (pg.datadir / "pg_wal").resolve() == wal
    with pg.connect() as conn:
        conn.execute("CREATE TABLE placed (id int)" + pg.placement(1)[1])
        conn.execute("CREATE TABLE home (id int)" + pg.placement(2)[1])
        conn.commit()
        placed = conn.execute("SELECT pg_relation_filepath('placed')").fetchone()[0]
        home = conn.execute("SELECT pg_relation_filepath('home')").fetchone()[0]
        assert conn.execute("SHOW temp_tablespaces").fetchone()[0] == "dbstor_temp"
        assert conn.execute("SHOW fsync").fetchone()[0] == "on"
        assert conn.execute("SHOW max_connections").fetchone()[0] == "600"
    assert pg.placement(0) == ("", "") and pg.placement(3) == ("", " TABLESPACE dbstor_d1")
    assert (pg.datadir / placed).resolve().is_relative_to(paths["data"][1] / "dbstor-pg-0")
    assert (pg.datadir / home).resolve().is_relative_to(paths["data"][0] / "dbstor-pg-0")
    status = Path(f"/proc/{pg.server.pid}/status").read_text()
    uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
    assert os.geteuid() != 0 or uid != "0", "the server must not run as root"
    assert pg.data_paths()["log"] == [str(wal)]
    assert pg.dirs is not None  # preflight's check_target looks at what start claimed
    assert sorted(pg.dirs.claimed) == sorted(set(pg.instance_dirs()))
    with pytest.raises(psycopg.OperationalError):  # no passwordless login over TCP
        psycopg.connect(
            host="127.0.0.1", port=pg.port, user="dbstor", dbname="dbstor", connect_timeout=5
        )


def test_eight_threads_connect_at_once(pg: PostgresEngine) -> None:
    results: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def user(n: int) -> None:
        try:
            start.wait()
            with pg.connect() as conn:
                conn.execute("CREATE TEMP TABLE mine (v int)")
                conn.execute("INSERT INTO mine SELECT generate_series(1, %s)", (n + 1,))
                results.append(conn.execute("SELECT count(*) FROM mine").fetchone()[0])
                conn.commit()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=user, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and sorted(results) == list(range(1, 9))


def _drop_cache(files: list[Path]) -> None:
    for path in files:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def test_counters_move_and_object_io(pg: PostgresEngine) -> None:
    with pg.connect() as conn:
        conn.execute("CREATE TABLE big (id int PRIMARY KEY, pad text)")
        conn.execute("INSERT INTO big SELECT g, repeat('x', 250) FROM generate_series(1, 150000) g")
        conn.commit()
        conn.autocommit = True
        conn.execute("CHECKPOINT")
        relpath = conn.execute("SELECT pg_relation_filepath('big')").fetchone()[0]
        _drop_cache(sorted((pg.datadir / relpath).parent.glob(Path(relpath).name + "*")))
        before = pg.counters()
        assert conn.execute("SELECT count(*), max(length(pad)) FROM big").fetchone() == (
            150000,
            250,
        )
    deadline = time.monotonic() + 10
    while True:  # backends flush their statistics about once a second
        delta = pg.counters().minus(before)
        if (delta.physical_reads or 0) > 4000 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert delta.logical_reads and delta.logical_reads >= delta.physical_reads > 4000
    assert delta.storage_read_bytes and delta.storage_read_bytes > 20e6  # the table came from disk
    assert before.storage_write_bytes and before.storage_write_bytes > 30e6
    assert before.physical_writes and before.physical_writes > 0
    objects = {o.name: o for o in pg.object_io()}
    assert objects["big"].kind == "table" and objects["big"].size_bytes > 30e6
    assert objects["big"].reads and objects["big"].reads > 4000 and objects["big"].writes is None
    assert objects["big_pkey"].kind == "index" and objects["big_pkey"].size_bytes > 1e6
    assert objects["big"].path == str(pg.datadir), "the default tablespace: the data directory"
    assert objects["big"].rows_changed == 150_000, "the rows inserted (pg_stat_user_tables)"
    assert objects["big_pkey"].rows_changed is None, "an index has no row counts of its own"


def test_own_window_figures_count_commits_wal_and_timed_reads(pg: PostgresEngine) -> None:
    """The engine's own window figures (engines/postgres_window.py) through the contract on
    the managed server: commits and WAL per second, blocks read from outside shared
    buffers with their time (track_io_timing is on), WAL syncs without time (off)."""
    before = pg.counters()
    with pg.connect() as conn:
        conn.execute("CREATE TABLE own_window (id int PRIMARY KEY, pad text)")
        conn.commit()
        for k in range(20):  # 20 commits, each a WAL sync (synchronous_commit on)
            conn.execute(
                "INSERT INTO own_window SELECT g, repeat('y', 250)"
                " FROM generate_series(%s::int, %s::int) g",
                (k * 5000 + 1, (k + 1) * 5000),
            )
            conn.commit()
        conn.autocommit = True
        conn.execute("CHECKPOINT")
        assert conn.execute("SELECT count(*) FROM own_window").fetchone() == (100_000,)
    deadline = time.monotonic() + 10
    while True:  # backends flush their statistics about once a second
        figures = pg.over_window(before, pg.counters()).window
        reads = figures["waits"]["DataFileRead"]
        if (reads["waits"] or 0) > 1000 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert figures["seconds"] > 0
    assert reads["waits"] > 1000  # the scan read past the 8 MiB of shared buffers
    assert reads["wait_ms"] is not None and reads["wait_ms"] > 0  # track_io_timing on
    assert reads["mean_ms"] == pytest.approx(reads["wait_ms"] / reads["waits"])
    assert figures["rates"]["commits/s"] * figures["seconds"] >= 21
    assert figures["rates"]["WAL bytes/s"] * figures["seconds"] > 25e6  # 100,000 rows of 250 B
    syncs = figures["waits"]["WALSync"]
    assert syncs["waits"] >= 20 and syncs["wait_ms"] is None and syncs["mean_ms"] is None
    assert "track_wal_io_timing is off" in figures["why_null"]["WALSync"]


def test_classify_deadlock_and_plain_errors(pg: PostgresEngine) -> None:
    a, b = pg.connect(), pg.connect()
    try:
        a.execute("CREATE TABLE pair (id int PRIMARY KEY, v int)")
        a.execute("INSERT INTO pair VALUES (1, 0), (2, 0)")
        a.commit()
        a.execute("UPDATE pair SET v = 1 WHERE id = 1")
        b.execute("UPDATE pair SET v = 1 WHERE id = 2")
        caught: list[BaseException] = []

        def cross(conn: object, row: int) -> None:
            try:
                conn.execute("UPDATE pair SET v = 2 WHERE id = %s", (row,))  # type: ignore[attr-defined]
            except psycopg.Error as exc:
                caught.append(exc)
                conn.rollback()  # type: ignore[attr-defined]

        other = threading.Thread(target=cross, args=(a, 2))
        other.start()
        cross(b, 1)
        other.join(30)
        assert len(caught) == 1 and caught[0].sqlstate == "40P01"
        assert pg.classify(caught[0]) == ErrorKind.RETRY
        try:
            b.execute("SELEC 1")
        except psycopg.Error as exc:
            assert pg.classify(exc) == ErrorKind.ERROR
    finally:
        a.close()
        b.close()


def _mentions_password(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]


def test_external_mode_marker_and_secrets(pg: PostgresEngine, base: Path) -> None:
    with pg.connect() as conn:
        conn.execute(f"CREATE ROLE ext LOGIN PASSWORD '{PASSWORD}'")
        conn.execute("GRANT CREATE ON DATABASE dbstor TO ext")
        conn.commit()
    dsn = f"postgresql://ext:{PASSWORD}@127.0.0.1:{pg.port}/dbstor"
    ext = PostgresEngine(EngineSettings(dsn=dsn, instance=3))
    ext.start()
    try:
        assert PASSWORD not in json.dumps(ext.describe()) and "***" in ext.describe()["dsn"]
        with ext.connect() as conn:
            conn.execute("CREATE TABLE orders (id int PRIMARY KEY)")
            conn.execute("INSERT INTO orders SELECT generate_series(1, 1000)")
            conn.commit()
            assert conn.execute("SELECT current_schema()").fetchone()[0] == "dbstor_3"
        assert [o.name for o in ext.object_io()] == ["orders", "orders_pkey"]
        assert ext.alive() and ext.version().startswith("15")
        assert ext.counters().logical_reads is not None
    finally:
        ext.stop()
        ext.stop()  # idempotent
    with pg.connect() as conn:
        assert (
            conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'dbstor_3'").fetchone()[
                0
            ]
            == 0
        )
        conn.execute("CREATE SCHEMA dbstor_4 AUTHORIZATION ext")
        conn.execute("CREATE TABLE dbstor_4.precious (v int)")
        conn.commit()
    foreign = PostgresEngine(EngineSettings(dsn=dsn, instance=4))
    with pytest.raises(UserError, match="not created by dbstor") as refused:
        foreign.start()
    foreign.stop()
    with pg.connect() as conn:
        assert conn.execute("SELECT to_regclass('dbstor_4.precious')").fetchone()[0] is not None
    assert MARKER_TABLE in str(refused.value)
    for bad in (
        dsn.replace(PASSWORD, "wrong-" + PASSWORD[::-1]),
        f"postgresql://ext:{PASSWORD}@127.0.0.1:1/dbstor",
    ):
        with pytest.raises(UserError) as failed:
            PostgresEngine(EngineSettings(dsn=bad)).start()
        message = str(failed.value)
        assert "\n" not in message and PASSWORD not in message and PASSWORD[::-1] not in message
        assert "***" in message
    assert _mentions_password(base) == []


def test_refuses_foreign_directory(base: Path) -> None:
    paths = target(base, "foreign")
    owned = paths["data"][0] / "dbstor-pg-0"
    owned.mkdir()
    (owned / "precious.txt").write_text("not dbstor's")
    with pytest.raises(UserError, match="not created by dbstor"):
        PostgresEngine(EngineSettings(paths=paths)).start()
    assert (owned / "precious.txt").read_text() == "not dbstor's"
    assert leftovers(paths) == [str(owned)]


def test_keep_then_reclaim_then_remove_with_memory_cap(base: Path) -> None:
    paths = target(base, "keep")
    kept = PostgresEngine(
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
    assert (paths["data"][0] / "dbstor-pg-1" / "data" / "PG_VERSION").exists()
    assert (paths["log"][0] / "dbstor-pg-1" / "wal").is_dir()
    again = PostgresEngine(EngineSettings(paths=paths, instance=1))
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
        with pytest.raises(UserError, match="Address already in use") as failed:
            PostgresEngine(EngineSettings(paths=paths, instance=5)).start()
    assert "\n" not in str(failed.value)
    assert leftovers(paths) == []


def test_killed_server_is_not_alive_and_fatal(base: Path) -> None:
    paths = target(base, "kill")
    engine = PostgresEngine(EngineSettings(paths=paths, instance=2, memory_limit_bytes=LIMIT))
    engine.start()
    try:
        conn = engine.connect()
        conn.execute(f"CREATE ROLE gone LOGIN PASSWORD '{PASSWORD}'")
        conn.execute("GRANT CREATE ON DATABASE dbstor TO gone")
        conn.commit()
        dsn = f"postgresql://gone:{PASSWORD}@127.0.0.1:{engine.port}/dbstor"
        ext = PostgresEngine(EngineSettings(dsn=dsn, instance=7))
        ext.start()
        assert engine.alive() and ext.alive()
        pids = engine.server.pids()
        os.kill(engine.server.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while engine.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not engine.alive() and not ext.alive()
        with pytest.raises(psycopg.Error) as lost:
            conn.execute("SELECT 1")
        assert engine.classify(lost.value) == ErrorKind.FATAL
        conn.close()
        with pytest.raises(
            psycopg.Error
        ) as refused:  # a virtual user's connect(): the driver's error
            ext.connect()
        assert ext.classify(refused.value) == ErrorKind.FATAL and PASSWORD not in str(refused.value)
        with pytest.raises(UserError, match="drop it yourself") as undropped:
            ext.stop()
        assert PASSWORD not in str(undropped.value)
    finally:
        group = engine.cap.group
        engine.stop()
    assert not any(
        Path(f"/proc/{p}").exists()
        and Path(f"/proc/{p}/cmdline").read_bytes().startswith(b"postgres")
        for p in pids
    )
    assert group is None or not group.exists()
    assert leftovers(paths) == []
