"""The blocks workload on real SQLite, PostgreSQL and MariaDB: 3 users x 2,000 rows over
two data paths; one row per 8K block as the engines measure it; reads and updates from
three virtual users at once with update_pct and batch honoured; the same data from the
same seed; sessions made in a forked child."""

from __future__ import annotations

import contextlib
import hashlib
import math
import multiprocessing
import pickle
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from needs import engine_settings, engine_targets, not_applicable, speaks, usable

from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import Engine, EngineSettings, ErrorKind
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.base import LoadReport
from dbstor.workloads.blocks import BlocksWorkload, schema

pytestmark = pytest.mark.integration
USERS, ROWS, SEED = 3, 2000, 5
OPTIONS = {"update_pct": 40, "batch": 2}
DRIVE_S = 3.0


def query(conn: Any, sql: str, params: tuple = ()) -> list[tuple]:
    cur = conn.cursor()
    cur.execute(sql, params)
    rows = list(cur.fetchall())
    conn.commit()
    return rows


def checksum(conn: Any, tables: list[str]) -> str:
    """SHA-256 of every row of the tables, in key order."""
    digest = hashlib.sha256()
    for table in tables:
        for row in query(conn, f"SELECT id, version, pad FROM {table} ORDER BY id"):
            digest.update(f"{table}:{row[0]}:{row[1]}:{row[2]}\n".encode())
    return digest.hexdigest()


def versions(conn: Any, tables: list[str]) -> dict[str, int]:
    """Sum of `version` per table: the row updates committed since the build."""
    return {t: int(query(conn, f"SELECT SUM(version) FROM {t}")[0][0]) for t in tables}


@dataclass
class Built:
    engine: Engine
    workload: BlocksWorkload
    report: LoadReport
    base: Path
    said: list[str]
    checksum: str  # right after the build
    versions: dict[str, int]  # right after the build


def build(engine: Engine, said: list[str]) -> tuple[BlocksWorkload, LoadReport]:
    workload = BlocksWorkload(ROWS, seed=SEED, options=OPTIONS)
    workload.expect_users(USERS)
    return workload, workload.create(engine, said.append)


@pytest.fixture(scope="module", params=engine_targets(BlocksWorkload.dialects))
def built(request: pytest.FixtureRequest) -> Iterator[Built]:
    cls = usable(request.param.engine, request.param.dsn)
    base = Path(tempfile.mkdtemp(prefix="dbstor-blocks-"))
    base.chmod(0o711)  # the server's account must reach its directories
    data = [base / "d1", base / "d2"]
    for d in data:
        d.mkdir()
    engine = cls(engine_settings(request.param, {"data": data}, buffer_bytes=16 << 20))
    try:
        engine.start()
        said: list[str] = []
        workload, report = build(engine, said)
        conn = engine.connect()
        try:
            first = checksum(conn, workload.tables)
            start = versions(conn, workload.tables)
        finally:
            conn.close()
        yield Built(engine, workload, report, base, said, first, start)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)


def _blocks_per_row(engine: Engine, conn: Any, table: str, index: int) -> float:
    """8K blocks of table per row, from the engine's own accounting of the table."""
    if speaks(engine, "postgres"):
        size = query(conn, "SELECT pg_relation_size(%s)", (table,))[0][0]
    elif speaks(engine, "mysql"):  # leaf pages in use of the clustered index
        leaves = query(
            conn,
            "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = DATABASE()"
            " AND table_name = %s AND index_name = 'PRIMARY' AND stat_name = 'n_leaf_pages'",
            (table,),
        )[0][0]
        size = leaves * query(conn, "SELECT @@innodb_page_size")[0][0]
    else:
        where = engine.placement(index)[0].rstrip(".") or "main"
        leaves = query(
            conn,
            "SELECT COUNT(*) FROM dbstat(?) WHERE name = ? AND pagetype = 'leaf'",
            (where, table),
        )[0][0]
        assert leaves == ROWS, "SQLite: one leaf page per row"
        size = query(conn, "SELECT SUM(pgsize) FROM dbstat(?) WHERE name = ?", (where, table))[0][0]
    return size / ROWS / 8192


