"""The orders schema's DDL and statements on every dialect; statements prepare on SQLite."""

from __future__ import annotations

import sqlite3

import pytest

from dbstor.dialects.mysql import orders as mysql_procedures
from dbstor.dialects.postgres import orders as plpgsql
from dbstor.workloads import tables
from dbstor.workloads.orders import procedures
from dbstor.workloads.orders.schema import TABLE, TABLES
from dbstor.workloads.orders.sql import STATEMENTS, render, statement

DIALECTS = ("sqlite", "postgres", "mysql")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_statements_render_per_dialect(dialect):
    for name, text in STATEMENTS.items():
        sql = statement(dialect, name, 3, 7)
        assert "{" not in sql and "}" not in sql, name
        marks = text.count("?") + (3 if "{in}" in text else 0)
        assert sql.count("?" if dialect == "sqlite" else "%s") == marks, name
        assert ("FOR UPDATE" in sql) == ("{for_update}" in text and dialect != "sqlite"), name
    assert "s_dist_07" in statement(dialect, "no_stock", 2, 7)
    with pytest.raises(ValueError, match="dialect"):
        render("SELECT 1", "db2")


def test_history_has_no_key_anywhere_and_keys_are_tpc_c():
    history = TABLE["history"]
    assert history.key == ()
    assert "PRIMARY KEY" not in tables.create_table(history, "mysql")
    assert "WITHOUT ROWID" not in tables.create_table(history, "sqlite")
    assert tables.add_primary_key(history, "postgres") is None
    assert TABLE["order_line"].key == ("ol_w_id", "ol_d_id", "ol_o_id", "ol_number")
    assert TABLE["stock"].key == ("s_w_id", "s_i_id")
    assert TABLE["customer"].indexes == (
        ("customer_name", ("c_w_id", "c_d_id", "c_last", "c_first")),
    )
    item = tables.create_table(TABLE["item"], "sqlite")
    assert "i_id INTEGER PRIMARY KEY" in item and "WITHOUT ROWID" not in item
    assert tables.create_table(TABLE["stock"], "sqlite").endswith("WITHOUT ROWID")
    pg = tables.create_table(TABLE["orders"], "postgres", "", " TABLESPACE dbstor_d1")
    assert pg.endswith("TABLESPACE dbstor_d1") and "o_carrier_id SMALLINT," in pg
    assert "ENGINE=InnoDB" in tables.create_table(TABLE["orders"], "mysql")


def test_every_statement_prepares_on_sqlite():
    conn = sqlite3.connect(":memory:")
    for table in TABLES:
        conn.execute(tables.create_table(table, "sqlite"))
        for index in tables.create_indexes(table, "sqlite"):
            conn.execute(index)
    for name in STATEMENTS:
        sql = statement("sqlite", name, 3, 4)
        conn.execute("EXPLAIN " + sql, (1,) * sql.count("?"))
    plan = " ".join(
        str(row)
        for row in conn.execute(
            "EXPLAIN QUERY PLAN " + statement("sqlite", "by_name"), (1, 1, "BARBARBAR")
        )
    )
    assert "customer_name" in plan  # the 60% by-name lookups use TPC-C's index
    conn.close()


def test_procedures_exist_for_server_dialects_only():
    assert procedures.ddl("sqlite") == []
    assert procedures.ddl("postgres") == plpgsql.DDL
    assert procedures.ddl("mysql") == mysql_procedures.DDL
    for calls in (plpgsql.CALLS, mysql_procedures.CALLS):
        assert set(calls) == {"New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"}
    # New-Order a procedure (it rolls back), the rest functions called by SELECT (cheaper
    # for the server than a CALL)
    assert [d.strip().split("(")[0] for d in plpgsql.DDL] == [
        "CREATE OR REPLACE PROCEDURE orders_new_order",
        *(
            f"CREATE OR REPLACE FUNCTION orders_{name}"
            for name in ("payment", "order_status", "delivery", "stock_level")
        ),
    ]
    assert plpgsql.CALLS["New-Order"].startswith("CALL orders_new_order(")
    assert all(plpgsql.CALLS[t].startswith("SELECT ") for t in plpgsql.CALLS if t != "New-Order")
    created = [d for d in mysql_procedures.DDL if d.strip().startswith("CREATE PROCEDURE")]
    assert len(created) == 5
    assert all("START TRANSACTION" in d and "COMMIT" in d for d in created)
    with pytest.raises(ValueError, match="no stored procedures"):
        procedures.Procedures(sqlite3.connect(":memory:"), "sqlite")
