"""SQL Server through the CLI, for real as far as this machine allows: pymssql's FreeTDS
connects to a 127.0.0.1 port where nothing listens, and bad DSNs and a missing password
are refused; each is one line, exit 2, before any folder or database file exists, and the
password (given in the environment) is never printed."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

SECRET = "Zq9-mssql-s3cret"
SHORT = ("--users", "1", "--duration", "2", "--warmup", "1", "--scale", "50")


@pytest.fixture
def places(tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    return target, tmp_path / "out"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(dbstor, places, dsn: str, env: dict[str, str], *extra: str):
    target, out = places
    args = ("run", "--engine", "sqlserver", "--dsn", dsn, "--target", target, "--out", out)
    proc = dbstor(*args, *SHORT, *extra, env=env, timeout=120)
    assert list(target.iterdir()) == [] and not out.exists()  # nothing made
    assert SECRET not in proc.stdout + proc.stderr
    return proc


@pytest.mark.parametrize(
    ("workload", "load"),
    [("orders", "--users"), ("brokerage", "--users"), ("blocks", "--users"), ("dss", "--streams")],
)
def test_a_port_where_nothing_listens_is_one_line(dbstor, places, workload, load):
    port = free_port()
    target, out = places
    args = ("run", "--engine", "sqlserver", "--dsn", f"mssql://sa@127.0.0.1:{port}/db")
    proc = dbstor(
        *args, "--workload", workload, load, "1", "--scale", "1", "--duration", "2",
        "--warmup", "1", "--target", target, "--out", out,
        env={"DBSTOR_MSSQL_PASSWORD": SECRET},
    )  # fmt: skip
    assert list(target.iterdir()) == [] and not out.exists()
    assert SECRET not in proc.stdout + proc.stderr
    dbstor.assert_user_error(
        proc,
        f"cannot connect to SQL Server at 127.0.0.1:{port}",
        "TDS server is unavailable",
        "Connection refused",
        "DBSTOR_MSSQL_PASSWORD",
    )


def test_the_dsn_from_dbstor_dsn_with_its_password_is_masked(dbstor, places):
    port = free_port()
    target, out = places
    env = {"DBSTOR_DSN": f"mssql://sa:{SECRET}@127.0.0.1:{port}/db"}
    proc = dbstor("run", "--engine", "sqlserver", "--target", target, "--out", out, *SHORT, env=env)
    dbstor.assert_user_error(proc, f"127.0.0.1:{port}")
    assert SECRET not in proc.stdout + proc.stderr and not out.exists()


@pytest.mark.parametrize(
    ("dsn", "needle"),
    [
        ("mssql://sa@127.0.0.1:99999/db", "Port out of range"),
        ("mssql://127.0.0.1:1433/db", "names no login"),
        ("mssql://sa@127.0.0.1/db?timeout=forever", "timeout must be whole seconds"),
        ("http://sa@127.0.0.1/db", "write mssql://user@host:1433/database"),
    ],
)
def test_a_bad_dsn_is_one_line_before_anything_is_created(dbstor, places, dsn, needle):
    proc = run(dbstor, places, dsn, {"DBSTOR_MSSQL_PASSWORD": SECRET})
    dbstor.assert_user_error(proc, "bad SQL Server DSN", needle)


def test_no_password_is_one_line_naming_the_variable(dbstor, places):
    proc = run(dbstor, places, "mssql://sa@127.0.0.1:1/db", {"DBSTOR_MSSQL_PASSWORD": ""})
    dbstor.assert_user_error(proc, "no password", "set DBSTOR_MSSQL_PASSWORD")


def test_without_a_dsn_dbstor_says_it_does_not_run_sql_server_itself(dbstor, places):
    target, out = places
    proc = dbstor("run", "--engine", "sqlserver", "--target", target, "--out", out, *SHORT)
    dbstor.assert_user_error(proc, "--dsn")
    assert list(target.iterdir()) == [] and not out.exists()


def test_engines_lists_what_was_verified(dbstor):
    proc = dbstor("engines", "--json")
    assert proc.returncode == 0, proc.stderr
    assert (
        "SQL parsed and counters tested on recorded output; not run against a live server here"
        in proc.stdout
    )


def test_a_silent_server_ends_the_login_in_one_line_and_no_process_argument_holds_the_password(
    dbstor, places, monkeypatch
):
    """A listener that accepts and never answers: FreeTDS's login waits for its timeout
    while every process on the machine is searched for the password in its arguments."""
    monkeypatch.setenv("DBSTOR_MSSQL_PASSWORD", SECRET)
    target, out = places
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(60)
        port = server.getsockname()[1]
        proc = dbstor.start(
            "run", "--engine", "sqlserver", "--dsn", f"mssql://sa@127.0.0.1:{port}/db",
            "--target", target, "--out", out, *SHORT,
        )  # fmt: skip
        held, _ = server.accept()  # dbstor's login has reached the listener and waits
        with held:
            arguments = [p.read_bytes() for p in Path("/proc").glob("[0-9]*/cmdline") if p.exists()]
            assert not [a for a in arguments if SECRET.encode() in a]
            stdout, stderr = proc.communicate(timeout=90)
    line = dbstor.assert_user_error(
        subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr),
        f"cannot connect to SQL Server at 127.0.0.1:{port}",
    )
    assert SECRET not in line + stdout
    assert list(target.iterdir()) == [] and not out.exists()