def test_build_one_row_per_block(built):
    engine, workload, report = built.engine, built.workload, built.report
    tables = ["user_1", "user_2", "user_3"]
    assert workload.tables == tables
    assert report.tables == dict.fromkeys(tables, ROWS) and report.rows == USERS * ROWS
    assert report.bytes == USERS * ROWS * (8 + workload.layout["pad_bytes"])
    assert re.search(r"[\d,]+ rows/s, [\d.,]+ MB/s", built.said[-1]), built.said
    assert built.versions == dict.fromkeys(tables, 0)
    conn = engine.connect()
    try:
        for i, table in enumerate(tables):
            assert query(conn, f"SELECT COUNT(*), MIN(id), MAX(id) FROM {table}")[0] == (
                ROWS,
                1,
                ROWS,
            )
            blocks = _blocks_per_row(engine, conn, table, i)
            assert 0.99 <= blocks <= 1.02, (table, blocks)
        # what create() reported agrees (MariaDB's DATA_LENGTH counts reserved pages)
        assert 0.99 <= workload.table_bytes / report.rows / 8192 <= 1.15
        # the data is the seed's: the pad of row id is SHA-512 of "seed:id", repeated
        width = workload.layout["pad_bytes"]
        for row_id, pad in query(conn, "SELECT id, pad FROM user_2 WHERE id IN (1, 777, 2000)"):
            assert pad == schema.pad_text(SEED, row_id, width)
    finally:
        conn.close()


def test_keys_and_placement_over_two_paths(built):
    engine = built.engine
    if not engine.managed:
        not_applicable("an external server keeps its files where it does: dbstor places none")
    conn = engine.connect()
    try:
        if speaks(engine, "postgres"):
            spaces = dict(
                query(
                    conn,
                    "SELECT tablename, tablespace FROM pg_tables WHERE tablename LIKE 'user%%'",
                )
            )
            assert spaces == {"user_1": None, "user_2": "dbstor_d1", "user_3": None}
            keys = dict(
                query(conn, "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'user_2'")
            )
            assert list(keys) == ["user_2_pkey"] and "(id)" in keys["user_2_pkey"]
            index_space = query(
                conn, "SELECT tablespace FROM pg_indexes WHERE indexname = 'user_2_pkey'"
            )
            assert index_space == [("dbstor_d1",)]
        elif speaks(engine, "mysql"):
            keys = query(
                conn,
                "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS"
                " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'user%%' ORDER BY 1",
            )
            assert keys == [(f"user_{k}", "PRIMARY", "id") for k in (1, 2, 3)]
            assert [p.name for p in (built.base / "d2").rglob("user_*.ibd")] == ["user_2.ibd"]
        else:
            assert query(conn, "SELECT name FROM d1.sqlite_master WHERE name LIKE 'user%'") == [
                ("user_2",)
            ]
            columns = query(conn, "SELECT name, type, pk FROM pragma_table_info('user_1')")
            assert columns[0] == ("id", "INTEGER", 1)  # the rowid: the table is its key index
    finally:
        conn.close()


def test_three_users_read_and_update_their_own_tables(built):
    engine, workload = built.engine, built.workload
    conn = engine.connect()
    try:
        before = versions(conn, workload.tables)
        run = VirtualUsers([Instance(engine, workload)], USERS, seed=11).run(0, DRIVE_S)
        after = versions(conn, workload.tables)
    finally:
        conn.close()
    assert run.fatal is None and run.errors == 0, run.messages
    reads, updates = run.per_type["read"].count, run.per_type["update"].count
    assert reads + updates == run.commits >= 100
    # every update changed `batch` rows and committed; every user updated its own table
    assert sum(after.values()) - sum(before.values()) == updates * OPTIONS["batch"]
    assert all(after[t] > before[t] for t in workload.tables), (before, after)
    share, p = updates / run.commits, OPTIONS["update_pct"] / 100
    assert abs(share - p) <= 5 * math.sqrt(p * (1 - p) / run.commits) + 0.01, (reads, updates)


