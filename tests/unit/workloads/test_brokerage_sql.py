"""Brokerage SQL: every statement renders right for every dialect, and the schema DDL and
every statement prepare against a real (in-memory) SQLite database."""

import re
import sqlite3

import pytest

from dbstor.dialects import registry
from dbstor.workloads.brokerage import schema
from dbstor.workloads.brokerage.sql import STATEMENTS, render, statement

DIALECTS = ("sqlite", "postgres", "mysql")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_placeholders_render_per_dialect(dialect):
    for name, neutral in STATEMENTS.items():
        n = 3 if "{in}" in neutral else 0
        sql = statement(dialect, name, n)
        expected = neutral.count("?") + n
        assert "{" not in sql and "}" not in sql, name
        if dialect == "sqlite":
            assert "%s" not in sql and sql.count("?") == expected, name
            assert "FOR UPDATE" not in sql, name
        else:
            assert "?" not in sql and sql.count("%s") == expected, name
            assert sql.count("%") == sql.count("%s"), name  # no stray '%' for the driver
            assert ("FOR UPDATE" in sql) == ("{for_update}" in neutral), name


def test_in_lists_take_the_count_asked():
    assert statement("sqlite", "tl_by_id", 4).count("?") == 4
    assert "IN (%s, %s)" in statement("postgres", "tl_by_id", 2)
    assert "IN (%s)" in statement("mysql", "mf_prices", 1)
    assert render("SELECT ? FROM t WHERE a IN ({in}){for_update}", "postgres", 2) == (
        "SELECT %s FROM t WHERE a IN (%s, %s) FOR UPDATE"
    )
    with pytest.raises(ValueError):
        render("SELECT 1", "db2")


def test_upsert_differs_only_where_it_must():
    assert "ON CONFLICT" in statement("sqlite", "summary_add")
    assert "ON CONFLICT" in statement("postgres", "summary_add")
    assert "ON DUPLICATE KEY UPDATE" in statement("mysql", "summary_add")
    assert "MERGE INTO holding_summary" in statement("oracle", "summary_add")
    assert "MERGE holding_summary" in statement("tsql", "summary_add")
    # only MySQL's, Oracle's and T-SQL's dialects write a brokerage statement their own way: that one
    assert set(registry.having("brokerage")) >= {"mysql", "oracle", "tsql"}
    for dialect in registry.having("brokerage"):  # PostgreSQL's part holds its wire only
        assert set(registry.get(dialect).part("brokerage").STATEMENTS) <= {"summary_add"}
    for dialect in ("mysql", "oracle", "tsql"):
        assert set(registry.get(dialect).part("brokerage").STATEMENTS) == {"summary_add"}
    assert statement("mysql", "summary_add").count("%s") == 3


@pytest.mark.parametrize("dialect", DIALECTS)
def test_ddl_renders(dialect):
    for table in schema.TABLES:
        create = schema.create_table(table, dialect, "", "")
        assert create.startswith(f"CREATE TABLE {table.name} (")
        for column in table.column_names:
            assert re.search(rf"\b{column}\b", create)
        key = schema.add_primary_key(table, dialect)
        if dialect == "postgres":
            assert "PRIMARY KEY" not in create and key and "PRIMARY KEY" in key
        else:
            assert "PRIMARY KEY" in create and key is None
        for index in schema.create_indexes(table, dialect):
            assert index.startswith("CREATE INDEX ")
    assert "VARCHAR(15) NOT NULL" in schema.create_table(schema.TABLE["trade"], dialect)
    assert "t_trade_price BIGINT," in schema.create_table(schema.TABLE["trade"], "postgres")


def test_placement_goes_where_each_dialect_wants_it():
    trade = schema.TABLE["trade"]
    assert schema.create_table(trade, "sqlite", "d1.", "").startswith("CREATE TABLE d1.trade (")
    assert schema.create_indexes(trade, "sqlite", "d1.")[0].startswith(
        "CREATE INDEX d1.trade_ca_dts ON trade ("
    )
    space = " TABLESPACE dbstor_d1"
    assert schema.create_table(trade, "postgres", "", space).endswith(space)
    assert schema.create_indexes(trade, "postgres", "", space)[0].endswith(space)
    assert schema.add_primary_key(trade, "postgres", space).endswith("USING INDEX" + space)
    where = " DATA DIRECTORY='/x/d1'"
    assert schema.create_table(trade, "mysql", "", where).endswith("ENGINE=InnoDB" + where)
    assert where not in schema.create_indexes(trade, "mysql", "", where)[0]
    assert "WITHOUT ROWID" in schema.create_table(schema.TABLE["daily_market"], "sqlite")
    assert "INTEGER PRIMARY KEY" in schema.create_table(trade, "sqlite")


def test_every_statement_prepares_on_sqlite():
    conn = sqlite3.connect(":memory:")
    conn.execute("ATTACH DATABASE ':memory:' AS d1")
    for i, table in enumerate(schema.TABLES):
        prefix = "d1." if i % 2 else ""
        conn.execute(schema.create_table(table, "sqlite", prefix))
        for index in schema.create_indexes(table, "sqlite", prefix):
            conn.execute(index)
    for sql in schema.analyze("sqlite"):
        conn.execute(sql)
    for name, neutral in STATEMENTS.items():
        sql = statement("sqlite", name, 2 if "{in}" in neutral else 0)
        conn.execute("EXPLAIN " + sql, [1] * sql.count("?"))  # parses and resolves every name
    conn.close()
