"""Query runs (dss) through the real CLI at TPC-H scale factor 0.01: DuckDB, PostgreSQL
(managed on loopback) and SQLite; power and throughput runs, cold points, timeouts, a
server killed mid-run, Ctrl-C, bad input, and a study over two targets compared on total
elapsed time."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from needs import usable

pytestmark = pytest.mark.integration

SF = ("--workload", "dss", "--scale", "0.01")
TR3476 = ["Q6", "Q2", "Q9", "Q1", "Q3", "Q12"]


def run_data(dbstor, out: Path) -> dict:
    return dbstor.results(dbstor.only_run_folder(out))


def test_duckdb_power_run(dbstor, tmp_path):
    usable("duckdb")
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor("run", "--engine", "duckdb", *SF, "--target", target, "--out", "out", "--json")
    assert proc.returncode == 0, proc.stderr
    data = run_data(dbstor, tmp_path / "out")
    assert data["status"] == "complete" and data["engine"]["name"] == "duckdb"
    assert data["workload"]["kind"] == "queries" and data["workload"]["cache"] == "warm"
    assert data["workload"]["warmup"]["queries"] == 6
    load = data["workload"]["load"][0]
    assert load["rows"] > 80_000 and load["rows_per_s"] > 0 and load["mb_per_s"] > 0
    [point] = data["points"]
    assert point["status"] == "ok" and point["load"] == {"kind": "streams", "value": 1, "jobs": 1}
    queries = point["queries"]
    assert [q["name"] for q in queries] == TR3476
    assert queries[0]["tr3476"] == "Profit Enhancement" and queries[0]["number"] == 6
    for q in queries:
        assert q["status"] == "ok" and q["rows"] > 0 and q["elapsed_s"] > 0 and q["stream"] == 0
    total = sum(q["elapsed_s"] for q in queries)
    assert point["workload_metrics"]["total_elapsed_s"] == pytest.approx(total)
    assert point["workload_metrics"]["queries_per_hour"] == pytest.approx(6 * 3600 / total)
    assert data["peak"]["load"] == 1 and data["knee"] is None
    for q in TR3476:  # the progress: one line per query
        assert f"    {q} " in proc.stderr
    assert "power run (warm): " in proc.stderr and "queries/h" in proc.stderr
    html = (dbstor.only_run_folder(tmp_path / "out") / "report.html").read_text()
    assert "Elapsed time per query" in html and "Late Received Orders" in html
    assert list(target.iterdir()) == [], "the database is removed at the end"
    timings = data["timings"]  # the load, the warm-up power run and the point apart
    assert timings["create_s"] > 0 and timings["warmup_s"] > 0
    assert timings["load_s"] == pytest.approx(point["wall_s"], abs=0.01)
    assert timings["launch_to_run_s"] < timings["first_load_after_launch_s"]


def test_duckdb_throughput_streams(dbstor, tmp_path):
    usable("duckdb")
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "duckdb", *SF, "--target", target, "--streams", "1,2",
        "--queries", "1,6,Q12", "--out", "out",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    power, throughput = run_data(dbstor, tmp_path / "out")["points"]
    assert [q["name"] for q in power["queries"]] == ["Q1", "Q6", "Q12"]
    assert {q["stream"] for q in throughput["queries"]} == {1, 2}
    assert len(throughput["queries"]) == 6
    assert all(q["status"] == "ok" for q in throughput["queries"])
    metrics = throughput["workload_metrics"]
    assert metrics["total_elapsed_s"] <= throughput["wall_s"] + 0.01
    assert metrics["queries_per_hour"] == pytest.approx(6 * 3600 / metrics["total_elapsed_s"])
    assert "s1 " in proc.stderr and "s2 " in proc.stderr


def test_postgres_cold_points_restart_the_server_and_time_out_queries(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", *SF, "--target", target, "--streams", "1,2", "--cold",
        "--query-timeout", "1ms", "--out", "out", timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = run_data(dbstor, tmp_path / "out")
    assert data["status"] == "complete" and data["workload"]["cache"] == "cold"
    assert "warmup" not in data["workload"]
    for point in data["points"]:
        assert point["status"] == "ok"
        note = point["trust"]["notes"][0]
        assert note.startswith("cold: PostgreSQL restarted, ") and "dropped from the page" in note
        assert {q["cache"] for q in point["queries"]} == {"cold"}
        statuses = {q["status"] for q in point["queries"]}
        assert statuses <= {"ok", "timeout"} and "timeout" in statuses  # the run went on
        late = next(q for q in point["queries"] if q["status"] == "timeout")
        assert "over the query timeout of 0.001 s" in late["error"]
    assert len(data["points"][1]["queries"]) == 12, "every query ran despite the timeouts"
    assert list(target.iterdir()) == []


def test_sqlite_cold_power_run(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor("run", "--engine", "sqlite", *SF, "--target", target, "--cold", "--out", "out")
    assert proc.returncode == 0, proc.stderr
    [point] = run_data(dbstor, tmp_path / "out")["points"]
    assert point["trust"]["notes"][0].startswith("cold: SQLite restarted")
    assert [q["status"] for q in point["queries"]] == ["ok"] * 6
    assert all(q["rows"] is not None for q in point["queries"])


def test_bad_query_name_is_one_line_and_creates_nothing(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "duckdb", *SF, "--target", target, "--queries", "1,Q99", "--out", "out"
    )
    dbstor.assert_user_error(proc, "Q99")
    assert list(target.iterdir()) == [] and not (tmp_path / "out").exists()
    proc = dbstor("run", "--engine", "duckdb", *SF, "--target", target, "--scale", "-1")
    dbstor.assert_user_error(proc, "--scale")


def test_server_killed_mid_run_fails_that_point_and_keeps_the_rest(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor.start(
        "run", "--engine", "postgres", *SF, "--target", target, "--streams", ",".join(str(n) for n in range(1, 41)),
        "--out", "out",
    )  # fmt: skip
    dbstor.wait_for_points(tmp_path / "out", 1, proc, timeout=180)
    pidfile = next(target.glob("dbstor-pg-*/data/postmaster.pid"))
    os.kill(int(pidfile.read_text().split()[0]), signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr and "a load point failed" in stderr
    data = run_data(dbstor, tmp_path / "out")
    assert data["status"] == "failed" and data["points"][0]["status"] == "ok"
    failed = data["points"][-1]
    assert failed["status"] == "failed" and "server stopped" in failed["error"]


def test_ctrl_c_keeps_finished_points(dbstor, tmp_path):
    usable("duckdb")
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor.start(
        "run", "--engine", "duckdb", *SF, "--target", target, "--streams", ",".join(str(n) for n in range(2, 202)),
        "--out", "out",
    )  # fmt: skip
    dbstor.wait_for_points(tmp_path / "out", 1, proc, timeout=120)
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    data = run_data(dbstor, tmp_path / "out")
    assert data["status"] == "interrupted" and data["points"][0]["status"] == "ok"
    assert len(data["points"]) < 200
    assert list(target.iterdir()) == []


def test_study_over_two_targets_compares_total_elapsed(dbstor, tmp_path):
    usable("duckdb")
    for name in ("fc", "iscsi"):
        (tmp_path / name).mkdir()
    study = tmp_path / "study.toml"
    study.write_text(
        """
[study]
name = "dss on two directories"
baseline = "FC"

[[databases]]
engine = "duckdb"
workload = "dss"
scale = 0.01
streams = [1]
options = { queries = "tr3476" }

[[targets]]
label = "FC"
path = "fc"

[[targets]]
label = "ISCSI"
path = "iscsi"
"""
    )
    proc = dbstor("run", study, "--out", "out", timeout=180)
    assert proc.returncode == 0, proc.stderr
    [folder] = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    comparison = json.loads((folder / "comparison.json").read_text())
    assert comparison["kind"] == "dss" and comparison["baseline"] == "FC"
    fc, iscsi = comparison["runs"]
    assert fc["normalised"]["total_elapsed_s"] == pytest.approx(100.0)
    expected = iscsi["values"]["total_elapsed_s"] / fc["values"]["total_elapsed_s"] * 100
    assert iscsi["normalised"]["total_elapsed_s"] == pytest.approx(expected)
    assert [q["name"] for q in comparison["queries"]] == TR3476
    html = (folder / "report.html").read_text()
    assert "Comparison against FC (baseline = 100, lower is better)" in html
    assert "Elapsed time per query: across targets" in html
