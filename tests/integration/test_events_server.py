"""Events that act on the database engine, for real: a checkpoint and a crash of managed
PostgreSQL inside one orders point (the checkpoint's time and device writes; the crash's
recovery time, the users reconnecting, no acknowledged New-Order lost and TPC-C's
consistency conditions holding after the recovery), dbstor killed during a crash leaving
no server behind, and the engines that cannot take these events refused before anything
runs."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from needs import usable

pytestmark = pytest.mark.integration


def postgres_running(under: Path) -> list[int]:
    """The pids of PostgreSQL servers (postgres -D DIR) whose data directory is under
    `under` (their backends leave when their postmaster is killed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if argv[0].endswith("/postgres") and any(a.startswith(str(under)) for a in argv):
            found.append(int(entry.name))
    return found


def recovering(under: Path) -> bool:
    """Whether a server log under `under` says a crash recovery began."""
    return any(
        "was interrupted" in log.read_text(errors="replace") for log in under.rglob("server.log")
    )


def test_a_checkpoint_and_a_crash_of_managed_postgres_during_an_orders_point(dbstor, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir(mode=0o711)
    proc = dbstor(
        "run", "--engine", "postgres", "--workload", "orders", "--scale", "1",
        "--target", target, "--users", "2", "--duration", "8s", "--warmup", "1s",
        "--out", server_dir / "out", "--event", "checkpoint@2s", "--event", "crash@4s",
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(server_dir / "out")
    point = dbstor.results(folder)["points"][0]
    checkpoint, crash = point["events"]
    assert checkpoint["ok"], checkpoint
    assert checkpoint["details"]["statement"] == "CHECKPOINT"
    assert checkpoint["details"]["duration_s"] > 0
    assert checkpoint["impact"]["device"]["during"]["dev_write_mbps"] > 0, checkpoint["impact"]
    assert crash["ok"], crash
    details = crash["details"]
    assert details["killed_pids"] >= 2, details  # the postmaster and its children
    assert 0 < details["ready_s"] <= details["first_commit_s"] < 60, details
    assert details["client_reconnects"] >= 1, details  # the users came back
    checked = details["durability"]
    assert checked["acknowledged"] > 0 and checked["lost"] == 0, checked
    assert checked["rows_after"] >= checked["rows_before"] + checked["acknowledged"], checked
    assert checked["consistency_broken"] == {}, checked
    dip = crash["impact"]["dip"]
    assert dip is not None and dip["started_at_s"] in (4, 5) and dip["depth_pct"] > 20, dip
    assert point["errors"] >= 1  # the connections the crash broke, counted
    assert "server back after" in proc.stderr and "acknowledged New-Orders lost" in proc.stderr
    assert postgres_running(target) == [], "the restarted server is stopped at the end"
    again = dbstor("report", folder)  # the folder loads again: counters reset by the crash
    assert again.returncode == 0, again.stderr


def test_dbstor_killed_during_a_crash_leaves_no_server(dbstor, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir(mode=0o711)
    proc = dbstor.start(
        "run", "--engine", "postgres", "--workload", "brokerage", "--scale", "10",
        "--target", target, "--users", "1", "--duration", "30s", "--warmup", "1s",
        "--out", server_dir / "out", "--event", "crash@1s",
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not recovering(target):  # the server started again
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    assert postgres_running(target), "the crash's new server runs"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and postgres_running(target):
        time.sleep(0.1)
    assert postgres_running(target) == []


def test_a_crash_or_checkpoint_an_engine_cannot_take_is_refused(dbstor, tmp_path):
    """One line each, exit 2, nothing made."""
    target = tmp_path / "t"
    target.mkdir()
    cases = [
        (("--engine", "sqlite"), "SQLite runs inside dbstor's own"),
        (
            ("--engine", "postgres", "--dsn", "postgresql://u@127.0.0.1:9/x"),
            "does not kill an external PostgreSQL server",
        ),
    ]
    for args, needle in cases:
        proc = dbstor(
            "run", "--target", target, "--duration", "5s", "--out", "out", *args,
            "--event", "crash@1s",
        )  # fmt: skip
        dbstor.assert_user_error(proc, needle)
    io = dbstor("io", "--target", target, "--duration", "5s", "--out", "out",
                "--event", "checkpoint@1s")  # fmt: skip
    dbstor.assert_user_error(io, "fio points have none")
    study = tmp_path / "s.toml"  # `dbstor study` refuses what `run` would
    study.write_text(
        f'[study]\nduration = "10s"\n[[databases]]\nengine = "sqlite"\n[[targets]]\n'
        f'path = "{target}"\n[[events]]\nkind = "crash"\nat = "2s"\n'
    )
    dbstor.assert_user_error(dbstor("study", study), "there is no server to kill")
    dss = study.read_text().replace('"sqlite"', '"duckdb"\nworkload = "dss"')
    study.write_text(dss.replace('"crash"', '"checkpoint"'))
    dbstor.assert_user_error(dbstor("study", study), "not query streams")
    assert list(target.iterdir()) == [] and not (tmp_path / "out").exists()
