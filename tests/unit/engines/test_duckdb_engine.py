import threading

import pytest

duckdb = pytest.importorskip(
    "duckdb", reason="duckdb is not installed (pip install 'dbstor[duckdb]')"
)

from dbstor.engines.base import EngineSettings, ErrorKind  # noqa: E402
from dbstor.engines.duckdb import DuckDBEngine  # noqa: E402
from dbstor.engines.registry import all_engines, engine_class  # noqa: E402
from dbstor.errors import UserError  # noqa: E402
from dbstor.testfiles import MANIFEST  # noqa: E402


def make(tmp_path, *dirs, temp=None, **kw):
    paths = [tmp_path / d for d in dirs] or [tmp_path]
    for p in paths:
        p.mkdir(exist_ok=True)
    roles = {"data": paths}
    if temp:
        (tmp_path / temp).mkdir(exist_ok=True)
        roles["temp"] = [tmp_path / temp]
    return DuckDBEngine(EngineSettings(paths=roles, **kw))


@pytest.fixture
def engine(tmp_path):
    engine = make(tmp_path, "a")
    engine.start()
    yield engine
    engine.stop()


def test_tables_spread_over_paths_found_by_plain_name_and_all_removed(tmp_path):
    engine = make(tmp_path, "a", "b", temp="t")
    engine.start()
    conn = engine.connect()
    prefix, suffix = engine.placement(1)
    assert (prefix, suffix) == ("d1.", "") and engine.placement(2) == ("", "")
    conn.execute(f"CREATE TABLE {prefix}far AS SELECT range AS x FROM range(100000)")
    conn.execute("CREATE TABLE near (y INTEGER)")
    conn.execute("CHECKPOINT d1")
    other = engine.connect()  # a second connection sees the same tables by plain name
    assert other.execute("SELECT count(*), sum(x) FROM far").fetchall() == [(100000, 4999950000)]
    db = tmp_path / "b" / "dbstor-duckdb-0-d1.db"
    assert db.stat().st_size > 0
    assert engine.data_paths()["temp"] == [str(tmp_path / "t" / "dbstor-duckdb-0.tmp")]
    assert (tmp_path / "t" / "dbstor-duckdb-0.tmp").is_dir()
    conn.close()
    other.close()
    engine.stop()
    for d in ("a", "b", "t"):
        assert not list((tmp_path / d).iterdir()), d


def test_keep_leaves_the_database_files(tmp_path):
    engine = make(tmp_path, keep=True)
    engine.start()
    engine.connect().execute("CREATE TABLE kept AS SELECT 42 AS answer")
    engine.stop()
    assert (tmp_path / MANIFEST).exists()
    again = duckdb.connect(str(tmp_path / "dbstor-duckdb-0.db"))
    assert again.execute("SELECT answer FROM kept").fetchall() == [(42,)]
    again.close()


def test_refuses_a_foreign_database_file(tmp_path):
    foreign = tmp_path / "dbstor-duckdb-0.db"
    con = duckdb.connect(str(foreign))
    con.execute("CREATE TABLE precious AS SELECT 1 AS x")
    con.close()
    with pytest.raises(UserError, match="not created by dbstor"):
        make(tmp_path).start()
    con = duckdb.connect(str(foreign))
    assert con.execute("SELECT x FROM precious").fetchall() == [(1,)]
    con.close()


def test_refuses_a_foreign_temp_directory(tmp_path):
    temp = tmp_path / "t" / "dbstor-duckdb-0.tmp"
    temp.mkdir(parents=True)
    (temp / "someone-elses").write_text("keep me")
    with pytest.raises(UserError, match="not created by dbstor"):
        make(tmp_path, "a", temp="t").start()
    assert (temp / "someone-elses").read_text() == "keep me"
    assert not list((tmp_path / "a").iterdir())


def test_a_dsn_or_no_path_is_refused(tmp_path):
    with pytest.raises(UserError, match="embedded"):
        DuckDBEngine(EngineSettings(paths={"data": [tmp_path]}, dsn="duckdb://x"))
    with pytest.raises(UserError, match="--target"):
        DuckDBEngine(EngineSettings())


def test_memory_limit_threads_and_temp_directory_are_set(tmp_path):
    engine = make(tmp_path, "a", temp="t", buffer_bytes=192 << 20)
    engine.start()
    try:
        conn = engine.connect()
        limit, threads, temp = conn.execute(
            "SELECT current_setting('memory_limit'), current_setting('threads'), "
            "current_setting('temp_directory')"
        ).fetchall()[0]
        assert limit == "192.0 MiB"
        assert int(threads) == engine.threads >= 1
        assert temp == str(tmp_path / "t" / "dbstor-duckdb-0.tmp")
        info = engine.describe()
        assert info["duckdb_memory_limit"] == "192.0 MiB" and info["buffer_bytes"] == 192 << 20
    finally:
        engine.stop()


def test_a_tiny_buffer_is_raised_to_what_duckdb_needs_to_run_queries(tmp_path):
    engine = make(tmp_path, buffer_bytes=8 << 20)
    engine.start()
    try:
        assert engine.describe()["duckdb_memory_limit"] == "128.0 MiB"
    finally:
        engine.stop()


