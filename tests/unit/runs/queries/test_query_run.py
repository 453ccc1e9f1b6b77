"""The query run (runs/queries) on real SQLite with a tiny query workload defined here:
per-query records, timeouts and failures recorded while the run goes on, throughput
streams, results written after every query, cold points; and its helpers."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from dbstor.analysis.queries import elapsed_stats, geomean, point_metrics, total_elapsed
from dbstor.drivers.streams import QueryTimer, one_line
from dbstor.engines.base import drop_page_cache
from dbstor.errors import PointFailed, UserError
from dbstor.results.store import load_run
from dbstor.runs.database import plan as run_plan
from dbstor.runs.database.plan import DbRunPlan
from dbstor.runs.progress import Progress
from dbstor.runs.queries import checks, worker
from dbstor.runs.queries.checks import check_query_spec
from dbstor.runs.queries.run import QueryRun
from dbstor.study.model import DatabaseSpec, LoadSeries, Slo, Target
from dbstor.telemetry.window import Reading, WindowCounters, window_stats
from dbstor.testfiles import Safety
from dbstor.workloads.base import LoadReport, Workload

ROWS = 20_000
SLOW_SQL = (
    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 300000000) "
    "SELECT count(*) FROM r"
)


@dataclass(frozen=True)
class Spec:
    number: int
    name: str
    title: str
    tr3476: str | None
    tr3476_code: str | None = None


QUERIES = {
    "Q1": (Spec(1, "Q1", "count", "Pricing Summary (PS)"), "SELECT count(*) FROM t"),
    "Q2": (
        Spec(2, "Q2", "groups", None),
        "SELECT n % 7, sum(n) FROM t GROUP BY 1 ORDER BY 1",
    ),
    "Q3": (
        Spec(3, "Q3", "top", "Late Received Orders (LR)"),
        "SELECT n FROM t ORDER BY n DESC LIMIT 5",
    ),
    "SLOW": (Spec(4, "SLOW", "never ends", None), SLOW_SQL),
    "BAD": (Spec(5, "BAD", "missing table", None), "SELECT * FROM missing_table"),
    "PEEK": (Spec(6, "PEEK", "reads results.json", None), "peek"),
}


class TinyQueries(Workload):
    """Queries over one table of ROWS integers; option queries = 'Q1,Q2,...'."""

    name = "tinyq"
    runs_queries = True
    title = "tiny queries"
    description = "a few queries over one table"
    source = "tests"
    mix: ClassVar[dict[str, float]] = {}
    dialects = ("sqlite",)
    default_scale = 1
    fractional_scale = True
    peeks: ClassVar[list[Any]] = []  # what PEEK saw in results.json
    slow_running: ClassVar[threading.Event] = threading.Event()  # SLOW is executing in SQLite
    folder: ClassVar[Path | None] = None

    def query_set(self) -> list[Spec]:
        names = str(self.options.get("queries", "Q1,Q2,Q3")).split(",")
        unknown = [n for n in names if n not in QUERIES]
        if unknown:
            raise UserError(f"unknown query {unknown[0]}: choose from {', '.join(QUERIES)}")
        return [QUERIES[n][0] for n in names]

    def stream(self, stream: int, dialect: str) -> list[tuple[Spec, str]]:
        chosen = [(s, QUERIES[s.name][1]) for s in self.query_set()]
        shift = stream % len(chosen) if stream else 0
        return chosen[shift:] + chosen[:shift]

    def run_query(self, connection: Any, sql: str, dialect: str) -> int:
        if sql == "peek":
            data = json.loads((self.folder / "results.json").read_text())
            self.peeks.append([(p["status"], len(p["queries"])) for p in data["points"]])
            return 0
        if sql == SLOW_SQL:  # SQLite calls this handler once the statement really runs
            connection.set_progress_handler(lambda: TinyQueries.slow_running.set() or 0, 1000)
        return len(connection.execute(sql).fetchall())

    def create(self, engine: Any, say: Any) -> LoadReport:
        started = time.monotonic()
        conn = engine.connect()
        conn.execute("CREATE TABLE t (n INTEGER)")
        conn.executemany("INSERT INTO t VALUES (?)", ((i,) for i in range(ROWS)))
        conn.commit()
        conn.close()
        return LoadReport(rows=ROWS, seconds=time.monotonic() - started, bytes=ROWS * 8)

    def session(self, engine: Any, connection: Any, user: int) -> Any:
        raise NotImplementedError


@pytest.fixture(autouse=True)
def tiny_registered(monkeypatch):
    real = checks.workload_class
    for module in (checks, run_plan, worker):  # the spec check, the run's set-up, the worker
        monkeypatch.setattr(
            module, "workload_class", lambda name: TinyQueries if name == "tinyq" else real(name)
        )
    TinyQueries.peeks = []
    TinyQueries.slow_running = threading.Event()


def sweep(tmp_path: Path, streams=(1,), **spec: Any) -> QueryRun:
    target = tmp_path / "lun"
    target.mkdir(exist_ok=True)
    folder = tmp_path / "out" / "run1"
    TinyQueries.folder = folder
    options = {"queries": spec.pop("queries", "Q1,Q2,Q3")}
    plan = DbRunPlan(
        run_id="run1",
        target=Target(label="lun", paths=(target,)),
        database=DatabaseSpec(
            engine="sqlite",
            workload="tinyq",
            scale=1,
            series=LoadSeries(kind="streams", values=tuple(streams)),
            options=options,
            **spec,
        ),
        slo=Slo(),
        duration_s=1.0,
        warmup_s=0.0,
        study={},
    )
    return QueryRun(plan, folder, Safety(), Progress(quiet=True))


def test_power_run_records_every_query_and_the_point(tmp_path):
    run = sweep(tmp_path).execute()
    assert run.status == "complete"
    [point] = run.points
    assert point.ok and point.load.kind == "streams" and point.load.value == 1
    assert [q["name"] for q in point.queries] == ["Q1", "Q2", "Q3"]
    assert [q["rows"] for q in point.queries] == [1, 7, 5]
    for query in point.queries:
        assert query["status"] == "ok" and query["error"] is None and query["stream"] == 0
        assert query["elapsed_s"] > 0 and query["cache"] == "warm"
        assert query["cpu_pct"] is None or 0 <= query["cpu_pct"] <= 100
    first = point.queries[0]
    assert (first["number"], first["title"], first["tr3476"]) == (
        1,
        "count",
        "Pricing Summary (PS)",
    )
    metrics = point.workload_metrics
    total = sum(q["elapsed_s"] for q in point.queries)
    assert metrics["total_elapsed_s"] == pytest.approx(total)
    assert metrics["queries_per_hour"] == pytest.approx(3 * 3600 / total)
    assert point.tps == pytest.approx(3 / total)
    assert point.txn_lat_ms.count == 3 and point.txn_lat_ms.max >= point.txn_lat_ms.p50
    assert run.peak["queries_per_hour"] == pytest.approx(metrics["queries_per_hour"])
    assert run.knee is None and run.slo["limit_ms"] is None
    assert run.workload["kind"] == "queries" and run.workload["cache"] == "warm"
    assert run.workload["warmup"]["queries"] == 3, "a warm run fills the caches first"
    assert run.workload["load"][0]["rows"] == ROWS
    assert [q["name"] for q in run.workload["queries"]] == ["Q1", "Q2", "Q3"]
    stored = load_run(tmp_path / "out" / "run1")
    assert stored.points[0].queries == point.queries
    assert stored.status == "complete"
    assert list((tmp_path / "lun").iterdir()) == [], "the database is removed at the end"


def test_a_query_past_the_timeout_is_recorded_and_the_run_goes_on(tmp_path):
    started = time.monotonic()
    run = sweep(tmp_path, queries="Q1,SLOW,Q3", query_timeout_s=0.4, cold=True).execute()
    assert time.monotonic() - started < 20
    [point] = run.points
    assert point.ok
    statuses = {q["name"]: q["status"] for q in point.queries}
    assert statuses == {"Q1": "ok", "SLOW": "timeout", "Q3": "ok"}
    slow = next(q for q in point.queries if q["name"] == "SLOW")
    assert "timeout" in slow["error"] and slow["rows"] is None
    assert 0.3 < slow["elapsed_s"] < 5
    assert slow["cpu_pct"] > 0, "a query that ran 0.4 s busy shows host CPU"
    assert point.workload_metrics["queries_timeout"] == 1
    assert point.workload_metrics["queries_ok"] == 2
    assert point.workload_metrics["queries_per_hour"] == pytest.approx(
        2 * 3600 / point.workload_metrics["total_elapsed_s"]
    )
    assert point.errors == 1 and point.error_messages[0].startswith("SLOW timeout")


def test_a_failing_query_is_kept_with_its_error_line(tmp_path):
    run = sweep(tmp_path, queries="BAD,Q1").execute()
    [point] = run.points
    assert run.status == "complete" and point.ok
    bad, good = point.queries
    assert bad["status"] == "failed" and "no such table" in bad["error"]
    assert "\n" not in bad["error"] and bad["rows"] is None
    assert good["status"] == "ok" and good["rows"] == 1
    assert point.workload_metrics["queries_failed"] == 1


def test_throughput_streams_run_at_once_each_in_its_own_order(tmp_path):
    run = sweep(tmp_path, streams=(1, 3)).execute()
    power, throughput = run.points
    assert power.load.value == 1 and throughput.load.value == 3
    assert {q["stream"] for q in power.queries} == {0}
    assert {q["stream"] for q in throughput.queries} == {1, 2, 3}
    assert len(throughput.queries) == 9
    orders = {s: [q["name"] for q in throughput.queries if q["stream"] == s] for s in (1, 2, 3)}
    assert orders[1] == ["Q2", "Q3", "Q1"] and orders[2] == ["Q3", "Q1", "Q2"]
    assert all(q["status"] == "ok" for q in throughput.queries)
    metrics = throughput.workload_metrics
    # the slowest stream's wall time: at least each stream's own sum of query times
    for s in (1, 2, 3):
        own = sum(q["elapsed_s"] for q in throughput.queries if q["stream"] == s)
        assert metrics["total_elapsed_s"] >= own
    assert metrics["total_elapsed_s"] <= throughput.wall_s + 0.01
    assert metrics["queries_per_hour"] == pytest.approx(9 * 3600 / metrics["total_elapsed_s"])
    assert run.peak["load"] in (1, 3)


def test_results_are_written_after_every_query(tmp_path):
    sweep(tmp_path, queries="Q1,Q2,PEEK,Q3").execute()
    # the warm-up's PEEK saw no point; the point's PEEK ran third, when results.json
    # already held the two queries before it in a point still running
    assert TinyQueries.peeks == [[], [("running", 2)]]


def test_cold_points_restart_and_drop_the_files_from_the_page_cache(tmp_path):
    run = sweep(tmp_path, streams=(1, 1), cold=True).execute()
    assert run.workload["cache"] == "cold" and "warmup" not in run.workload
    for point in run.points:
        assert point.ok and {q["cache"] for q in point.queries} == {"cold"}
        note = point.trust.notes[0]
        assert note.startswith("cold: SQLite restarted, ") and "dropped from the page cache" in note
        assert "0 files" not in note


def test_bad_query_name_stops_before_anything_is_created(tmp_path):
    with pytest.raises(UserError, match="unknown query NOPE"):
        sweep(tmp_path, queries="Q1,NOPE").execute()
    assert list((tmp_path / "lun").iterdir()) == []


def test_a_dead_engine_fails_the_point_and_keeps_the_ones_before(tmp_path, monkeypatch):
    work = sweep(tmp_path, streams=(1, 1), queries="Q1,BAD")
    real_measure = work._measure

    def measure(value: int):
        if work.run.points:  # second point: the engine is gone
            monkeypatch.setattr(work.worker.engine, "alive", lambda: False)
        return real_measure(value)

    monkeypatch.setattr(work, "_measure", measure)
    with pytest.raises(PointFailed, match="server stopped during the point"):
        work.execute()
    first, second = work.run.points
    assert first.ok and second.status == "failed"
    assert [q["name"] for q in second.queries] == ["Q1", "BAD"]
    assert work.run.status == "failed"
    assert load_run(tmp_path / "out" / "run1").points[0].ok


def test_check_query_spec_names_the_problem():
    series = LoadSeries(kind="streams", values=(1,))
    check_query_spec(DatabaseSpec(workload="tinyq", series=series))
    with pytest.raises(UserError, match="query streams"):
        check_query_spec(DatabaseSpec(workload="tinyq", series=LoadSeries("users", (1,))))
    with pytest.raises(UserError, match="streams are for query workloads"):
        check_query_spec(DatabaseSpec(workload="brokerage", series=series))
    with pytest.raises(UserError, match="above zero"):
        check_query_spec(DatabaseSpec(workload="tinyq", series=series, query_timeout_s=0))
    with pytest.raises(UserError, match="unknown query"):
        check_query_spec(DatabaseSpec(workload="tinyq", series=series, options={"queries": "Q9"}))


# --- helpers ---------------------------------------------------------------------------


def test_query_timer_interrupts_only_a_running_statement(tmp_path):
    conn = sqlite3.connect(tmp_path / "t.db", check_same_thread=False)
    with QueryTimer(conn.interrupt, 0.2) as timer, pytest.raises(sqlite3.OperationalError):
        conn.execute(SLOW_SQL).fetchall()
    assert timer.fired
    stops: list[str] = []
    with QueryTimer(lambda: stops.append("stop"), 60) as timer:
        assert conn.execute("SELECT 1").fetchall() == [(1,)]
    timer._fire()  # a timer that fires late, once the statement has ended: no effect
    assert not timer.fired and stops == []
    assert conn.execute("SELECT 2").fetchall() == [(2,)]


def test_metrics_of_a_point():
    assert geomean([1.0, 4.0]) == pytest.approx(2.0)
    assert geomean([]) is None
    records = [
        {"stream": 0, "elapsed_s": 2.0, "status": "ok"},
        {"stream": 0, "elapsed_s": 8.0, "status": "ok"},
        {"stream": 0, "elapsed_s": 5.0, "status": "timeout"},
    ]
    assert total_elapsed(records, {0: 16.0}) == 15.0, "power: the sum of query times"
    assert total_elapsed(records, {1: 9.0, 2: 12.0}) == 12.0, "throughput: the slowest stream"
    metrics = point_metrics(records, {0: 16.0}, 1)
    assert metrics["queries_per_hour"] == pytest.approx(2 * 3600 / 15)
    assert metrics["geomean_s"] == pytest.approx(4.0)
    assert metrics["queries_timeout"] == 1
    stats = elapsed_stats([0.001, 0.003, 0.002])
    assert (stats.p50, stats.max, stats.count, stats.p99) == (2.0, 3.0, 3, None)


def test_one_line_masks_passwords_and_keeps_one_line():
    line = one_line(RuntimeError("bad\nconnect to postgresql://u:secret@h/db failed\nmore"))
    assert line == "bad"
    line = one_line(RuntimeError("connect to postgresql://u:secret@h/db failed"))
    assert "secret" not in line and "***" in line


def test_window_stats_from_two_readings():
    stat = "cpu  100 0 100 700 100 0 0 0 0 0\n"
    later = "cpu  300 0 200 1200 300 0 0 0 0 0\n"
    disk = "   8       0 sda 10 0 2000 5 4 0 800 3 0 10 20 0 0 0 0\n"
    disk_later = "   8       0 sda 110 0 42000 105 4 0 800 3 0 510 520 0 0 0 0\n"
    texts = iter([(stat, disk), (later, disk_later)])
    current: list[tuple[str, str]] = []
    clock = iter([10.0, 12.0])

    def stat_text() -> str:
        current[:] = [next(texts)]
        return current[0][0]

    counters = WindowCounters(
        ["sda"],
        clock=lambda: next(clock),
        read_stat=stat_text,
        read_diskstats=lambda: current[0][1],
    )
    before, after = counters.read(), counters.read()
    stats = window_stats(before, after)
    assert stats.seconds == 2.0
    assert stats.read_bytes == 40000 * 512
    assert stats.device.read_mbps == pytest.approx(40000 * 512 / 1e6 / 2)
    assert stats.device.read_iops == pytest.approx(50)
    assert stats.cpu.util_pct == pytest.approx(100 * 300 / 1000)
    missing = window_stats(Reading(0.0, None, {}), Reading(1.0, None, {}))
    assert missing.device is None and missing.cpu.util_pct is None


@pytest.mark.skipif(shutil.which("fincore") is None, reason="fincore (util-linux) is missing")
def test_drop_page_cache_empties_the_cache_for_the_files(tmp_path):
    folder = tmp_path / "db"
    (folder / "sub").mkdir(parents=True)
    files = [folder / "a.dat", folder / "sub" / "b.dat"]
    for file in files:
        file.write_bytes(b"x" * (1 << 20))
        file.read_bytes()
    (folder / "link").symlink_to(files[0])

    def resident(path: Path) -> int:
        out = subprocess.run(
            ["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return int(out.stdout.split()[0])

    if resident(files[0]) == 0:
        pytest.skip("this file system does not keep the test file in the page cache")
    dropped = drop_page_cache([folder])
    assert (dropped.files, dropped.bytes, dropped.note) == (2, 2 << 20, None)
    assert [resident(f) for f in files] == [0, 0]
    assert drop_page_cache([tmp_path / "nothing-here"]).files == 0


def test_restart_of_sqlite_keeps_the_database(tmp_path):
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.sqlite import SQLiteEngine

    engine = SQLiteEngine(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    conn = engine.connect()
    conn.execute("CREATE TABLE k (v)")
    conn.execute("INSERT INTO k VALUES (7)")
    conn.commit()
    conn.close()
    engine.restart()
    assert engine.drop_cache().files >= 1
    assert engine.connect().execute("SELECT v FROM k").fetchall() == [(7,)]
    engine.stop()
    assert list(tmp_path.iterdir()) == []


def test_streams_stop_waiting_on_ctrl_c(tmp_path):
    """Ctrl-C while a stream runs: the running query is interrupted, the point is kept as
    failed with what finished, and the interrupt goes on up."""
    work = sweep(tmp_path, queries="Q1,SLOW,Q3", cold=True)
    main = threading.get_ident()

    def ctrl_c_soon() -> None:
        assert TinyQueries.slow_running.wait(60)  # Ctrl-C while SLOW runs, not before
        import _thread

        _thread.interrupt_main()

    assert main == threading.get_ident()
    threading.Thread(target=ctrl_c_soon, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        work.execute()
    assert time.monotonic() - started < 15
    assert work.run.status == "interrupted"
    [point] = work.run.points
    assert point.status == "failed" and point.error.startswith("interrupted (Ctrl-C)")
    assert point.queries[0]["name"] == "Q1" and point.queries[0]["status"] == "ok"
    stored = load_run(tmp_path / "out" / "run1")
    assert stored.status == "interrupted" and stored.points[0].queries[0]["status"] == "ok"