def _child(engine: Engine, workload: BlocksWorkload, out: Any) -> None:
    conn = engine.connect()
    try:
        session = workload.session(engine, conn, 1)
        session.run("read")
        session.run("update")
        session.close()
        out.put(dict(session.done))
    finally:
        conn.close()


def test_session_made_in_a_forked_child(built):
    engine, workload = built.engine, built.workload
    pickle.dumps(workload)  # holds no connection, lock or thread after create()
    single = BlocksWorkload(ROWS, seed=SEED, options={"batch": 1})  # one row a call
    single.expect_users(USERS)
    conn = engine.connect()
    try:
        before = versions(conn, ["user_2"])["user_2"]
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        child = ctx.Process(target=_child, args=(engine, single, out))
        child.start()
        child.join(60)
        assert child.exitcode == 0
        assert out.get(timeout=10) == {"read": 1, "update": 1}
        assert versions(conn, ["user_2"])["user_2"] == before + 1
    finally:
        conn.close()


def test_rebuild_from_the_same_seed_gives_the_same_data(built):
    engine = built.engine
    conn = engine.connect()
    try:
        for table in built.workload.tables:
            conn.cursor().execute(f"DROP TABLE {table}")
        conn.commit()
        workload, report = build(engine, [])
        assert report.rows == USERS * ROWS
        assert checksum(conn, workload.tables) == built.checksum
    finally:
        conn.close()


def test_a_lost_connection_is_fatal(built):
    engine = built.engine
    if speaks(engine, "sqlite"):
        not_applicable("SQLite is embedded: no connection to lose")
    conn, admin = engine.connect(), engine.connect()
    try:
        session = built.workload.session(engine, conn, 0)
        session.run("read")
        if speaks(engine, "postgres"):
            query(admin, "SELECT pg_terminate_backend(%s)", (conn.pgconn.backend_pid,))
        else:
            admin.cursor().execute(f"KILL CONNECTION {conn.thread_id()}")
        with pytest.raises(Exception) as info:
            for _ in range(3):  # a killed MariaDB connection may answer once more
                session.run("read")
        assert engine.classify(info.value) == ErrorKind.FATAL, repr(info.value)
    finally:
        for c in (conn, admin):
            with contextlib.suppress(Exception):
                c.close()


def test_missing_rows_are_reported_not_hidden(tmp_path):
    engine = SQLiteEngine(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    try:
        workload = BlocksWorkload(4, seed=1, options={"batch": 4, "update_pct": 50})
        workload.create(engine, lambda m: None)
        conn = engine.connect()
        try:
            session = workload.session(engine, conn, 0)
            session.run("read")
            session.run("update")
            conn.execute("DELETE FROM user_1 WHERE id = 3")
            with pytest.raises(RuntimeError, match="found 3 of 4 rows in user_1"):
                session.run("read")
            with pytest.raises(ValueError, match="unknown blocks transaction"):
                session.run("scan")
        finally:
            conn.close()
    finally:
        engine.stop()


def _table_stats(engine: Engine, table: str) -> tuple[int, int, int]:
    """(index scans, rows fetched by them, rows updated) of one table, as PostgreSQL
    counts them, from a fresh statistics snapshot."""
    conn = engine.connect()
    try:
        query(conn, "SELECT pg_stat_clear_snapshot()")
        row = query(
            conn,
            "SELECT idx_scan, idx_tup_fetch, n_tup_upd FROM pg_stat_user_tables WHERE relname = %s",
            (table,),
        )[0]
        return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)
    finally:
        conn.close()


def _stats_after(engine: Engine, table: str, scans: int) -> tuple[int, int, int]:
    """The table's statistics once the closed sessions' backends have reported them."""
    deadline = time.monotonic() + 15
    stats = _table_stats(engine, table)
    while stats[0] < scans and time.monotonic() < deadline:
        time.sleep(0.2)
        stats = _table_stats(engine, table)
    return stats


