"""dbstor advise through the real CLI: SQL Server CSV (h6080 Figure 5), run folders, tier
latencies from runs, a live PostgreSQL server on loopback, and bad input (exit 2)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pg_server
import pytest

from dbstor.results.model import LatencyStats, Load, Point, Run
from dbstor.results.store import save_run

FIXTURE = Path(__file__).parents[1] / "fixtures" / "h6080_filestats.csv"
PASSWORD = "s3cret-Pw"


def test_h6080_figure_5_json(dbstor):
    proc = dbstor("advise", "--sqlserver", FIXTURE, "--fast-capacity", "73GB", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["chosen"] == ["Broker1", "Broker6"]
    assert len(result["ranking"]) == 12
    for row in result["ranking"]:
        assert {"name", "size_bytes", "reads", "writes", "density", "chosen", "reason"} <= set(row)
    assert result["ranking"][0]["name"] == "Broker8"
    assert result["method"] == "exact" and result["objective"] == "stall_ms"
    assert "since the counters were last reset" in result["source"]["counted"]


def test_text_table_and_html_page(dbstor, tmp_path):
    page = tmp_path / "advice.html"
    proc = dbstor(
        "advise", "--sqlserver", FIXTURE, "--fast-capacity", "100GB", "--html", page, "--top", "5"
    )
    assert proc.returncode == 0, proc.stderr
    assert "Skew point: 52.0% of the I/O in 48.0% of the capacity" in proc.stdout
    assert "Broker1" in proc.stdout and "... 7 more" in proc.stdout
    html = page.read_text()
    assert '<section class="dbstor-advise">' in html and "<svg" in html and "Customer5" in html


def test_two_snapshots_and_counters_going_backwards(dbstor, tmp_path):
    head = "name,type_desc,size_on_disk_bytes,num_of_reads,num_of_writes,io_stall\n"
    (tmp_path / "t0.csv").write_text(head + "hot,ROWS,1000000000,100,10,1000\nlog,LOG,1,0,5,5\n")
    (tmp_path / "t1.csv").write_text(head + "hot,ROWS,1000000000,900,90,9000\nlog,LOG,1,0,900,99\n")
    proc = dbstor("advise", "--sqlserver", "t0.csv", "t1.csv", "--fast-capacity", "2GB", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["chosen"] == ["hot"]
    hot = next(r for r in result["ranking"] if r["name"] == "hot")
    assert (hot["reads"], hot["writes"], hot["stall_ms"]) == (800, 80, 8000)
    log = next(r for r in result["ranking"] if r["name"] == "log")
    assert not log["chosen"] and "transaction log" in log["reason"]
    proc = dbstor("advise", "--sqlserver", "t1.csv", "t0.csv", "--fast-capacity", "2GB")
    dbstor.assert_user_error(proc, "counter reads of 'hot' went backwards")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--sqlserver", "missing.csv", "--fast-capacity", "1GB"], ["missing.csv", "no such file"]),
        (["--sqlserver", "cols.csv", "--fast-capacity", "1GB"], ["missing required column", "num_of_reads"]),
        (["--fast-capacity", "1GB"], ["exactly one source"]),
        (["--sqlserver", "cols.csv"], ["--fast-capacity is required"]),
        (["--sqlserver", "cols.csv", "--fast-capacity", "lots"], ["--fast-capacity", "lots"]),
        (["norun", "--fast-capacity", "1GB"], ["not a dbstor run folder"]),
        (["--sqlserver", "cols.csv", "--fast-capacity", "1GB", "--fast-latency", "1ms",
          "--fast-run", "x"], ["not both"]),
        (["--sqlserver", "cols.csv", "--fast-capacity", "1GB", "--slow-latency", "0.1ms"],
         ["not slower"]),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(dbstor, tmp_path, args, needles):
    (tmp_path / "cols.csv").write_text("name,size_bytes,num_of_writes\na,1,1\n")
    (tmp_path / "norun").mkdir()
    dbstor.assert_user_error(dbstor("advise", *args), *needles)


def _objects_run(folder: Path, objects: list[dict] | None) -> None:
    folder.mkdir(parents=True)
    data = {"schema": 1, "run_id": folder.name, "points": []}
    if objects is not None:
        data["engine_stats"] = {"objects": objects}
    (folder / "results.json").write_text(json.dumps(data))


def _latency_run(folder: Path, mean_ms: float) -> None:
    point = Point(load=Load("users", 4), duration_s=10, read_lat_ms=LatencyStats(mean=mean_ms))
    save_run(folder, Run(folder.name, "t", {}, {}, {}, {}, {}, {}, "now", points=[point]))


def test_run_folder_with_tier_latencies_from_runs(dbstor, tmp_path):
    objects = [
        {
            "name": "orders",
            "kind": "table",
            "size_bytes": 6 << 30,
            "reads": 60_000,
            "writes": 6_000,
        },
        {"name": "orders_ix", "kind": "index", "size_bytes": 1 << 30, "reads": 20_000, "writes": 0},
        {"name": "history", "kind": "table", "size_bytes": 20 << 30, "reads": 9_000, "writes": 500},
    ]
    _objects_run(tmp_path / "results" / "r1", objects)
    _latency_run(tmp_path / "flash", 0.4)
    _latency_run(tmp_path / "hdd", 8.4)
    proc = dbstor("advise", "results/r1", "--fast-capacity", "7GiB", "--fast-run", "flash",
                  "--slow-run", "hdd", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["chosen"] == ["orders_ix", "orders"]
    assert result["fast_tier"]["latency_ms"] == 0.4 and result["slow_tier"]["latency_ms"] == 8.4
    # (66,000 + 20,000) I/Os x (8.4 - 0.4) ms = 688,000 ms
    assert result["result"]["stall_saved_ms"] == pytest.approx(688_000)
    assert "lowest-load point" in result["slow_tier"]["latency_source"]
    # the run by its name, as the document's placement section shows it (not the path given)
    assert result["source"]["counted"] == "the measured load points of run r1"
    _objects_run(tmp_path / "results" / "r2", None)
    proc = dbstor("advise", "results/r2", "--fast-capacity", "7GiB")
    dbstor.assert_user_error(proc, "engine_stats.objects")


# --- PostgreSQL, live ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg() -> Iterator[Any]:
    """A throwaway server with small shared buffers, so that scans read blocks from outside."""
    with pg_server.running_server(settings={"shared_buffers": "1MB"}) as server:
        server.create_database("app")
        server.sql(
            "CREATE TABLE hot (id int PRIMARY KEY, pad text);"
            "INSERT INTO hot SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;"
            "CREATE TABLE cold (id int PRIMARY KEY, pad text);"
            "INSERT INTO cold SELECT g, repeat('y', 200) FROM generate_series(1, 40000) g;"
            "CREATE TABLE tiny (id int PRIMARY KEY); INSERT INTO tiny VALUES (1); ANALYZE;",
            "app",
        )
        yield server


def test_postgres_live_over_an_interval(dbstor, pg):
    psycopg = pytest.importorskip("psycopg", reason="psycopg 3 is not installed")
    stop = threading.Event()

    def reads() -> None:
        with psycopg.connect(pg.dsn("app"), autocommit=True) as conn:
            key = 0
            while not stop.is_set():
                conn.execute("SELECT count(*) FROM hot").fetchone()
                key = key * 7919 % 20000 + 1
                conn.execute("SELECT pad FROM hot WHERE id = %s", (key,)).fetchone()

    worker = threading.Thread(target=reads, daemon=True)
    worker.start()
    try:
        time.sleep(0.3)
        proc = dbstor("advise", "--postgres", pg.dsn("app", PASSWORD), "--interval", "2",
                      "--fast-capacity", "5MB", "--json", timeout=60)  # fmt: skip
    finally:
        stop.set()
        worker.join(timeout=10)
    assert proc.returncode == 0, proc.stderr
    assert PASSWORD not in proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    names = {r["name"]: r for r in result["ranking"]}
    assert {"public.hot", "public.hot_pkey", "public.cold", "public.tiny"} <= set(names)
    assert names["public.hot"]["reads"] > 0 and names["public.cold"]["reads"] == 0
    assert names["public.hot"]["kind"] == "table" and names["public.hot_pkey"]["kind"] == "index"
    assert result["chosen"][0] == "public.hot"
    assert result["source"]["dsn"].endswith(f":***@127.0.0.1:{pg.port}/app")
    assert "difference over 2 s" in result["source"]["counted"]


def test_postgres_single_reading_and_unreachable_server(dbstor, pg):
    pytest.importorskip("psycopg", reason="psycopg 3 is not installed")
    pg.sql("SELECT count(*) FROM cold", "app")
    proc = dbstor("advise", "--postgres", pg.dsn("app"), "--interval", "0",
                  "--fast-capacity", "50MB", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "counted since the statistics were last reset"
        in json.loads(proc.stdout)["source"]["counted"]
    )
    dsn = f"postgresql://bench:{PASSWORD}@127.0.0.1:{pg_server.free_port()}/app"
    proc = dbstor("advise", "--postgres", dsn, "--fast-capacity", "1GB")
    line = dbstor.assert_user_error(proc, "cannot connect to PostgreSQL", "bench:***@127.0.0.1")
    assert PASSWORD not in line
