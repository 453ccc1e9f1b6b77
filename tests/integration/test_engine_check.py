"""dbstor engines --check against real servers: every counter query of the engine run once,
what is missing named with its grant, a workload built and each transaction run once in a
scratch schema that is gone afterwards, a refused port in one line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pg_server
import pytest
from needs import usable

from dbstor.dialects import registry
from dbstor.engines.base import EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.workloads.registry import WORKLOADS

pytestmark = pytest.mark.integration
PASSWORD = "Qz7-check-Pw3"


def check_lines(stdout: str) -> list[str]:
    return [ln.strip() for ln in stdout.splitlines() if ln.startswith("  ")]


def names_of(engine: str, dsn: str) -> list[str]:
    """The counter queries the engine lists (the check prints each by name)."""
    return [q.name for q in engine_class(engine)(EngineSettings(dsn=dsn)).counter_queries()]


# --- PostgreSQL -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg() -> Iterator[Any]:
    with pg_server.running_server(settings={"shared_buffers": "1MB"}) as server:
        server.create_database("app")
        server.sql(
            "CREATE ROLE plain LOGIN; GRANT CREATE ON DATABASE app TO plain;"
            "CREATE ROLE nocreate LOGIN;"
        )
        yield server


def schemas(pg: Any) -> list[str]:
    return pg.sql("SELECT nspname FROM pg_namespace ORDER BY 1", "app").split()


def as_role(pg: Any, role: str) -> str:
    return f"postgresql://{role}:{PASSWORD}@{pg.host}:{pg.port}/app"


@pytest.mark.parametrize("role", ["postgres", "plain"])
def test_postgres_every_counter_query_ok(dbstor: Any, pg: Any, role: str) -> None:
    """A superuser and a plain role without pg_monitor / pg_read_all_stats: PostgreSQL
    shows both every statistic the counters read (checked here, not assumed), so both pass."""
    dsn = as_role(pg, role)
    proc = dbstor("engines", "--check", "--engine", "postgres", "--dsn", dsn)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = check_lines(proc.stdout)
    listed = names_of("postgres", dsn)
    assert len(listed) >= 3  # the counters, the block size, the objects, the window figures
    for name in listed:
        assert any(ln.startswith("ok") and name in ln for ln in lines), (name, proc.stdout)
    assert not any(ln.startswith("MISSING") for ln in lines)
    assert "logical_reads, physical_reads, physical_writes" in proc.stdout
    assert PASSWORD not in proc.stdout + proc.stderr and "***" in proc.stdout
    assert "dbstor_999" not in schemas(pg)


def test_postgres_role_without_create_is_one_line_naming_the_grant(dbstor: Any, pg: Any) -> None:
    proc = dbstor("engines", "--check", "--engine", "postgres", "--dsn", as_role(pg, "nocreate"))
    dbstor.assert_user_error(proc, "dbstor_999", "grant the user CREATE on the database")
    assert PASSWORD not in proc.stderr


def test_postgres_workload_orders_runs_each_transaction_and_leaves_nothing(
    dbstor: Any, pg: Any
) -> None:
    env = dict(os.environ, DBSTOR_DSN=pg.dsn("app", password=PASSWORD))
    proc = dbstor(
        "engines", "--check", "--engine", "postgres", "--workload", "orders", env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = check_lines(proc.stdout)
    assert any(ln.startswith("ok") and "build orders at scale 1" in ln for ln in lines)
    for txn in ("New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"):
        assert any(ln.startswith(f"ok       transaction {txn}: ok") for ln in lines), proc.stdout
    assert "dbstor_999" not in schemas(pg)
    assert PASSWORD not in proc.stdout + proc.stderr


def test_a_studys_schema_on_the_same_server_is_untouched(dbstor: Any, pg: Any) -> None:
    """The check works in dbstor_999: a study's marked schema (dbstor) keeps its rows."""
    study = engine_class("postgres")(EngineSettings(dsn=pg.dsn("app"), keep=True))
    study.start()  # creates and marks schema dbstor, as a study does
    try:
        pg.sql("CREATE TABLE dbstor.mine (id int); INSERT INTO dbstor.mine VALUES (7)", "app")
        proc = dbstor("engines", "--check", "--engine", "postgres", "--dsn", pg.dsn("app"))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert pg.sql("SELECT id FROM dbstor.mine", "app").strip() == "7"
    finally:
        study.settings.keep = False
        study.stop()
    assert "dbstor" not in schemas(pg)