def test_restart_keeps_the_data_and_closes_old_connections(engine):
    conn = engine.connect()
    conn.execute("CREATE TABLE t AS SELECT range AS x FROM range(1000)")
    engine.restart()
    with pytest.raises(duckdb.Error) as closed:
        conn.execute("SELECT 1")
    assert engine.classify(closed.value) == ErrorKind.FATAL
    assert engine.connect().execute("SELECT sum(x) FROM t").fetchall() == [(499500,)]
    engine.restart(evict=True)
    assert engine.connect().execute("SELECT count(*) FROM t").fetchall() == [(1000,)]


def test_classify_conflict_as_retry_and_syntax_as_error(engine):
    setup = engine.connect()
    setup.execute("CREATE TABLE c (id INTEGER, n INTEGER)")
    setup.execute("INSERT INTO c VALUES (1, 0)")
    first, second = engine.connect(), engine.connect()
    first.begin()
    second.begin()
    first.execute("UPDATE c SET n = 1 WHERE id = 1")
    with pytest.raises(duckdb.Error) as conflict:
        second.execute("UPDATE c SET n = 2 WHERE id = 1")
    assert engine.classify(conflict.value) == ErrorKind.RETRY
    first.commit()
    second.rollback()
    with pytest.raises(duckdb.Error) as syntax:
        setup.execute("SELEC 1")
    assert engine.classify(syntax.value) == ErrorKind.ERROR


def test_connections_from_threads(engine):
    conn = engine.connect()
    conn.execute("CREATE TABLE hits (user_id INTEGER, n INTEGER)")
    errors = []

    def user(k):
        try:
            c = engine.connect()
            for n in range(50):
                c.execute("INSERT INTO hits VALUES (?, ?)", [k, n])
            c.close()
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=user, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert conn.execute("SELECT count(*), count(DISTINCT user_id) FROM hits").fetchall() == [
        (200, 4)
    ]


def test_object_io_lists_tables_with_sizes(tmp_path):
    engine = make(tmp_path, "a", "b")
    engine.start()
    try:
        conn = engine.connect()
        conn.execute("CREATE TABLE small AS SELECT 1 AS x")
        conn.execute(
            "CREATE TABLE d1.big AS SELECT range AS id, md5(range::VARCHAR) AS h FROM range(200000)"
        )
        conn.execute("CHECKPOINT")
        conn.execute("CHECKPOINT d1")
        sizes = {o.name: o.size_bytes for o in engine.object_io()}
        assert set(sizes) == {"small", "big"}
        assert sizes["big"] >= 3_200_000  # 200,000 x 32 hex digits hold 16 bytes each
        assert sizes["small"] < sizes["big"]
    finally:
        engine.stop()


def test_registry_and_availability():
    assert engine_class("duckdb") is DuckDBEngine
    rows = {name: availability for name, _, _, availability in all_engines()}
    assert rows["duckdb"].usable and duckdb.__version__ in rows["duckdb"].reason


def test_ctrl_c_swallowed_by_duckdb_is_raised_again():
    from dbstor.engines.duckdb import ctrl_c_kept

    with pytest.raises(KeyboardInterrupt), ctrl_c_kept():
        raise RuntimeError("Query interrupted")
    with pytest.raises(RuntimeError, match="other"), ctrl_c_kept():
        raise RuntimeError("other")
    with pytest.raises(duckdb.InterruptException), ctrl_c_kept():  # interrupt(): a timeout
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")


def test_under_a_memory_cap_duckdb_gets_three_quarters_of_it(tmp_path):
    assert make(tmp_path).capped_memory_limit() is None  # no --memory-limit, no cap
    assert make(tmp_path, memory_limit_bytes=48 << 20).capped_memory_limit() == 36 << 20
    smaller = make(tmp_path, memory_limit_bytes=48 << 20, buffer_bytes=20 << 20)
    assert smaller.capped_memory_limit() == 20 << 20  # --buffer when it is smaller
    assert make(tmp_path, memory_limit_bytes=8 << 20).capped_memory_limit() == 16 << 20


def test_detach_hands_the_file_to_another_instance_and_attach_takes_it_back(tmp_path):
    from dbstor.drivers.capped_streams import capped_group

    engine = make(tmp_path, memory_limit_bytes=48 << 20)
    engine.start()
    try:
        engine.connect().execute("CREATE TABLE t AS SELECT range AS x FROM range(10)")
        engine.detach()
        assert not engine.alive()
        client = make(tmp_path, memory_limit_bytes=48 << 20)  # as in the client process
        client.attach(capped=True)
        conn = client.connect()
        assert conn.execute("SELECT current_setting('memory_limit')").fetchall() == [("36.0 MiB",)]
        assert conn.execute("SELECT count(*) FROM t").fetchall() == [(10,)]
        conn.close()
        client.detach()
        engine.attach()
        assert engine.connect().execute("SELECT sum(x) FROM t").fetchall() == [(45,)]
        assert engine.describe()["duckdb_capped_memory_limit_bytes"] == 36 << 20
        cap = engine.client_cap
        assert cap is not None and (capped_group(engine) is cap) == cap.active
    finally:
        engine.stop()
    group = engine.client_cap.cap.group
    assert group is None or not group.exists()  # the cgroup goes with the engine
