"""The Oracle engine through the CLI, where no Oracle server can be installed: a real
python-oracledb (thin mode) connection to a 127.0.0.1 port where nothing listens, and bad
DSNs. Each is one line on stderr, exit 2, before anything is created (no --out folder,
nothing on the target), and the password (from DBSTOR_ORACLE_PASSWORD or the DSN in
DBSTOR_DSN) appears nowhere in the output."""

from __future__ import annotations

import json
import os
import socket

import pytest

PASSWORD = "Ora-Secret#4417"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("DBSTOR_DSN", "DBSTOR_ORACLE_PASSWORD")}
    return out | extra


def assert_nothing_made(tmp_path, target) -> None:
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in target.iterdir()) == ["theirs.txt"]


@pytest.fixture
def target(tmp_path):
    path = tmp_path / "target"
    path.mkdir()
    (path / "theirs.txt").write_text("not dbstor's")
    return path


@pytest.mark.parametrize("workload", ["orders", "blocks", "brokerage", "dss"])
def test_an_unreachable_server_is_one_line_exit_2_before_anything_exists(
    dbstor, tmp_path, target, workload
):
    port = free_port()
    dsn = f"oracle://system@127.0.0.1:{port}/FREEPDB1"
    proc = dbstor(
        "run",
        "--engine",
        "oracle",
        "--dsn",
        dsn,
        "--workload",
        workload,
        "--target",
        target,
        "--out",
        tmp_path / "out",
        env=env(DBSTOR_ORACLE_PASSWORD=PASSWORD),
    )
    line = dbstor.assert_user_error(
        proc, f"Oracle Database at 127.0.0.1:{port}/FREEPDB1", "Connection refused"
    )
    assert PASSWORD not in proc.stdout + proc.stderr and "DPY-6005" in line
    assert_nothing_made(tmp_path, target)


def test_a_password_in_dbstor_dsn_is_never_shown(dbstor, tmp_path, target):
    port = free_port()
    proc = dbstor(
        "run",
        "--engine",
        "oracle",
        "--workload",
        "orders",
        "--target",
        target,
        "--out",
        tmp_path / "out",
        env=env(DBSTOR_DSN=f"oracle://system:{PASSWORD}@127.0.0.1:{port}/FREEPDB1"),
    )
    dbstor.assert_user_error(proc, f"127.0.0.1:{port}")
    assert PASSWORD not in proc.stdout + proc.stderr
    assert_nothing_made(tmp_path, target)


@pytest.mark.parametrize(
    ("dsn", "needle"),
    [
        ("oracle://system@127.0.0.1:notaport/FREEPDB1", "bad Oracle DSN"),
        ("oracle://system@127.0.0.1:1521/", "name the service"),
        ("oracle://system@127.0.0.1:1521/FREEPDB1?connect_timeout=-3", "connect_timeout"),
    ],
)
def test_a_bad_dsn_is_one_line_exit_2_before_anything_exists(dbstor, tmp_path, target, dsn, needle):
    proc = dbstor(
        "run",
        "--engine",
        "oracle",
        "--dsn",
        dsn,
        "--workload",
        "orders",
        "--target",
        target,
        "--out",
        tmp_path / "out",
        env=env(DBSTOR_ORACLE_PASSWORD=PASSWORD),
    )
    dbstor.assert_user_error(proc, needle)
    assert PASSWORD not in proc.stdout + proc.stderr
    assert_nothing_made(tmp_path, target)


def test_no_password_is_one_line_naming_the_variable(dbstor, tmp_path, target):
    proc = dbstor(
        "run",
        "--engine",
        "oracle",
        "--dsn",
        "oracle://system@127.0.0.1:1521/FREEPDB1",
        "--workload",
        "orders",
        "--out",
        tmp_path / "out",
        env=env(),
    )
    dbstor.assert_user_error(proc, "no password for Oracle user system", "DBSTOR_ORACLE_PASSWORD")
    assert not (tmp_path / "out").exists()


def test_without_a_dsn_oracle_says_it_runs_only_against_a_server(dbstor, tmp_path, target):
    proc = dbstor(
        "run",
        "--engine",
        "oracle",
        "--workload",
        "orders",
        "--target",
        target,
        "--out",
        tmp_path / "out",
        env=env(),
    )
    dbstor.assert_user_error(proc, "--dsn")
    assert_nothing_made(tmp_path, target)


def test_dbstor_engines_lists_oracle_with_what_was_verified(dbstor):
    proc = dbstor("engines", "--json")
    assert proc.returncode == 0, proc.stderr
    row = next(r for r in json.loads(proc.stdout) if r["name"] == "oracle")
    assert row["usable"] and not row["planned"]
    assert (
        "SQL parsed and counters tested on recorded output; not run against a live server here"
        in row["reason"]
    )