def test_refused_port_is_one_line_and_creates_nothing(dbstor: Any, tmp_path: Path) -> None:
    port = pg_server.free_port()  # nothing listens there
    env = dict(os.environ, TMPDIR=str(tmp_path))
    for engine, dsn in (
        ("postgres", f"postgresql://u:{PASSWORD}@127.0.0.1:{port}/app"),
        ("mariadb", f"mysql://u:{PASSWORD}@127.0.0.1:{port}/"),
    ):
        proc = dbstor("engines", "--check", "--engine", engine, "--dsn", dsn, env=env)
        line = dbstor.assert_user_error(proc, "cannot connect", f"127.0.0.1:{port}")
        assert PASSWORD not in line and proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


# --- MariaDB --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def maria() -> Iterator[Any]:
    """A managed MariaDB server with two users: one with every privilege, one with
    privileges on dbstor's scratch database only."""
    cls = usable("mariadb")
    base = Path(tempfile.mkdtemp(prefix="dbstor-checktest-"))
    base.chmod(0o711)
    (base / "d").mkdir()
    engine = cls(EngineSettings(paths={"data": [base / "d"]}, buffer_bytes=8 << 20))
    try:
        engine.start()
        conn = engine.connect()
        with conn.cursor() as cur:
            for user, grant in (
                ("full", "ALL ON *.*"),
                ("plain", "ALL ON `dbstor_999`.*"),
                ("noroutine", "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON *.*"),
            ):
                cur.execute(f"CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
                cur.execute(f"GRANT {grant} TO '{user}'@'127.0.0.1'")
        conn.close()
        yield engine
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_mariadb_full_user_ok_plain_user_missing_performance_schema(
    dbstor: Any, maria: Any
) -> None:
    full = f"mysql://full:{PASSWORD}@127.0.0.1:{maria.port}/"
    proc = dbstor("engines", "--check", "--engine", "mariadb", "--dsn", full)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = check_lines(proc.stdout)
    for name in names_of("mariadb", full):
        assert any(ln.startswith("ok") and name in ln for ln in lines), (name, proc.stdout)

    plain = f"mysql://plain:{PASSWORD}@127.0.0.1:{maria.port}/"
    proc = dbstor("engines", "--check", "--engine", "mariadb", "--dsn", plain)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    missing = [ln for ln in check_lines(proc.stdout) if ln.startswith("MISSING")]
    assert len(missing) == 1, proc.stdout
    assert "file_summary_by_instance" in missing[0]
    assert "GRANT SELECT ON performance_schema.*" in missing[0]
    assert "1 of 5 checks failed" in proc.stdout
    assert PASSWORD not in proc.stdout + proc.stderr
    conn = maria.connect()
    with conn.cursor() as cur:
        cur.execute("SHOW DATABASES LIKE 'dbstor_999'")
        assert cur.fetchall() == ()
    conn.close()


def test_mariadb_workload_needs_create_routine(dbstor: Any, maria: Any) -> None:
    """blocks runs its visit loop as stored routines: with every privilege it builds and
    runs; without CREATE ROUTINE the build is MISSING with the server's own words."""
    full = f"mysql://full:{PASSWORD}@127.0.0.1:{maria.port}/"
    proc = dbstor(
        "engines", "--check", "--engine", "mariadb", "--dsn", full, "--workload", "blocks"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok       transaction read: ok" in proc.stdout
    assert "ok       transaction update: ok" in proc.stdout

    bare = f"mysql://noroutine:{PASSWORD}@127.0.0.1:{maria.port}/"
    proc = dbstor(
        "engines", "--check", "--engine", "mariadb", "--dsn", bare, "--workload", "blocks"
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    missing = [ln for ln in check_lines(proc.stdout) if ln.startswith("MISSING")]
    assert len(missing) == 1 and "build blocks at scale 500" in missing[0], proc.stdout
    assert "denied" in missing[0].lower(), missing[0]
    assert PASSWORD not in proc.stdout + proc.stderr


# --- embedded -------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_embedded_scratch_database_is_removed(dbstor: Any, tmp_path: Path, engine: str) -> None:
    usable(engine)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    proc = dbstor("engines", "--check", "--engine", engine, "--workload", "dss", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = check_lines(proc.stdout)
    assert any(ln.startswith("ok") and "counters a study reads" in ln for ln in lines)
    queries = [ln for ln in lines if "query Q" in ln]
    assert len(queries) == 6 and all(ln.startswith("ok") for ln in queries), proc.stdout
    assert list(scratch.iterdir()) == []


def test_workload_the_dialect_lacks_is_missing(dbstor: Any) -> None:
    """DuckDB runs only dss: asking it for orders is one MISSING line, exit 2."""
    usable("duckdb")
    proc = dbstor("engines", "--check", "--engine", "duckdb", "--workload", "orders")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "MISSING  orders: has no SQL for DuckDB (duckdb)" in proc.stdout


# --- dbstor sql: the printed script loads -----------------------------------------------------


def runnable(script: str) -> str:
    """The sections of a `dbstor sql` script that run on empty tables: the schema,
    statistics, procedures, and dss's queries; not blocks' placeholders (bound at run
    time), nor the transactions (orders' calls need rows: test_sql_script_clients.py
    runs them on a few)."""
    chunks = re.split(r"^(?=-- == )", script, flags=re.M)
    return "".join(c for c in chunks if "%s" not in c and not c.startswith("-- == transactions"))


@pytest.mark.parametrize("workload", [w for w in WORKLOADS if "postgres" in registry.running(w)])
def test_postgres_loads_the_printed_script(dbstor: Any, pg: Any, workload: str) -> None:
    proc = dbstor("sql", "--engine", "postgres", "--workload", workload)
    assert proc.returncode == 0, proc.stderr
    text = runnable(proc.stdout)
    assert "CREATE TABLE" in text
    pg.create_database(f"sql_{workload}")
    script = Path(dbstor.cwd, "script.sql")
    script.write_text(text)
    done = subprocess.run(
        [
            str(pg.bindir / "psql"),
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            pg.host,
            "-p",
            str(pg.port),
            "-U",
            pg.user,
            "-d",
            f"sql_{workload}",
            "-f",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    tables = pg.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", f"sql_{workload}")
    assert int(tables) == proc.stdout.count("CREATE TABLE")


@pytest.mark.parametrize("workload", [w for w in WORKLOADS if "mysql" in registry.running(w)])
def test_mariadb_loads_the_printed_script(dbstor: Any, maria: Any, workload: str) -> None:
    proc = dbstor("sql", "--engine", "mariadb", "--workload", workload)
    assert proc.returncode == 0, proc.stderr
    conn = maria.connect()
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE sql_{workload}")
    conn.close()
    done = subprocess.run(
        ["mariadb", f"--socket={maria.sockdir / 'mysqld.sock'}", "-u", "root", f"sql_{workload}"],
        input=runnable(proc.stdout),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    conn = maria.connect()
    with conn.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s",
            (f"sql_{workload}",),
        )
        assert cur.fetchone()[0] == proc.stdout.count("CREATE TABLE")
        cur.execute(
            "SELECT count(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = %s",
            (f"sql_{workload}",),
        )
        assert cur.fetchone()[0] == proc.stdout.count("DELIMITER //")
    conn.close()
