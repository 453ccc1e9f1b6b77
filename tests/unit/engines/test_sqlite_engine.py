import sqlite3
import threading

import pytest

from dbstor.engines.base import EngineSettings, ErrorKind, mask_dsn
from dbstor.engines.registry import all_engines, engine_class
from dbstor.engines.sqlite import PAGE_SIZE, SQLiteEngine
from dbstor.errors import UserError
from dbstor.testfiles import MANIFEST


def make(tmp_path, *dirs, **kw):
    paths = [tmp_path / d for d in dirs] or [tmp_path]
    for p in paths:
        p.mkdir(exist_ok=True)
    return SQLiteEngine(EngineSettings(paths={"data": paths}, **kw))


def test_creates_8k_wal_files_spread_over_paths_and_removes_them(tmp_path):
    engine = make(tmp_path, "a", "b")
    engine.start()
    conn = engine.connect()
    assert conn.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    prefix, suffix = engine.placement(1)
    assert (prefix, suffix) == ("d1.", "")
    conn.execute(f"CREATE TABLE {prefix}t (x)")
    conn.execute("INSERT INTO t VALUES (1)")  # unqualified name resolves to the attached file
    conn.commit()
    conn.close()
    assert (tmp_path / "b" / "dbstor-sqlite-0-d1.db").stat().st_size > 0
    assert {o.name for o in engine.object_io()} >= {"t"}
    engine.stop()
    assert not list((tmp_path / "a").iterdir()) and not list((tmp_path / "b").iterdir())


def test_keep_leaves_the_files(tmp_path):
    engine = make(tmp_path, keep=True)
    engine.start()
    engine.stop()
    assert (tmp_path / "dbstor-sqlite-0.db").exists() and (tmp_path / MANIFEST).exists()


def test_refuses_a_foreign_database_file(tmp_path):
    foreign = tmp_path / "dbstor-sqlite-0.db"
    sqlite3.connect(foreign).execute("CREATE TABLE precious (x)")
    with pytest.raises(UserError, match="not created by dbstor"):
        make(tmp_path).start()
    assert sqlite3.connect(foreign).execute("SELECT name FROM sqlite_master").fetchall() == [
        ("precious",)
    ]


def test_classify_busy_and_fatal(tmp_path):
    engine = make(tmp_path)
    assert engine.classify(sqlite3.OperationalError("database is locked")) == ErrorKind.RETRY
    assert engine.classify(sqlite3.OperationalError("disk I/O error")) == ErrorKind.FATAL
    assert engine.classify(sqlite3.IntegrityError("UNIQUE constraint failed")) == ErrorKind.ERROR


def test_counters_see_reads(tmp_path):
    engine = make(tmp_path)
    engine.start()
    conn = engine.connect()
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.executemany("INSERT INTO t VALUES (?)", [(b"x" * 4000,) for _ in range(2000)])
    conn.commit()
    conn.close()
    before = engine.counters()
    conn = engine.connect()
    assert conn.execute("SELECT COUNT(*), SUM(LENGTH(x)) FROM t").fetchone()[0] == 2000
    delta = engine.counters().minus(before)
    assert delta.logical_reads > 100  # ~8 MB read through the OS, SQLite's cache being 2 MiB
    conn.close()
    engine.stop()


def test_connections_from_threads(tmp_path):
    engine = make(tmp_path)
    engine.start()
    conn = engine.connect()
    conn.execute("CREATE TABLE c (n INTEGER)")
    conn.execute("INSERT INTO c VALUES (0)")
    conn.commit()

    def bump():
        c = engine.connect()
        for _ in range(50):
            c.execute("UPDATE c SET n = n + 1")
            c.commit()
        c.close()

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert conn.execute("SELECT n FROM c").fetchone()[0] == 200
    conn.close()
    engine.stop()


def test_registry():
    assert engine_class("sqlite3") is SQLiteEngine
    with pytest.raises(UserError, match="did you mean 'sqlite'"):
        engine_class("sqlit")
    with pytest.raises(UserError, match="planned, not built yet"):
        engine_class("oracle")
    rows = {name: availability for name, _, _, availability in all_engines()}
    assert rows["sqlite"].usable and not rows["sqlite"].planned


def test_mask_dsn():
    assert mask_dsn("postgresql://bench:s3cret@db:5432/x") == "postgresql://bench:***@db:5432/x"
    assert mask_dsn("host=db password=s3cret user=x") == "host=db password=*** user=x"
    assert "s3cret" not in mask_dsn("connection to postgresql://u:s3cret@h failed")


def test_a_capped_client_keeps_sqlites_cache_under_the_cap(tmp_path):
    from dbstor.drivers.capped_streams import capped_group

    def cache_pages(engine):
        conn = engine.connect()
        try:
            return conn.execute("PRAGMA cache_size").fetchone()[0]
        finally:
            conn.close()

    engine = make(tmp_path, "a", "b", memory_limit_bytes=48 << 20, buffer_bytes=64 << 20)
    engine.start()
    try:
        conn = engine.connect()
        conn.execute("CREATE TABLE d1.t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
        conn.commit()
        conn.close()
        assert engine.capped_cache_bytes() == 36 << 20  # --buffer, at most 3/4 of the cap
        assert engine.capped_settings() == "SQLite's own cache 36 MiB a connection"
        engine.detach()  # nothing held: the files stay open to other processes
        client = make(tmp_path, "a", "b", memory_limit_bytes=48 << 20, buffer_bytes=64 << 20)
        client.attach(capped=True)  # as in the client process
        assert cache_pages(client) == (36 << 20) // PAGE_SIZE
        assert client.connect().execute("SELECT x FROM t").fetchall() == [(1,)]
        engine.attach()
        assert cache_pages(engine) == (64 << 20) // PAGE_SIZE  # this process: as before
        cap = engine.client_cap
        assert cap is not None and (capped_group(engine) is cap) == cap.active
    finally:
        engine.stop()
    assert make(tmp_path, "c").capped_cache_bytes() is None  # no --memory-limit, no cap
    small = make(tmp_path, "d", memory_limit_bytes=48 << 20)
    assert small.capped_cache_bytes() == 2 << 20  # the usual 2 MiB is well under the cap
    with pytest.raises(FileNotFoundError, match="is not there"):
        make(tmp_path, "e", memory_limit_bytes=48 << 20).attach(capped=True)
    assert not list((tmp_path / "e").iterdir())  # no empty database made in its place
