"""The orders and blocks workloads through the real CLI: series, options and figures."""

from __future__ import annotations

import os
import signal

import pytest
from needs import usable

pytestmark = pytest.mark.integration

SHORT = ("--duration", "3", "--warmup", "1")


def test_orders_on_sqlite_instances_report_nopm(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "sqlite", "--workload", "orders", "--scale", "1", "--target", target,
        "--instances", "1,2", "--users", "1", *SHORT, "--out", "out",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "NOPM" in proc.stderr or "NOPM" in proc.stdout
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["workload"]["name"] == "orders" and data["workload"]["scale"] == 1
    assert [p["load"]["value"] for p in data["points"]] == [1, 2]
    for point in data["points"]:
        metrics = point["workload_metrics"]
        new_orders = point["txn_types"]["New-Order"]["count"]
        # NOPM counts committed New-Orders: at most all of them, at least 95% (1% roll back)
        assert 0.95 * new_orders * 20 <= metrics["nopm"] <= new_orders * 20 + 1e-9
        assert metrics["tpm"] == pytest.approx(point["tps"] * 60, rel=0.01)
    assert list(target.iterdir()) == []


def test_blocks_on_postgres_with_options_and_client_processes(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", "--workload", "blocks", "--scale", "2000",
        "--target", target, "--users", "2,4", "--update-pct", "50", "--client-processes", "2",
        "--buffer", "8MiB", *SHORT, "--out", "out",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["workload"]["options"]["update_pct"] == 50
    rows = sum(entry["rows"] for entry in data["workload"]["load"])
    assert rows == 4 * 2000, "one table per user of the busiest point"
    for point in data["points"]:
        assert point["status"] == "ok" and point["errors"] == 0
        types = point["txn_types"]
        share = types["update"]["count"] / (types["update"]["count"] + types["read"]["count"])
        assert 0.4 < share < 0.6
        assert point["client"]["processes"] == 2
        # 8 MiB of buffers for 8,000 one-block rows: most reads miss the engine's cache
        assert point["engine_io"]["engine_physical_reads_per_txn"] > 0.3


def test_unknown_workload_option_is_one_line(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "sqlite", "--workload", "orders", "--target", target,
        "--option", "warehouse_count=3", "--out", "out",
    )  # fmt: skip
    dbstor.assert_user_error(proc, "warehouse_count")
    assert list(target.iterdir()) == []


def _orders_on_postgres_after_one_point(dbstor, tmp_path, server_dir, users):
    """A three-point orders run on a managed PostgreSQL, once its first point is saved:
    the process and the target."""
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor.start(
        "run", "--engine", "postgres", "--workload", "orders", "--scale", "1",
        "--target", target, "--users", f"{users},{users + 1},{users + 2}", "--duration", "3",
        "--warmup", "0", "--out", "out",
    )  # fmt: skip
    dbstor.wait_for_points(tmp_path / "out", 1, proc, timeout=180)
    return proc, target


def test_orders_server_killed_mid_point_keeps_the_finished_ones(dbstor, tmp_path, server_dir):
    proc, target = _orders_on_postgres_after_one_point(dbstor, tmp_path, server_dir, 2)
    pidfile = next(target.glob("dbstor-pg-*/data/postmaster.pid"))
    os.kill(int(pidfile.read_text().split()[0]), signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr and "a load point failed" in stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["points"][0]["status"] == "ok" and data["points"][0]["workload_metrics"]["nopm"] > 0
    assert data["points"][-1]["status"] == "failed"


def test_ctrl_c_stops_orders_users_on_one_loop_thread(dbstor, tmp_path, server_dir):
    # PostgreSQL procedure sessions are driven by the driver's loop thread (multiplex.py)
    proc, target = _orders_on_postgres_after_one_point(dbstor, tmp_path, server_dir, 4)
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    first = data["points"][0]
    assert first["status"] == "ok" and first["workload_metrics"]["nopm"] > 0
    assert first["errors"] == 0
    assert list(target.glob("dbstor-pg-*")) == []  # the server it started is gone


@pytest.mark.parametrize("workload", ["orders", "blocks"])
def test_wrong_dsn_is_one_line_without_the_password(dbstor, workload):
    secret = "Wr0ng-s3cret"
    proc = dbstor(
        "run", "--engine", "postgres", "--workload", workload, "--quiet",
        "--dsn", f"postgresql://bench:{secret}@127.0.0.1:1/bench", "--users", "1", *SHORT,
    )  # fmt: skip
    line = dbstor.assert_user_error(proc)
    assert secret not in line and secret not in proc.stdout
