"""An event's impact from per-second figures: baseline, dip, recovery and the device."""

from __future__ import annotations

from dbstor.events.impact import device_per_second, event_impact, impact_line


def record(started: float, ended: float | None, kind: str = "throttle") -> dict:
    return {"kind": kind, "at_s": started, "for_s": None, "started_s": started,
            "ended_s": ended, "ok": True}  # fmt: skip


def test_a_dip_and_its_recovery_are_found_at_their_seconds():
    tps = [100, 102, 98, 100, 30, 20, 25, 97, 101, 100]
    lat = [1.0, 1.0, 1.0, 1.0, 5.0, 9.0, 6.0, 1.0, 1.0, 1.0]
    rows = [{"dev_write_mbps": 10.0}] * 4 + [{"dev_write_mbps": 2.0}] * 3 + [None] * 3
    out = event_impact(record(4.0, 7.0), tps, lat, rows, "TPS")
    impact = out["impact"]
    assert impact["baseline"]["throughput"] == 100.0 and impact["baseline"]["seconds"] == [
        0,
        1,
        2,
        3,
    ]
    assert impact["dip"]["started_at_s"] == 4 and impact["dip"]["lowest"] == 20
    assert impact["dip"]["lowest_at_s"] == 5 and impact["dip"]["depth_pct"] == 80.0
    assert impact["dip"]["highest_latency_mean_ms"] == 9.0
    assert impact["recovered_at_s"] == 7 and impact["back_after_s"] == 3.0
    assert impact["back_after_end_s"] == 0.0
    assert impact["device"]["during"]["dev_write_mbps"] == 2.0
    assert impact["device"]["baseline"]["dev_write_mbps"] == 10.0
    assert "dip 80%" in impact_line(out) and "back within 5% 3s" in impact_line(out)


def test_no_dip_is_said_and_recovery_is_null_not_zero():
    out = event_impact(record(3.0, 3.0), [100] * 8, [], [], "IOPS")
    assert out["impact"]["dip"] is None and out["impact"]["recovered_at_s"] is None
    assert "no dip" in impact_line(out)


def test_never_back_within_the_window_says_so():
    out = event_impact(record(3.0, 4.0), [100, 100, 100, 50, 50, 60], [], [], "IOPS")
    assert out["impact"]["recovered_at_s"] is None
    assert "not back within 5%" in out["impact"]["recovery_reason"]


def test_too_few_seconds_before_gives_no_baseline_with_a_reason():
    out = event_impact(record(1.2, 2.0), [100, 100, 50, 100], [], [], "IOPS")
    assert out["impact"] is None and "fewer than 2" in out["impact_reason"]


def test_the_baseline_leaves_out_other_events_seconds():
    tps = [100, 100, 10, 10, 100, 100, 100, 40, 100]
    out = event_impact(record(7.0, 8.0), tps, [], [], "IOPS", busy=[(2.0, 3.5)])
    assert 2 not in out["impact"]["baseline"]["seconds"]
    assert out["impact"]["baseline"]["throughput"] == 100.0


def test_an_event_that_did_not_happen_has_no_impact():
    out = event_impact(record(3.0, None) | {"started_s": None}, [100] * 5, [], [], "IOPS")
    assert out["impact"] is None


def test_samples_map_to_measured_seconds_after_the_warm_up():
    samples = [{"t_s": t + 0.001, "dev_write_mbps": t} for t in range(1, 6)]
    rows = device_per_second(samples, 2.0, 3)
    assert [r["dev_write_mbps"] for r in rows] == [3, 4, 5]
