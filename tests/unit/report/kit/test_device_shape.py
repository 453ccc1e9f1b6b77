"""The workload's shape at the device in words: parts only where measured, the queue per
drive only with a `drives` fact, the share of a path only with a link speed."""

from __future__ import annotations

from dbstor.report.kit.device_shape import drives_of, shape_note, shape_parts
from dbstor.results.model import DeviceStats, Load, Point, Run


def run_with(facts: dict | None = None, paths: dict | None = None) -> Run:
    target = {"facts": facts or {}, "system": {"devices": {}, "paths": paths or {}}}
    return Run("r", "0", {}, target, {}, {}, {}, {}, "now")


def point(**device) -> Point:
    return Point(load=Load("users", 4), duration_s=10, device=DeviceStats(name="sdb", **device))


def test_the_shape_of_a_read_mostly_point_with_its_queue_per_drive():
    shaped = point(
        read_share=0.91, read_kib_mean=8.1, write_kib_mean=16.0, queue_depth_mean=3.2,
        read_mbps=50.0, write_mbps=10.0,
    )  # fmt: skip
    run = run_with({"drives": 8})
    assert drives_of(run) == 8
    assert shape_note(run, shaped) == (
        "91% reads; mean read 8.1 KiB, write 16 KiB; queue 3.2 (0.4 a drive of 8)"
    )


def test_nothing_measured_says_nothing_and_an_idle_queue_is_not_zero():
    assert shape_parts(None) == [] and shape_parts(DeviceStats(name="x")) == []
    assert shape_note(run_with(), point()) == ""
    idle = point(read_share=0.0, write_kib_mean=44.0, queue_depth_mean=0.0)
    assert shape_note(run_with({"drives": 75}), idle) == (
        "0% reads; mean write 44 KiB; queue under 0.01"
    ), "no per-drive share of a queue too small to state"


def test_a_drive_count_that_is_not_a_count_is_ignored():
    for bad in ("75x146GB", True, 0, -2, None):
        assert drives_of(run_with({"drives": bad})) is None


def test_with_a_link_speed_the_points_mb_per_s_is_a_share_of_the_path():
    busy = point(read_share=1.0, read_kib_mean=64.0, read_mbps=624.0, write_mbps=0.0)
    run = run_with(paths={"link_mbps": 800.0, "link": "FC host3 8 Gbit"})
    assert shape_note(run, busy) == "100% reads; mean read 64 KiB; 78% of the path's 800 MB/s link"
    assert "of the path" not in shape_note(run_with(paths={"link_reason": "x"}), busy)


def test_write_bursts_are_named_below_the_points_table():
    from dbstor.report.kit.tables import point_notes

    bursts = {"count": 3, "period_s": 9.0, "mb_mean": 41.2, "peak_mbps": 52.0, "base_mbps": 4.1}
    p = point(read_share=0.5, queue_depth_mean=1.0)
    p.write_bursts = bursts
    run = run_with()
    run.points = [p]
    assert (
        "3 write bursts of 41 MB every 9 s (peak 52 MB/s over 4.1 MB/s between) in the "
        "device&#x27;s per-second writes" in point_notes(run)
    )
    assert "bursts" not in shape_note(run, p)
    assert "queue 1 (under 0.01 a drive of 120)" in shape_note(run_with({"drives": 120}), p)
