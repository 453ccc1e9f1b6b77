"""dbstor sql: for every engine the registry knows and every workload, the script in the
engine's dialect where the dialect runs the workload (registry-driven, so a new engine or
dialect is covered without touching this file), one line and exit 2 where it does not."""

from __future__ import annotations

import re
import sqlite3

import pytest

from dbstor import cli
from dbstor.dialects import registry
from dbstor.engines.registry import ENGINES, engine_class
from dbstor.workloads.registry import WORKLOADS, workload_class

PAIRS = [(e, w) for e in ENGINES for w in WORKLOADS]


def sql(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["sql", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("engine", "workload"), PAIRS)
def test_every_engine_and_workload(capsys, engine: str, workload: str) -> None:
    dialect = engine_class(engine).dialect
    code, out, err = sql(capsys, "--engine", engine, "--workload", workload)
    if dialect not in registry.running(workload):
        assert code == 2 and out == ""
        assert err.startswith("dbstor: error: ") and len(err.splitlines()) == 1
        assert f"no SQL for {engine_class(engine).title} ({dialect})" in err
        return
    assert code == 0, err
    assert out.startswith(f"-- dbstor sql: {workload} at scale ")
    assert "CREATE TABLE" in out
    sections = re.findall(r"^-- == (.+?)(?: \(.*\))? ==$", out, re.M)
    expected = [
        s.title
        for s in workload_class(workload)(workload_class(workload).default_scale).script(dialect)
    ]
    assert sections == expected
    # every transaction type or query the workload runs is shown by name
    names = re.findall(r"^-- (\S.*)$", out, re.M)
    if workload == "dss":
        assert sum(n.startswith("Q") for n in names) == 6  # TR-3476's six by default
    elif "transactions" in sections:  # CALLs (or blocks' statements) by transaction
        for txn in workload_class(workload).mix or ("read", "update"):
            assert txn in names, (txn, names)


def test_scale_changes_what_is_printed(capsys) -> None:
    """TPC-H keys widen to BIGINT from scale factor 10,000: --scale reaches it."""
    _, small, _ = sql(capsys, "--engine", "postgres", "--workload", "dss", "--scale", "1")
    _, big, _ = sql(capsys, "--engine", "postgres", "--workload", "dss", "--scale", "10000")
    assert "c_custkey INTEGER" in small and "c_custkey BIGINT" in big


def test_mysql_routines_come_between_delimiters(capsys) -> None:
    _, out, _ = sql(capsys, "--engine", "mariadb", "--workload", "orders")
    assert out.count("DELIMITER //") == out.count("DELIMITER ;") > 0
    assert "CALL orders_new_order(" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--engine", "oracel", "--workload", "orders"], "unknown engine"),
        (["--engine", "postgres", "--workload", "order"], "did you mean 'orders'"),
        (["--engine", "postgres", "--workload", "orders", "--scale", "0"], "--scale"),
    ],
)
def test_bad_input_is_one_line(capsys, argv: list[str], needle: str) -> None:
    code, out, err = sql(capsys, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and needle in err


def runnable(script: str, placeholder: str) -> str:
    """The sections with no placeholders: schema, statistics, routines, dss's queries."""
    chunks = re.split(r"^(?=-- == )", script, flags=re.M)
    return "".join(c for c in chunks if placeholder not in c)


@pytest.mark.parametrize("workload", [w for w in WORKLOADS if "sqlite" in registry.running(w)])
def test_sqlite_loads_the_printed_script(capsys, workload: str) -> None:
    _, out, _ = sql(capsys, "--engine", "sqlite", "--workload", workload)
    conn = sqlite3.connect(":memory:")
    conn.executescript(runnable(out, "?"))
    tables = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()
    assert tables[0] == out.count("CREATE TABLE") > 0


def test_duckdb_loads_the_printed_script(capsys) -> None:
    duckdb = pytest.importorskip("duckdb")
    _, out, _ = sql(capsys, "--engine", "duckdb", "--workload", "dss")
    conn = duckdb.connect(":memory:")
    conn.execute(runnable(out, "?"))  # the tables, then the six queries on them, empty
    tables = conn.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    assert tables is not None and tables[0] == out.count("CREATE TABLE") == 8
