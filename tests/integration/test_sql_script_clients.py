"""`dbstor sql` for orders and brokerage pasted into the engines' own clients: the whole printed
script (tables, keys, statistics, procedures, then each transaction's call with named
sample arguments) runs through psql against a managed PostgreSQL and through the mariadb
client against a managed MariaDB, stopping at the first error. A warehouse, district,
customer and three items and stock rows are inserted before the calls, so New-Order places
a real order. SQL Server and Oracle cannot run here: tests/unit/commands/test_sql_paste.py
parses their text with sqlglot instead."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pg_server
import pytest

from dbstor import cli
from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from dbstor.workloads.orders.schema import TABLE, TABLES
from dbstor.workloads.sample_values import column_types, sample_value

pytestmark = pytest.mark.integration
CALLS = "-- == transactions"
TYPES = column_types(TABLES)


def rows_for_the_calls() -> str:
    """INSERTs of the rows New-Order's sample call reads: ids 1, items and stock 1..3."""
    out = []
    for name, copies in (
        ("warehouse", 1),
        ("district", 1),
        ("customer", 1),
        ("item", 3),
        ("stock", 3),
    ):
        for n in range(1, copies + 1):
            cols = TABLE[name].column_names
            values = [str(n) if c in ("i_id", "s_i_id") else sample_value(c, TYPES) for c in cols]
            out.append(f"INSERT INTO {name} ({', '.join(cols)}) VALUES ({', '.join(values)});")
    return "\n".join(out)


def pasted(capsys: pytest.CaptureFixture[str], engine: str, workload: str) -> Path:
    """The printed script in a file the server's account can read; for orders with the
    rows put in before the calls and a count of orders after."""
    assert cli.main(["sql", "--engine", engine, "--workload", workload]) == 0
    text = capsys.readouterr().out
    assert "%s" not in text and "?" not in text and ":b1" not in text
    schema, calls = text.split(CALLS)
    rows = rows_for_the_calls() if workload == "orders" else ""
    count = "SELECT count(*) FROM orders;" if workload == "orders" else "SELECT 1;"
    folder = Path(tempfile.mkdtemp(prefix="dbstor-sqltext-"))
    folder.chmod(0o755)
    path = folder / "orders.sql"
    path.write_text(f"{schema}\n{rows}\n{CALLS}{calls}\n{count}\n")
    path.chmod(0o644)
    return path


@pytest.mark.parametrize("workload", ["orders", "brokerage"])
def test_psql_runs_the_printed_script(capsys, workload: str) -> None:
    path = pasted(capsys, "postgres", workload)
    try:
        with pg_server.running_server() as server:
            server.create_database("app")
            done = server.psql("-f", str(path), dbname="app", timeout=120)
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "1", done.stdout  # New-Order placed its order


@pytest.fixture(scope="module")
def mariadb() -> Iterator[MariaDBEngine]:
    if MariaDBEngine.find_server() is None or shutil.which("mariadb") is None:
        pytest.skip("MariaDB server or client not found (apt-get install mariadb-server)")
    base = Path(tempfile.mkdtemp(prefix="dbstor-sqltext-maria-"))
    base.chmod(0o711)
    paths = {}
    for role, sub in (("data", "d1"), ("log", "log"), ("temp", "temp")):
        (base / sub).mkdir()
        paths[role] = [base / sub]
    engine = MariaDBEngine(
        EngineSettings(paths=paths, buffer_bytes=8 << 20, memory_limit_bytes=512 << 20)
    )
    engine.start()
    try:
        yield engine
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("workload", ["orders", "brokerage"])
def test_mariadb_client_runs_the_printed_script(
    capsys, mariadb: MariaDBEngine, workload: str
) -> None:
    path = pasted(capsys, "mariadb", workload)
    socket = str(mariadb.sockdir / "mysqld.sock")
    client = ["mariadb", "--no-defaults", "-u", "root", "-S", socket, "-N", "-B"]
    try:
        subprocess.run(
            [*client, "-e", f"CREATE DATABASE sqltext_{workload}"], check=True, timeout=60
        )
        with path.open() as script_file:
            done = subprocess.run(
                [*client, f"sqltext_{workload}"],
                stdin=script_file,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "1", done.stdout
