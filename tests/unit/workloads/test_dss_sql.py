import os
import re
import signal
import sqlite3
import threading
import time
from decimal import Decimal

import pytest

from dbstor.workloads.dss import schema
from dbstor.workloads.dss.execute import answer, render, run_statements, statements
from dbstor.workloads.dss.params import parameters

ALL = range(1, 23)


def rendered(dialect, stream=0, seed=None):
    return {n: render(n, parameters(n, 1, seed, stream), dialect, stream) for n in ALL}


def test_sqlite_sql_has_no_other_dialects_date_or_pattern_syntax():
    for n, sql in rendered("sqlite", seed=5).items():
        lowered = sql.lower()
        for foreign in ("interval", "extract(", "date '", "substring(", " like "):
            assert foreign not in lowered, (n, foreign)
    sql = rendered("sqlite")
    assert "date('1998-12-01', '-90 days')" in sql[1]
    assert "p_type glob '*BRASS'" in sql[2]
    assert "cast(strftime('%Y', l_shipdate) as integer)" in sql[7]
    assert "o_comment not glob '*special*requests*'" in sql[13]
    assert "substr(c_phone, 1, 2)" in sql[22]
    assert "as c_count" in sql[13] and "c_orders (" not in sql[13]


def test_duckdb_and_postgres_share_the_specifications_forms():
    duck, pg = rendered("duckdb", seed=3, stream=2), rendered("postgres", seed=3, stream=2)
    assert duck == pg
    sql = rendered("postgres")
    assert "l_shipdate <= date '1998-12-01' - interval '90' day" in sql[1]
    assert "o_orderdate < date '1993-07-01' + interval '3' month" in sql[4]
    assert "extract(year from o_orderdate)" in sql[9]
    assert "as c_orders (c_custkey, c_count)" in sql[13]
    assert (
        "substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', '17')" in sql[22]
    )


def test_q6_bounds_are_exact_decimals():
    for dialect in ("duckdb", "postgres", "sqlite"):
        assert "l_discount between 0.05 and 0.07" in rendered(dialect)[6]
    for seed in range(20):
        p = parameters(6, 1, seed, 1)
        low, high = re.search(r"between (\S+) and (\S+)", render(6, p, "sqlite")).groups()
        assert Decimal(low) == p["discount"] - Decimal("0.01")
        assert Decimal(high) == p["discount"] + Decimal("0.01")
        assert len(low) == len(high) == 4  # two decimals, no binary noise


def test_limits_and_the_stream_numbered_q15_view():
    sql = rendered("duckdb", stream=4)
    for n, limit in ((2, 100), (3, 10), (10, 20), (18, 100), (21, 100)):
        assert sql[n].rstrip().endswith(f"limit {limit}"), n
    parts = statements(sql[15])
    assert len(parts) == 3
    assert parts[0].startswith("create view revenue4 (supplier_no, total_revenue)")
    assert "from supplier, revenue4" in parts[1] and parts[2] == "drop view revenue4"
    assert statements(rendered("sqlite", stream=4)[15])[0].startswith("create temp view revenue4")


def _sqlite_schema():
    conn = sqlite3.connect(":memory:")
    for table in schema.TABLES:
        conn.execute(schema.create_table(table, "sqlite", 1, key=True))
    return conn


def test_every_query_compiles_on_sqlite_and_duckdb():
    duckdb = pytest.importorskip("duckdb")
    lite = _sqlite_schema()
    duck = duckdb.connect()
    for table in schema.TABLES:
        duck.execute(schema.create_table(table, "duckdb", 1))
    for conn, dialect, explain in (
        (lite, "sqlite", "EXPLAIN QUERY PLAN "),
        (duck, "duckdb", "EXPLAIN "),
    ):
        for sql in rendered(dialect, seed=9, stream=1).values():
            for statement in statements(sql):
                prefix = explain if statement.startswith("select") else ""
                conn.execute(prefix + statement)  # raises on a syntax or binding error
    duck.close()


