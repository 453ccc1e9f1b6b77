"""--memory-limit on DuckDB caps what SQLite's cap caps: a dss point's streams run in a
client process inside a real memory cgroup, so with a cap well under the database file the
queries read it from the storage again, while the same warm point without the cap reads
(nearly) nothing; the queries answer the same with and without the cap."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from capped_dss import answer_digest, cgroup_possible

from dbstor.errors import UserError
from dbstor.workloads.dss import generate as gen

SCALE = 0.5  # a 140 MB database file, loaded in about 10 s
CAP = "48MiB"

try:
    gen.find_generator()
except UserError as missing:
    pytest.skip(str(missing), allow_module_level=True)
if importlib.util.find_spec("duckdb") is None:
    pytest.skip("duckdb is not installed", allow_module_level=True)


pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not cgroup_possible(), reason="no memory cgroup can be made here (needs root or delegation)"
    ),
]


def run_dss(dbstor, tmp_path: Path, name: str, *extra: str) -> dict:
    target = tmp_path / name
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "duckdb", "--workload", "dss", "--scale", str(SCALE),
        "--target", target, "--out", tmp_path / f"out-{name}", "--quiet", *extra, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (folder,) = (tmp_path / f"out-{name}").iterdir()
    return json.loads((folder / "results.json").read_text())


def test_capped_duckdb_reads_its_file_from_the_storage(dbstor, tmp_path):
    capped = run_dss(dbstor, tmp_path, "capped", "--memory-limit", CAP)
    uncapped = run_dss(dbstor, tmp_path, "uncapped")
    size = capped["workload"]["database_bytes"]
    assert size > 2.5 * 48 * 2**20  # the cap is well under the database file

    cap = capped["engine"]["memory_cap"]
    assert "cgroup" in cap and "48 MiB for the database" in cap and "spawned" in cap
    assert "DuckDB's own memory limit 36 MiB" in cap  # 3/4 of the cap: it spills first
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

    assert len(rows(capped)) == 6 and rows(capped) == rows(uncapped)


def test_capped_duckdb_answers_as_uncapped(tmp_path):
    from dbstor.drivers.streams import StreamsRun
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.duckdb import DuckDBEngine
    from dbstor.runs.queries.point import QueryPoint, measure_query_point
    from dbstor.telemetry.window import WindowCounters
    from dbstor.workloads.dss import DssWorkload

    settings = EngineSettings(paths={"data": [tmp_path]}, memory_limit_bytes=48 << 20)
    engine = DuckDBEngine(settings)
    workload = DssWorkload(SCALE)
    engine.start()
    try:
        workload.create(engine, lambda line: None)
        queries = {0: workload.stream(0, "duckdb")}
        counters = WindowCounters()
        capped = measure_query_point(
            engine, queries, answer_digest, QueryPoint(0, 1, "warm"), counters
        )
        assert capped.fatal is None and capped.memory_cap and "cgroup" in capped.memory_cap
        assert capped.counters is not None and capped.counters.storage_read_bytes > 50e6
        plain = StreamsRun(
            engine, queries, answer_digest, counters, None, "warm", lambda r: None
        ).run()
        assert plain.fatal is None
        with_cap = {r["name"]: (r["status"], r["rows"]) for r in capped.records}
        without = {r["name"]: (r["status"], r["rows"]) for r in plain.records}
        assert len(with_cap) == 6 and with_cap == without
        assert all(status == "ok" for status, _ in with_cap.values())
    finally:
        engine.stop()
