"""--memory-limit on a query run of an embedded engine (DuckDB, SQLite) where no memory
cgroup can be made: one line says so and the run goes on as without the cap (in dbstor's
own process); a result's memory_cap travels from the worker to the run."""

from __future__ import annotations

import importlib.util
import time
from typing import Any, ClassVar

import pytest

from dbstor.engines import cgroup
from dbstor.results.model import CpuStats
from dbstor.runs.database import plan as run_plan
from dbstor.runs.database.plan import DbRunPlan
from dbstor.runs.progress import Progress
from dbstor.runs.queries import checks, worker
from dbstor.runs.queries.point import QueryOutcome
from dbstor.runs.queries.run import QueryRun
from dbstor.study.model import DatabaseSpec, LoadSeries, Slo, Target
from dbstor.testfiles import Safety
from dbstor.workloads.base import LoadReport, Workload
from dbstor.workloads.dss.catalog import QuerySpec


class Counts(Workload):
    """Two queries over one small table, for DuckDB and SQLite."""

    name = "counts"
    runs_queries = True
    title = "counts"
    description = "two queries over one table"
    source = "tests"
    mix: ClassVar[dict[str, float]] = {}
    dialects = ("duckdb", "sqlite")
    default_scale = 1

    def query_set(self) -> list[Any]:
        return []

    def stream(self, stream: int, dialect: str) -> list[tuple[Any, str]]:
        count, small = QuerySpec(1, "Q1", "count", None), QuerySpec(2, "Q2", "small", None)
        return [(count, "SELECT count(*) FROM t"), (small, "SELECT n FROM t WHERE n < 3")]

    def run_query(self, connection: Any, sql: str, dialect: str) -> int:
        return len(connection.execute(sql).fetchall())

    def create(self, engine: Any, say: Any) -> LoadReport:
        started = time.monotonic()
        conn = engine.connect()
        conn.execute(
            "CREATE TABLE t AS WITH RECURSIVE r(n) AS "
            "(SELECT 0 UNION ALL SELECT n + 1 FROM r WHERE n < 999) SELECT n FROM r"
        )
        conn.close()
        return LoadReport(rows=1000, seconds=time.monotonic() - started, bytes=8000)

    def session(self, engine: Any, connection: Any, user: int) -> Any:
        raise NotImplementedError


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_no_cgroup_one_line_and_the_run_goes_on_uncapped(tmp_path, monkeypatch, engine):
    if engine == "duckdb" and importlib.util.find_spec("duckdb") is None:
        pytest.skip("duckdb is not installed")
    for module in (checks, run_plan, worker):
        monkeypatch.setattr(module, "workload_class", lambda name: Counts)
    monkeypatch.setattr(cgroup, "cgroup_mounts", lambda: [])  # a host without a memory cgroup
    said: list[str] = []
    progress = Progress(quiet=True)
    monkeypatch.setattr(progress, "say", said.append)
    target = tmp_path / "lun"
    target.mkdir()
    plan = DbRunPlan(
        run_id="run1",
        target=Target(label="lun", paths=(target,)),
        database=DatabaseSpec(
            engine=engine,
            workload="counts",
            scale=1,
            series=LoadSeries(kind="streams", values=(1,)),
            memory_limit_bytes=48 << 20,
        ),
        slo=Slo(),
        duration_s=1.0,
        warmup_s=0.0,
        study={},
    )
    run = QueryRun(plan, tmp_path / "out" / "run1", Safety(), progress).execute()
    line = (
        "memory limit not applied (no cgroup memory controller is mounted): "
        "the run goes on uncapped"
    )
    assert said.count(line) == 1 and line in run.notes
    assert run.status == "complete"
    assert [q["rows"] for q in run.points[0].queries] == [1, 3]
    assert run.engine["memory_cap"] == "none: no cgroup memory controller is mounted"


def test_the_cap_as_applied_travels_with_the_outcome():
    outcome = QueryOutcome(
        records=[], stream_s={0: 1.0}, wall_s=1.0, fatal=None, counters=None, samples=[],
        cpu=CpuStats(), device=None, started_at=0.0,
        memory_cap="cgroup v2 group /sys/fs/cgroup/x around the client processes: ...",
    )  # fmt: skip
    assert QueryOutcome.from_dict(outcome.to_dict()).memory_cap == outcome.memory_cap
    older = {k: v for k, v in outcome.to_dict().items() if k != "memory_cap"}
    assert QueryOutcome.from_dict(older).memory_cap is None  # a worker from before
