"""What `dbstor sql` prints pastes into the engine's own client: no driver placeholders
(%s, ?, :b1) in the orders transactions, calls with named parameters and sample values.
SQLite's and DuckDB's scripts run in the real sqlite3 and duckdb modules; SQL Server and
Oracle cannot run here, so their calls are parsed with sqlglot's tsql and oracle dialects
and their argument names checked against the procedures' own CREATE text in the same
script (sqlglot does not parse PL/SQL blocks: the call inside each block is parsed).
psql and the mariadb client run theirs in tests/integration/test_sql_script_clients.py."""

from __future__ import annotations

import re
import sqlite3

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from dbstor import cli
from dbstor.workloads.orders.schema import TABLE, TABLES
from dbstor.workloads.sample_values import column_types, sample_value

CALLS = "-- == transactions"
TRANSACTIONS = ("New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level")


def printed(capsys: pytest.CaptureFixture[str], engine: str, workload: str = "orders") -> str:
    assert cli.main(["sql", "--engine", engine, "--workload", workload]) == 0
    return capsys.readouterr().out


def calls_of(text: str) -> str:
    """The transactions section without its heading line."""
    section = text.split(CALLS, 1)[1].split("\n", 1)[1]
    assert not re.search(r"%s|\?|:b\d", section), section
    return section


def signature(text: str, procedure: str) -> str:
    """A CREATE PROCEDURE's text from its name to the start of its body."""
    start = re.search(rf"PROCEDURE {procedure}\b", text)
    assert start, procedure
    return text[start.end() : re.search(r"\n\s*AS\b", text[start.end() :]).start() + start.end()]


def test_sqlite_statements_run_with_their_sample_values(capsys) -> None:
    text = printed(capsys, "sqlite")
    statements = calls_of(text)
    db = sqlite3.connect(":memory:")
    db.executescript(text.split(CALLS)[0])
    types = column_types(TABLES)
    for name, copies in (("warehouse", 1), ("district", 1), ("customer", 1), ("item", 3)):
        cols = TABLE[name].column_names
        for n in range(1, copies + 1):
            values = [str(n) if c == "i_id" else sample_value(c, types) for c in cols]
            db.execute(f"INSERT INTO {name} ({', '.join(cols)}) VALUES ({', '.join(values)})")
    db.executescript(statements)
    assert db.execute("SELECT count(*) FROM orders").fetchone()[0] == 1
    # the IN list names three different items, and the sample last name is a TPC-C name
    assert "i_id IN (1, 2, 3)" in statements and "c_last = 'BARBARBAR'" in statements


def test_duckdb_runs_its_script(capsys) -> None:
    """DuckDB runs the dss workload (orders has no DuckDB SQL): its whole script."""
    duckdb.connect().execute(printed(capsys, "duckdb", "dss"))


def test_tsql_calls_parse_and_name_the_procedures_parameters(capsys) -> None:
    text = printed(capsys, "sqlserver")
    batches = [b.strip() for b in calls_of(text).split("\nGO") if b.strip()]
    assert len(batches) == len(TRANSACTIONS)
    for batch in batches:
        call = sqlglot.parse_one(batch, read="tsql", error_level=sqlglot.ErrorLevel.RAISE)
        assert isinstance(call, exp.Execute), batch
        named = [arg.this.name for arg in call.expressions]
        assert all(isinstance(arg, exp.EQ) for arg in call.expressions)
        own = re.findall(r"@(p_\w+)", signature(text, call.this.name))
        assert named == own, (named, own)


def test_oracle_blocks_call_by_name_with_the_out_argument_declared(capsys) -> None:
    text = printed(capsys, "oracle")
    blocks = [b.strip() for b in calls_of(text).split("\n/") if b.strip()]
    assert len(blocks) == len(TRANSACTIONS)
    for block in blocks:
        shape = re.search(r"DECLARE (v_\w+) NUMBER; BEGIN (\w+\(.*\)); END;$", block)
        assert shape, block
        call = sqlglot.parse_one(
            shape.group(2), read="oracle", error_level=sqlglot.ErrorLevel.RAISE
        )
        assert all(isinstance(arg, exp.Kwarg) for arg in call.expressions), block
        named = [arg.this.name for arg in call.expressions]
        own = re.findall(r"\b(p_\w+)\s+(?:OUT\s+)?\w+", signature(text, call.name))
        assert named == own, (named, own)
        assert call.expressions[-1].expression.name == shape.group(1)  # OUT into v_


def statements_of(text: str) -> list[str]:
    """The brokerage transactions' statements, as the script ends each (GO or ;)."""
    body = "\n".join(line for line in calls_of(text).splitlines() if not line.startswith("--"))
    return [s.strip() for s in re.split(r";\n|\nGO\n?", body) if s.strip().strip(";")]


def test_brokerage_statements_run_in_sqlite_with_sample_values(capsys) -> None:
    text = printed(capsys, "sqlite", "brokerage")
    calls_of(text)
    sqlite3.connect(":memory:").executescript(text)


@pytest.mark.parametrize(("engine", "dialect"), [("sqlserver", "tsql"), ("oracle", "oracle")])
def test_brokerage_statements_parse_in_tsql_and_oracle(capsys, engine: str, dialect: str) -> None:
    statements = statements_of(printed(capsys, engine, "brokerage"))
    assert len(statements) > 20
    for statement in statements:
        tree = sqlglot.parse_one(
            statement.rstrip(";"), read=dialect, error_level=sqlglot.ErrorLevel.RAISE
        )
        assert not isinstance(tree, exp.Command), statement  # parsed, not passed through
