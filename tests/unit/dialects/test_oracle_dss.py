"""dss on the oracle dialect without a server: the 22 queries as rendered, and every
statement the loader sends (tables, keys, indexes, inserts, statistics), parsed by
sqlglot's Oracle grammar; the forms Oracle refuses and sqlglot lets pass (AS before a
table alias, a derived table's column list, BIGINT, an interval past its precision)
checked on the text itself. The other dialects' text is unchanged."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

import pytest
import sqlglot
from sqlglot import exp

from dbstor.dialects import registry
from dbstor.workloads.dss import execute, load_oracle
from dbstor.workloads.dss import schema as dss_schema
from dbstor.workloads.dss.workload import DssWorkload

from .test_oracle_dialect import RESERVED

ORACLE = registry.get("oracle")


def parsed(sql: str) -> exp.Expression:
    tree = sqlglot.parse_one(sql, read="oracle", error_level=sqlglot.ErrorLevel.RAISE)
    commands = [c.sql("oracle")[:80] for c in tree.walk() if isinstance(c, exp.Command)]
    assert not commands, f"sqlglot kept as text only: {commands}"
    return tree


def rendered(number: int, dialect: str = "oracle") -> str:
    workload = DssWorkload(1, 7, {"queries": "all"})
    return execute.render(number, workload.parameters(number), dialect, 1)


@pytest.mark.parametrize("number", range(1, 23))
def test_the_22_queries_parse_as_oracle_writes_them(number):
    sql = rendered(number)
    for statement in execute.statements(sql):
        assert not statement.rstrip().endswith(";")  # python-oracledb refuses a trailing ;
        tree = parsed(statement)
        for alias in tree.find_all(exp.TableAlias):
            assert not alias.columns, f"a derived table's column list: {alias.sql('oracle')}"
            assert not re.search(rf"\bas\s+{alias.name}\b", statement, re.I), alias.name
        for alias in tree.find_all(exp.Alias):
            assert alias.alias.upper() not in RESERVED, alias.alias
    lowered = sql.lower()
    assert " limit " not in lowered and "interval" not in lowered and "substring" not in lowered
    if number in (2, 3, 10, 18, 21):
        assert sql.rstrip().endswith("rows only") and "fetch first" in lowered


def test_derived_tables_are_named_without_as_and_without_a_column_list():
    assert ") shipping\n" in rendered(7) and ") as shipping" not in rendered(7)
    q13 = rendered(13)
    assert "count(o_orderkey) as c_count" in q13 and ") c_orders\n" in q13
    assert ") custsale\n" in rendered(22)


def test_dates_shift_by_day_arithmetic_and_add_months():
    assert ORACLE.shift("1998-12-01", -120, "day") == "(date '1998-12-01' - 120)"
    assert ORACLE.shift("1995-01-31", 3, "month") == "add_months(date '1995-01-31', 3)"
    assert ORACLE.shift("1994-01-01", 1, "year") == "add_months(date '1994-01-01', 12)"
    assert ORACLE.substring("c_phone", 1, 2) == "substr(c_phone, 1, 2)"
    assert "where l_shipdate <= (date '1998-12-01' - " in rendered(1)


def test_the_other_dialects_text_is_unchanged():
    """The hooks' defaults write what the queries wrote before them."""
    for dialect in ("postgres", "duckdb", "tsql"):
        q7 = rendered(7, dialect)
        assert ") as shipping\n" in q7
        assert ") as c_orders (c_custkey, c_count)" in rendered(13, dialect)
    assert ") as custsale\n" in rendered(22, "sqlite")
    assert "limit 100" in rendered(2, "postgres")


def test_the_loaders_tables_keys_indexes_and_statistics_parse():
    seen_types = set()
    for k, table in enumerate(dss_schema.TABLES):
        suffix = " TABLESPACE DBSTOR_0_D1" if k % 2 else ""
        create = dss_schema.create_table(table, "oracle", 1, "", suffix)
        tree = parsed(create)
        seen_types |= {t.sql("oracle") for t in tree.find_all(exp.DataType)}
        assert create.endswith(suffix) and "BIGINT" not in create
        for statement in load_oracle.key_statements(table, "oracle", "", suffix, "all"):
            assert statement.endswith(suffix)
            parsed(statement)
        assert load_oracle.key_statements(table, "oracle", "", suffix, "primary") == [
            dss_schema.add_primary_key(table, "oracle", "", suffix)
        ]
        assert isinstance(parsed(load_oracle.insert_sql(table)), exp.Insert)
    assert seen_types >= {"NUMBER(10)", "NUMBER(15, 2)", "DATE", "CHAR(25)", "VARCHAR2(152)"}
    big = dss_schema.create_table(dss_schema.TABLE["part"], "oracle", 10_000)
    assert "p_partkey NUMBER(19) NOT NULL" in big
    statistics = ORACLE.analyze([dss_schema.TABLE["lineitem"]])[0]
    assert "GATHER_TABLE_STATS" in statistics and "'LINEITEM'" in statistics


def test_the_loader_binds_typed_rows_in_batches():
    table = dss_schema.TABLE["orders"]
    row = ["1", "37", "O", "131251.81", "1996-01-02", "5-LOW", "Clerk#000000951", "0", "it's"]
    batches = list(load_oracle.typed_batches(table, [row] * 12_000))
    assert [len(b) for b in batches] == [5000, 5000, 2000]
    first = batches[0][0]
    assert first == (
        1,
        37,
        "O",
        Decimal("131251.81"),
        datetime.date(1996, 1, 2),
        "5-LOW",
        "Clerk#000000951",
        0,
        "it's",
    )
    marks = re.findall(r":b(\d+)", load_oracle.insert_sql(table))
    assert marks == [str(i) for i in range(1, len(table.columns) + 1)]
    with pytest.raises(ValueError):
        list(load_oracle.typed_batches(table, [["1; DROP TABLE x", *row[1:]]]))
    with pytest.raises(ValueError):
        list(load_oracle.typed_batches(table, [[*row[:4], "02/01/1996", *row[5:]]]))


def test_dss_runs_on_oracle_and_its_loader_is_found_by_the_dialects_name():
    assert "oracle" in DssWorkload.dialects
    from dbstor.workloads.dss.load import loader

    assert loader("oracle") is load_oracle
