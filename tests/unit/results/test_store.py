import json

import pytest

from dbstor.results.model import CpuStats, LatencyStats, Load, Point, Run, Trust
from dbstor.results.store import append_samples, load_run, migrate, read_samples, save_run


def make_run() -> Run:
    point = Point(
        load=Load("iodepth", 8),
        duration_s=30,
        read_iops=1000.0,
        read_lat_ms=LatencyStats(p99=0.5, count=5),
        cpu=CpuStats(util_pct=12.0),
        trust=Trust(steady=True, notes=["n"]),
    )
    return Run(
        run_id="r1",
        tool_version="0.1.0",
        study={},
        target={"label": "T"},
        engine={"name": "fio"},
        workload={"name": "io-oltp"},
        host={},
        slo={"metric": "read_lat_p99_ms", "limit_ms": 1.0},
        created_at="now",
        points=[point],
    )


def test_round_trip(tmp_path):
    run = make_run()
    save_run(tmp_path, run)
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["schema"] == 1 and next(iter(data)) == "schema"
    assert data["points"][0]["write_lat_ms"] is None  # not applicable: null, never invented
    back = load_run(tmp_path)
    assert back == run
    assert not list(tmp_path.glob(".*.tmp"))


def test_newer_schema_is_refused_and_missing_schema_rejected():
    with pytest.raises(ValueError, match="upgrade dbstor"):
        migrate({"schema": 99})
    with pytest.raises(ValueError, match="not a dbstor results.json"):
        migrate({})


def test_samples_append_and_read(tmp_path):
    append_samples(
        tmp_path, [{"run_id": "r1", "point": 1, "t_s": 1.0, "dev_read_iops": 10.5, "unknown": 1}]
    )
    append_samples(tmp_path, [{"run_id": "r1", "point": 2, "t_s": 2.0, "dev_read_iops": None}])
    rows = read_samples(tmp_path)
    assert [r["point"] for r in rows] == [1, 2]
    assert rows[0]["dev_read_iops"] == 10.5 and rows[1]["dev_read_iops"] is None
    assert (tmp_path / "samples.csv").read_text().count("run_id") == 1


def test_a_point_whose_engine_counters_went_back_loads_with_the_reasons(tmp_path):
    """A crash event restarts the server mid-point: its counters go back, the figures are
    null with `nulled` saying why, and the folder loads again (a reader that wanted only
    numbers in engine_io refused it)."""
    run = make_run()
    why = {"physical_reads": "the engine's physical_reads (its counter went back)"}
    run.points[0].engine_io = {"engine_physical_reads_per_txn": None, "nulled": why}
    save_run(tmp_path, run)
    assert load_run(tmp_path).points[0].engine_io["nulled"] == why
    data = json.loads((tmp_path / "results.json").read_text())
    data["points"][0]["engine_io"]["nulled"] = {"physical_reads": 3}
    (tmp_path / "results.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="engine_io.nulled: expected an object of texts"):
        load_run(tmp_path)
