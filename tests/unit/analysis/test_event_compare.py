"""Two targets' event impacts side by side in a comparison (comparison.json `events`)."""

from __future__ import annotations

from dataclasses import replace

from dbstor.analysis.compare import compare_runs
from dbstor.results.model import CpuStats, LatencyStats, Load, Point, Run


def point(qd: int, iops: float, p99: float) -> Point:
    return Point(
        load=Load("iodepth", qd),
        duration_s=10,
        read_iops=iops,
        write_iops=0.0,
        read_lat_ms=LatencyStats(p99=p99, count=10_000),
        cpu=CpuStats(util_pct=50.0),
    )


def run(label: str, points: list[Point]) -> Run:
    return Run(
        run_id=f"r-{label}", tool_version="0", study={"duration_s": 10},
        target={"label": label, "facts": {}}, engine={"name": "fio"},
        workload={"name": "io-oltp", "file_size_bytes": 1}, host={},
        slo={"metric": "read_lat_p99_ms", "limit_ms": 1.0}, created_at="", points=points,
    )  # fmt: skip


HDD = run("HDD", [point(1, 1_000, 0.5), point(4, 2_000, 1.5)])
FLASH = run("FLASH", [point(1, 10_000, 0.1), point(4, 30_000, 0.2)])


def event(kind: str, at: float, impact: dict | None, ok: bool = True) -> dict:
    return {"kind": kind, "at_s": at, "ok": ok, "repeat": 1, "impact": impact}


def dip(depth: float, started: int, recovered: int | None, p99: float | None = None) -> dict:
    return {
        "dip": {"depth_pct": depth, "started_at_s": started},
        "recovered_at_s": recovered,
        "back_after_s": None if recovered is None else recovered - started,
        "latency_p99": p99,
        "baseline_p99_ms": 1.0,
    }


def with_events(run, *events_by_point):
    points = [
        replace(p, events=list(e) or None)
        for p, e in zip(run.points, events_by_point, strict=False)
    ]
    return replace(run, points=points + run.points[len(points) :])


def test_each_event_is_set_side_by_side_in_one_line():
    legacy = with_events(HDD, [event("snapshot", 5, dip(38.0, 5, 9, 12.5))])
    flash = with_events(FLASH, [event("snapshot", 5, dip(3.0, 5, 6))])
    (row,) = compare_runs([legacy, flash])["events"]
    assert row["text"] == "snapshot at 5s: dip 38% for 4 s on HDD, 3% for 1 s on FLASH"
    assert row["runs"]["HDD"]["latency_p99_ms"] == 12.5 and row["load"]["value"] == 1


def test_no_dip_a_missing_recovery_a_failed_event_and_a_missing_one_are_said():
    no_dip = {"dip": None, "recovered_at_s": None, "back_after_s": None}
    legacy = with_events(HDD, [event("crash", 3, no_dip), event("throttle", 6, dip(90.0, 6, None))])
    flash = with_events(
        FLASH, [event("crash", 3, dip(100.0, 3, 7)), event("throttle", 6, None, False)]
    )
    crash, throttle = compare_runs([legacy, flash])["events"]
    assert crash["text"] == "crash at 3s: no dip on HDD, dip 100% for 4 s on FLASH"
    assert throttle["text"] == (
        "throttle at 6s: dip 90% and not back within the point on HDD, "
        "not measured on FLASH (the event failed)"
    )
    only = compare_runs([legacy, FLASH])["events"]
    assert only[0]["text"].endswith("no such event on FLASH")


def test_runs_without_events_have_none():
    assert compare_runs([HDD, FLASH])["events"] is None


def test_a_dip_cut_short_by_the_next_event_says_so():
    cut = dip(60.0, 3, None) | {"next_event_at_s": 6}
    legacy = with_events(HDD, [event("checkpoint", 3, cut)])
    flash = with_events(FLASH, [event("checkpoint", 3, dip(8.0, 3, 4))])
    (row,) = compare_runs([legacy, flash])["events"]
    assert row["text"] == (
        "checkpoint at 3s: dip 60% and not back before the next event on HDD, 8% for 1 s on FLASH"
    )
