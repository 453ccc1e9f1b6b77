"""--memory-limit on a dss run of an embedded engine (DuckDB, SQLite) caps what it caps on a
transaction run: a point's streams run in a spawned client process inside a real memory
cgroup, opening their own connections there, so with a cap well under the database file the
queries read it from the storage again, while the same warm point without the cap reads
(nearly) nothing; the queries answer the same with and without the cap."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from capped_dss import answer_digest, cgroup_possible

from dbstor.errors import UserError
from dbstor.workloads.dss import generate as gen

try:
    gen.find_generator()
except UserError as missing:
    pytest.skip(str(missing), allow_module_level=True)


@dataclass(frozen=True)
class Case:
    engine: str
    scale: float
    cap_mib: int
    queries: str | None  # None: the six default queries
    says: tuple[str, ...]  # what the cap's description says of the engine's own memory

    @property
    def count(self) -> int:
        return len(self.queries.split(",")) if self.queries else 6


CASES = [
    pytest.param(
        # a 140 MB file; DuckDB's own limit at 3/4 of the cap, so it spills first
        Case("duckdb", 0.5, 48, None, ("DuckDB's own memory limit 36 MiB",)),
        marks=pytest.mark.skipif(
            importlib.util.find_spec("duckdb") is None, reason="duckdb is not installed"
        ),
        id="duckdb",
    ),
    pytest.param(
        # a 134 MB file; a few seconds in all under the cap (Q9 and Q3 take 15 s each)
        Case("sqlite", 0.1, 16, "1,2,6,12", ("SQLite's own cache 2 MiB a connection",)),
        id="sqlite",
    ),
]

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not cgroup_possible(), reason="no memory cgroup can be made here (needs root or delegation)"
    ),
]


def run_dss(dbstor, tmp_path: Path, case: Case, name: str, *extra: str) -> dict:
    target = tmp_path / name
    target.mkdir()
    queries = ("--queries", case.queries) if case.queries else ()
    proc = dbstor(
        "run", "--engine", case.engine, "--workload", "dss", "--scale", str(case.scale),
        *queries, "--target", target, "--out", tmp_path / f"out-{name}",
        # one round: the cap is tested here, and every round of a capped point reads its
        # whole file again (held until steady: test_query_steady.py)
        "--steady", "off", "--quiet", *extra, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (folder,) = (tmp_path / f"out-{name}").iterdir()
    return json.loads((folder / "results.json").read_text())


@pytest.mark.parametrize("case", CASES)
def test_capped_dss_reads_its_file_from_the_storage(dbstor, tmp_path, case):
    capped = run_dss(dbstor, tmp_path, case, "capped", "--memory-limit", f"{case.cap_mib}MiB")
    uncapped = run_dss(dbstor, tmp_path, case, "uncapped")
    size = capped["workload"]["database_bytes"]
    assert size > 2.5 * case.cap_mib * 2**20  # the cap is well under the database file

    cap = capped["engine"]["memory_cap"]
    assert "cgroup" in cap and f"{case.cap_mib} MiB for the database" in cap
    assert "spawned" in cap and "not yet applied" not in cap
    assert "dropped from the page cache before the point" in cap
    assert all(said in cap for said in case.says), cap
    group = Path(cap.split(" group ")[1].split(" around")[0])
    assert not group.exists()  # removed with the engine
    assert "memory_cap" not in uncapped["engine"]

    # bytes the run's processes read from the storage (/proc/<pid>/io read_bytes, the
    # client process's added when it was reaped): the capped point reads the file again,
    # the warm point without the cap (after the warm-up's pass) reads next to nothing
    (point,) = capped["points"]
    read = point["engine_io"]["storage_read_bytes"]
    assert read >= 0.5 * size, (read, size)
    (warm,) = uncapped["points"]
    assert warm["engine_io"]["storage_read_bytes"] < 0.02 * size
    # and the device under the target saw them (other processes may only add to this)
    assert sum(q["read_mb"] for q in point["queries"]) * 1e6 >= 0.5 * size

    def rows(run: dict) -> dict[str, int]:
        return {q["name"]: q["rows"] for q in run["points"][0]["queries"] if q["status"] == "ok"}

    assert len(rows(capped)) == case.count and rows(capped) == rows(uncapped)


@pytest.mark.parametrize("case", CASES)
def test_capped_dss_answers_as_uncapped(tmp_path, case):
    from dbstor.drivers.streams import StreamsRun
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.registry import engine_class
    from dbstor.runs.queries.point import QueryPoint, measure_query_point
    from dbstor.telemetry.window import WindowCounters
    from dbstor.workloads.dss import DssWorkload

    settings = EngineSettings(paths={"data": [tmp_path]}, memory_limit_bytes=case.cap_mib << 20)
    engine = engine_class(case.engine)(settings)
    options = {"queries": case.queries} if case.queries else None
    workload = DssWorkload(case.scale, options=options)
    engine.start()
    try:
        workload.create(engine, lambda line: None)
        queries = {0: workload.stream(0, case.engine)}
        counters = WindowCounters()
        capped = measure_query_point(
            engine, queries, answer_digest, QueryPoint(0, 1, "warm"), counters
        )
        assert capped.fatal is None and capped.memory_cap and "cgroup" in capped.memory_cap
        assert capped.counters is not None and capped.counters.storage_read_bytes > 50e6
        assert not getattr(engine, "capped", False)  # this process's own connections: as usual
        plain = StreamsRun(
            engine, queries, answer_digest, counters, None, "warm", lambda r: None
        ).run()
        assert plain.fatal is None
        with_cap = {r["name"]: (r["status"], r["rows"]) for r in capped.records}
        without = {r["name"]: (r["status"], r["rows"]) for r in plain.records}
        assert len(with_cap) == case.count and with_cap == without
        assert all(status == "ok" for status, _ in with_cap.values())
    finally:
        engine.stop()
