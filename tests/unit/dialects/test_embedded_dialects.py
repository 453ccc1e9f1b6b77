"""The embedded dialects' own text and behaviour, run on the real SQLite and DuckDB: the
query text means the same on both, transactions open as the dialect says, a file
database is new or refused."""

from __future__ import annotations

import sqlite3

import pytest

from dbstor.dialects import registry
from dbstor.errors import UserError
from dbstor.workloads.tables import table

EMBEDDED = ("sqlite", "duckdb")


def _one(conn, expression: str):
    return conn.execute(f"select {expression}").fetchone()[0]


@pytest.fixture(params=EMBEDDED)
def opened(request, tmp_path):
    d = registry.get(request.param)
    conn = d.connect_file(tmp_path / f"x.{d.name}")
    yield d, conn
    conn.close()


def test_query_text_gives_the_same_answers(opened):
    d, conn = opened
    assert str(_one(conn, d.shift("1995-03-15", -3, "month")))[:10] == "1994-12-15"
    assert str(_one(conn, d.shift("1995-12-31", 1, "day")))[:10] == "1996-01-01"
    assert _one(conn, d.year(d.date("1997-06-01"))) == 1997
    assert _one(conn, d.substring("'PROMO BRUSHED'", 1, 5)) == "PROMO"
    # case-sensitive everywhere: SQLite's LIKE is not, so its dialect writes GLOB
    assert _one(conn, d.like("'Brass'", "%brass")) in (0, False)
    assert _one(conn, d.like("'Brass'", "%ass")) in (1, True)
    assert _one(conn, d.like("'Brass'", "B%", negate=True)) in (0, False)


def test_derived_tables_and_views_are_named_as_the_dialect_wants(opened):
    d, conn = opened
    inner = f"select 1{d.counted_as('c_count')} union all select 2"
    rows = conn.execute(
        f"select sum(c_count) from ({inner}) {d.derived('t', ('c_count',))}"
    ).fetchone()
    assert rows[0] == 3
    conn.execute(f"{d.create_view('v')} as select 41 + 1 as answer")
    assert conn.execute("select answer from v").fetchone()[0] == 42


def test_a_file_database_is_new(tmp_path):
    with pytest.raises(ValueError, match="keeps no database in one file"):
        registry.get("postgres").connect_file(tmp_path / "x")
    conn = registry.get("sqlite").connect_file(tmp_path / "new.sqlite")
    assert conn.execute("select count(*) from sqlite_master").fetchone()[0] == 0
    conn.close()


def test_sqlite_opens_writers_immediately_and_readers_plainly(tmp_path):
    d = registry.get("sqlite")
    path = tmp_path / "t.sqlite"
    first, second = sqlite3.connect(path, timeout=0), sqlite3.connect(path, timeout=0)
    first.execute("create table t (a integer)")
    first.commit()
    d.begin(first, writer=True)  # BEGIN IMMEDIATE: the write lock now, not at the write
    assert first.in_transaction
    d.begin(second, writer=False)
    second.execute("select * from t").fetchall()  # readers still read
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        second.execute("insert into t values (1)")
    first.rollback(), second.rollback()
    d.autocommit(first)
    first.execute("insert into t values (2)")
    assert not first.in_transaction  # autocommit: committed as the statement ended
    assert second.execute("select a from t").fetchall() == [(2,)]
    first.close(), second.close()


def test_sqlite_ddl_builds_and_loads_on_the_real_engine(tmp_path):
    d = registry.get("sqlite")
    conn = sqlite3.connect(tmp_path / "k.sqlite")
    t = table(
        "stock", "s_i_id id, s_w_id int, s_qty small?", "s_w_id s_i_id", ("s_by_qty", "s_qty")
    )
    conn.execute(d.create_table(t))
    conn.execute(d.create_index("s_by_qty", t.name, ("s_qty",)))
    conn.execute(d.render("insert into stock values (?, ?, ?)"), (1, 2, None))
    assert d.add_primary_key(t) is None  # the key came with the table
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("insert into stock values (1, 2, 5)")
    for statement in d.analyze([t]):
        conn.execute(statement)
    conn.close()


def test_duckdb_without_its_package_is_one_clear_line(monkeypatch, tmp_path):
    import builtins

    real = builtins.__import__

    def no_duckdb(name, *args, **kwargs):
        if name == "duckdb":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_duckdb)
    with pytest.raises(UserError, match=r"pip install 'dbstor\[duckdb\]'"):
        registry.get("duckdb").connect_file(tmp_path / "x.duckdb")