def test_answer_runs_q15_and_drops_its_view_even_when_the_query_fails():
    conn = _sqlite_schema()
    conn.execute("INSERT INTO supplier VALUES (1, 'Supplier#1', 'addr', 0, '10-1', 1.0, 'c')")
    conn.execute(
        "INSERT INTO lineitem VALUES (1, 1, 1, 1, 1, 100.0, 0.1, 0.0, 'N', 'O', '1996-01-15', "
        "'1996-01-10', '1996-01-20', 'NONE', 'AIR', 'x')"
    )
    conn.commit()
    sql = render(15, parameters(15, 1, None, 0), "sqlite", 2)
    rows = answer(conn, sql, "sqlite")
    assert rows == [(1, "Supplier#1", "addr", "10-1", 90.0)]
    assert run_statements(conn, sql, "sqlite") == 1
    conn.execute("DROP TABLE supplier")
    with pytest.raises(sqlite3.OperationalError, match="supplier"):
        answer(conn, sql, "sqlite")
    views = conn.execute(
        "SELECT name FROM sqlite_temp_master WHERE type = 'view' "
        "UNION ALL SELECT name FROM sqlite_master WHERE type = 'view'"
    ).fetchall()
    assert views == []


def test_schema_types_per_dialect():
    lineitem = schema.TABLE["lineitem"]
    pg = schema.create_table(lineitem, "postgres", 1)
    assert "l_orderkey BIGINT NOT NULL" in pg and "l_partkey INTEGER NOT NULL" in pg
    assert "l_quantity DECIMAL(15,2)" in pg and "l_shipmode CHAR(10)" in pg
    assert "l_comment VARCHAR(44)" in pg and "l_shipdate DATE" in pg
    lite = schema.create_table(lineitem, "sqlite", 1, "d1.", "", key=True)
    assert lite.startswith("CREATE TABLE d1.lineitem")
    assert "l_quantity REAL" in lite and "l_shipdate TEXT" in lite
    assert "PRIMARY KEY (l_orderkey, l_linenumber)" in lite
    big = schema.create_table(schema.TABLE["part"], "duckdb", 20000)
    assert "p_partkey BIGINT" in big and "p_brand VARCHAR NOT NULL" in big


def test_every_foreign_key_has_an_index_leading_with_its_columns():
    for table in schema.TABLES:
        indexed = [table.key, *table.indexed_foreign_keys()]
        for fk in table.foreign:
            assert any(ix[: len(fk)] == fk for ix in indexed), (table.name, fk)
    assert schema.TABLE["lineitem"].indexed_foreign_keys() == [("l_partkey", "l_suppkey")]
    assert schema.create_foreign_key_indexes(
        schema.TABLE["orders"], "postgres", "", " TABLESPACE dbstor_d1"
    ) == ["CREATE INDEX orders_custkey_idx ON orders (o_custkey) TABLESPACE dbstor_d1"]
    assert schema.create_foreign_key_indexes(schema.TABLE["orders"], "sqlite", "d1.") == [
        "CREATE INDEX d1.orders_custkey_idx ON orders (o_custkey)"
    ]
    assert schema.add_primary_key(schema.TABLE["orders"], "postgres", "", " TABLESPACE x") == (
        "ALTER TABLE orders ADD CONSTRAINT orders_pkey PRIMARY KEY (o_orderkey) "
        "USING INDEX TABLESPACE x"
    )


def test_expected_rows_follow_the_scale_factor():
    rows = schema.expected_rows(0.01)
    assert rows["supplier"] == 100 and rows["orders"] == 15_000 and rows["nation"] == 25
    assert schema.expected_rows(0.57)["supplier"] == 5_700  # no binary rounding down
    assert rows["lineitem"] is None


def test_ctrl_c_during_a_duckdb_query_on_the_main_thread_stays_a_keyboard_interrupt():
    duckdb = pytest.importorskip("duckdb")
    conn = duckdb.connect()
    heavy = "select sum(x * x), count(distinct x % 1000003) from range(20000000) t(x)"
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    deadline = time.monotonic() + 20
    try:
        with pytest.raises(KeyboardInterrupt):  # DuckDB alone raises RuntimeError here
            while time.monotonic() < deadline:
                answer(conn, heavy, "duckdb")
    finally:
        timer.cancel()
        conn.close()