def test_server_loop_visits_the_blocks_it_says(built):
    """PostgreSQL's own counters: a read call of batch b makes b index lookups, each
    fetching one row; an update call of batch b updates b rows in one commit."""
    engine = built.engine
    if not speaks(engine, "postgres"):
        not_applicable("PostgreSQL's per-table counters")
    batch, reads, updates, table = 5, 40, 12, "user_3"
    workload = BlocksWorkload(ROWS, seed=SEED, options={"batch": batch, "server_loop": True})
    workload.expect_users(USERS)
    conn = engine.connect()
    before_version = versions(conn, [table])[table]
    conn.close()
    before = _table_stats(engine, table)
    conn = engine.connect()
    try:
        session = workload.session(engine, conn, 2)
        assert session.table == table and session.server_loop
        for _ in range(reads):
            session.run("read")
        for _ in range(updates):
            session.run("update")
        session.close()
    finally:
        conn.close()  # the backend reports its counters as it exits
    visits = (reads + updates) * batch
    after = _stats_after(engine, table, before[0] + visits)
    assert after[0] - before[0] == visits, (before, after)  # one index lookup a visit
    assert after[1] - before[1] == visits  # each found its row
    assert after[2] - before[2] == updates * batch  # rows updated
    conn = engine.connect()
    try:
        assert versions(conn, [table])[table] - before_version == updates * batch
    finally:
        conn.close()


@pytest.mark.parametrize("update_pct", [0, 100])
def test_server_loop_honours_update_pct(built, update_pct):
    engine = built.engine
    if speaks(engine, "sqlite"):
        not_applicable("SQLite runs client statements")
    workload = BlocksWorkload(
        ROWS, seed=SEED, options={"batch": 3, "update_pct": update_pct, "server_loop": True}
    )
    workload.expect_users(USERS)
    conn = engine.connect()
    try:
        before = versions(conn, workload.tables)
        run = VirtualUsers([Instance(engine, workload)], USERS, seed=3).run(0, 1.5)
        after = versions(conn, workload.tables)
    finally:
        conn.close()
    assert run.fatal is None and run.errors == 0, run.messages
    assert set(run.per_type) <= {"read", "update"} and run.commits > 10
    updates = run.per_type["update"].count if "update" in run.per_type else 0
    assert updates == (run.commits if update_pct == 100 else 0)
    assert sum(after.values()) - sum(before.values()) == updates * 3


def test_client_statements_when_the_server_loop_is_off(built):
    """server_loop = false: one client statement per call (id IN (...)) on every engine."""
    engine = built.engine
    workload = BlocksWorkload(
        ROWS, seed=SEED, options={"batch": 2, "update_pct": 50, "server_loop": False}
    )
    workload.expect_users(USERS)
    assert workload.describe()["options"]["server_loop"] is False
    conn = engine.connect()
    try:
        before = versions(conn, workload.tables)
        run = VirtualUsers([Instance(engine, workload)], USERS, seed=4).run(0, 1.5)
        after = versions(conn, workload.tables)
    finally:
        conn.close()
    assert run.fatal is None and run.errors == 0, run.messages
    updates = run.per_type["update"].count
    assert updates > 0 and sum(after.values()) - sum(before.values()) == updates * 2


def _row_versions(conn: Any, table: str) -> dict[int, int]:
    return dict(query(conn, f"SELECT id, version FROM {table}"))


def test_server_loop_keys_repeat_from_the_same_seed(built):
    """The server draws the keys from a generator seeded from the session's seed: the same
    workload seed updates the same rows, in any engine that runs the loop."""
    engine = built.engine
    if speaks(engine, "sqlite"):
        not_applicable("SQLite runs client statements")
    changes = []
    for _ in range(2):
        workload = BlocksWorkload(ROWS, seed=SEED + 1, options={"batch": 5, "server_loop": True})
        workload.expect_users(USERS)
        conn = engine.connect()
        try:
            before = _row_versions(conn, "user_1")
            session = workload.session(engine, conn, 0)
            for _ in range(3):
                session.run("update")
            session.close()
            after = _row_versions(conn, "user_1")
        finally:
            conn.close()
        changes.append({k: after[k] - before[k] for k in after if after[k] != before[k]})
    assert sum(changes[0].values()) == 15 and changes[0] == changes[1]
