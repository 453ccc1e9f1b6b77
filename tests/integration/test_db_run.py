"""Database runs through the real CLI: SQLite, PostgreSQL and MariaDB managed on loopback,
PostgreSQL external with a password, and the failures a user meets."""

from __future__ import annotations

import csv
import json
import os
import signal
import time
from pathlib import Path

import pytest
from needs import usable

from dbstor.engines.base import EngineSettings
from dbstor.engines.registry import engine_class

pytestmark = pytest.mark.integration

SHORT = ("--duration", "2", "--warmup", "1", "--scale", "50")
SECRET = "Zq9-s3cret-Pw"


def everything_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file())


def test_sqlite_brokerage_run(dbstor, tmp_path):
    target = tmp_path / "lun1"
    target.mkdir()
    proc = dbstor(
        "run",
        "--engine",
        "sqlite",
        "--target",
        target,
        "--users",
        "1,2",
        *SHORT,
        "--out",
        "out",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    folder = Path(summary["runs"][0]["folder"])
    data = dbstor.results(tmp_path / folder if not folder.is_absolute() else folder)
    assert data["schema"] == 1 and data["status"] == "complete"
    assert data["engine"]["name"] == "sqlite" and data["engine"]["managed"] is True
    assert data["workload"]["name"] == "brokerage" and data["workload"]["scale"] == 50
    assert sum(data["workload"]["mix"].values()) == pytest.approx(100)
    points = data["points"]
    assert [p["load"] for p in points] == [
        {"kind": "users", "value": 1, "jobs": 1},
        {"kind": "users", "value": 2, "jobs": 2},
    ]
    for point in points:
        assert point["tps"] > 0 and point["tpm"] == pytest.approx(point["tps"] * 60)
        assert point["txn_lat_ms"]["p50"] > 0
        assert len(point["txn_types"]) == 10
        assert point["device"] is not None and point["cpu"]["util_pct"] is not None
        assert point["engine_io"]["device_reads_per_txn"] is not None
    assert data["engine_stats"]["objects"], "per-table sizes for the placement advisor"
    with open(tmp_path / folder / "samples.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert any(r["tps"] for r in rows if r["phase"] == "measure")
    # each measured second with commits has their mean latency beside them
    busy = [r for r in rows if r["phase"] == "measure" and r["tps"] and float(r["tps"]) > 0]
    assert busy and all(float(r["txn_lat_mean_ms"]) > 0 for r in busy)
    assert (tmp_path / folder / "report.html").exists()
    assert list(target.iterdir()) == [], "the database files are removed at the end"
    # where the run's seconds went: the load is the points' own wall time, the first load
    # came after the launch, and the load series' own work is counted apart
    timings = data["timings"]
    assert timings["load_s"] == pytest.approx(sum(p["wall_s"] for p in points), abs=0.01)
    assert 0 < timings["launch_to_run_s"] < timings["first_load_after_launch_s"]
    assert timings["create_s"] > 0 and timings["cleanup_s"] >= 0
    assert timings["series_overhead_s"] >= 0


def test_default_study_is_the_main_job(dbstor, tmp_path):
    started = time.monotonic()
    proc = dbstor("run", "--out", "out", "--json", timeout=400)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 180, (
        f"the default study took {elapsed:.0f} s; it must finish within three minutes"
    )
    summary = json.loads(proc.stdout)
    kinds = sorted((r["workload"], r["status"]) for r in summary["runs"])
    assert kinds == [("brokerage", "complete"), ("io-oltp", "complete")]
    report = (tmp_path / summary["folder"] / "report.html").read_text()
    assert "<svg" in report and "brokerage" in report and "io-oltp" in report
    assert not [p for p in (tmp_path / "dbstor-data").iterdir()], "no test or database files left"


def test_postgres_managed_run_spreads_and_cleans_up(dbstor, tmp_path, server_dir):
    usable("postgres")
    a, b, log = (server_dir / n for n in ("a", "b", "log"))
    for d in (a, b, log):
        d.mkdir()
    proc = dbstor(
        "run",
        "--engine",
        "postgres",
        "--target",
        f"data={a},{b}",
        "--target",
        f"log={log}",
        "--users",
        "1,4",
        *SHORT,
        "--out",
        "out",
        "--json",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["engine"]["name"] == "postgres" and data["engine"]["version"]
    assert all(p["status"] == "ok" and p["tps"] > 0 for p in data["points"])
    assert data["points"][1]["errors"] == 0
    objects = data["engine_stats"]["objects"]
    assert any(o["kind"] == "table" and o["size_bytes"] for o in objects)
    for d in (a, b, log):
        assert everything_under(d) == [], f"{d} still holds {everything_under(d)}"


def test_mariadb_managed_run(dbstor, tmp_path, server_dir):
    usable("mariadb")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor(
        "run",
        "--engine",
        "mariadb",
        "--target",
        target,
        "--users",
        "2",
        *SHORT,
        "--out",
        "out",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["engine"]["name"] == "mariadb" and data["points"][0]["tps"] > 0
    assert everything_under(target) == []


def test_server_killed_mid_point_fails_that_point_and_keeps_the_rest(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor.start(
        "run",
        "--engine",
        "postgres",
        "--target",
        target,
        "--users",
        "2,3,4",
        "--duration",
        "3",
        "--warmup",
        "0",
        "--scale",
        "50",
        "--out",
        "out",
    )
    dbstor.wait_for_points(tmp_path / "out", 1, proc, timeout=120)
    pidfile = next(target.glob("dbstor-pg-*/data/postmaster.pid"))
    os.kill(int(pidfile.read_text().split()[0]), signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr and "a load point failed" in stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["status"] == "failed"
    assert data["points"][0]["status"] == "ok"
    failed = data["points"][-1]
    assert failed["status"] == "failed" and "server" in failed["error"].lower()


def test_ctrl_c_keeps_finished_points_and_cleans_up(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor.start(
        "run",
        "--engine",
        "sqlite",
        "--target",
        target,
        "--users",
        "1,2,3",
        "--duration",
        "3",
        "--warmup",
        "0",
        "--scale",
        "50",
        "--out",
        "out",
    )
    dbstor.wait_for_points(tmp_path / "out", 1, proc, timeout=120)
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "finished load points are kept" in stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["status"] == "interrupted" and data["points"][0]["status"] == "ok"
    assert list(target.iterdir()) == []


def test_external_postgres_with_a_password_never_writes_it(dbstor, tmp_path, server_dir):
    usable("postgres")
    server = engine_class("postgres")(EngineSettings(paths={"data": [server_dir]}))
    server.start()
    try:
        admin = server.connect()
        admin.autocommit = True
        admin.execute(f"CREATE ROLE bench LOGIN PASSWORD '{SECRET}'")
        admin.execute("CREATE DATABASE bench OWNER bench")
        admin.close()
        dsn = f"postgresql://bench:{SECRET}@127.0.0.1:{server.port}/bench"
        env = {**os.environ, "DBSTOR_DSN": dsn}
        proc = dbstor(
            "run",
            "--engine",
            "postgres",
            "--users",
            "1",
            *SHORT,
            "--out",
            "out",
            "--json",
            env=env,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        outputs = [proc.stdout, proc.stderr] + [
            p.read_text(errors="replace") for p in everything_under(tmp_path / "out")
        ]
        assert all(SECRET not in text for text in outputs), "the password leaked into an output"
        data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
        assert data["engine"]["managed"] is False and data["points"][0]["tps"] > 0
        wrong = dsn.replace(SECRET, SECRET + "x")
        proc = dbstor(
            "run",
            "--engine",
            "postgres",
            "--quiet",
            "--dsn",
            wrong,
            "--users",
            "1",
            *SHORT,
            "--out",
            "out2",
            timeout=120,
        )
        line = dbstor.assert_user_error(proc)
        assert SECRET not in line and SECRET not in proc.stdout
    finally:
        server.stop()


def test_unreachable_server_is_one_line(dbstor):
    proc = dbstor(
        "run",
        "--engine",
        "postgres",
        "--quiet",
        "--dsn",
        f"postgresql://bench:{SECRET}@127.0.0.1:1/bench",
        "--users",
        "1",
        *SHORT,
    )
    line = dbstor.assert_user_error(proc)
    assert SECRET not in line


def test_engine_without_its_binary_is_one_line(dbstor, tmp_path):
    """On every machine, with or without MySQL: a `mysqld` first on PATH that is MariaDB's
    (as Debian's is) is no MySQL server, so the mysql engine has no binary to run."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "mysqld").write_text(
        "#!/bin/sh\necho 'mysqld  Ver 10.11.6-MariaDB for debian-linux-gnu'\n"
    )
    (fake / "mysqld").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    target = tmp_path / "lun"
    target.mkdir()
    args = ("run", "--engine", "mysql", "--target", target, "--users", "1", *SHORT)
    proc = dbstor(*args, "--out", tmp_path / "out", env=env)
    dbstor.assert_user_error(proc, "no MySQL server binary", "install mysql-server", "--dsn")
    assert list(target.iterdir()) == []  # nothing made on the target, no run folder
    assert not (tmp_path / "out").exists()


def test_unknown_engine_and_unwritable_target(dbstor, tmp_path, loop_fs):
    dbstor.assert_user_error(
        dbstor("run", "--engine", "sqlit", "--target", tmp_path), "did you mean 'sqlite'"
    )
    loop_fs.remount("ro")
    proc = dbstor("run", "--engine", "sqlite", "--target", loop_fs.path, "--users", "1", *SHORT)
    dbstor.assert_user_error(proc, "read-only")


def test_instances_series_drives_several_databases_at_once(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run",
        "--engine",
        "sqlite",
        "--target",
        target,
        "--instances",
        "1,2",
        "--users",
        "2",
        *SHORT,
        "--out",
        "out",
    )
    assert proc.returncode == 0, proc.stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    loads = [p["load"] for p in data["points"]]
    assert loads == [
        {"kind": "instances", "value": 1, "jobs": 2},
        {"kind": "instances", "value": 2, "jobs": 4},
    ]
    assert all(p["tps"] > 0 for p in data["points"])
    assert [entry["instance"] for entry in data["workload"]["load"]] == [0, 1]
    assert list(target.iterdir()) == []
