"""An event's impact from per-second figures: baseline, dip, recovery and the device."""

from __future__ import annotations

from collections import Counter

from dbstor.drivers.tally import bin_ns
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


def seconds_of(*latencies_ms: list[float]) -> list[Counter]:
    """Per-second latency bins (as the users keep them) from each second's latencies."""
    return [Counter(bin_ns(ms * 1e6) for ms in second) for second in latencies_ms]


def test_the_highest_per_second_p99_comes_from_each_seconds_own_bins():
    """Second 5 has 99 fast transactions and one of 400 ms: its mean stays near 5 ms, its
    p99 is the slow one's bin; the baseline's p99 comes from its seconds' bins merged."""
    tps = [100, 100, 100, 100, 40, 100, 100, 100]
    fast = [1.0] * 100
    bins = seconds_of(fast, fast, fast, fast, [2.0] * 39 + [50.0], [1.0] * 98 + [400.0] * 2,
                      fast, fast)  # fmt: skip
    impact = event_impact(record(4.0, 5.0), tps, [], [], "TPS", (), bins)["impact"]
    assert impact["dip"]["started_at_s"] == 4 and impact["recovered_at_s"] == 5
    assert impact["latency_p99"] == impact["dip"]["highest_p99_ms"]
    assert 49 < impact["latency_p99"] < 51 and impact["latency_p99_at_s"] == 4
    assert 0.9 < impact["baseline_p99_ms"] < 1.1
    slow = event_impact(record(5.0, 5.2), tps, [], [], "TPS", (), bins)["impact"]
    assert slow["dip"] is None, "no throughput dip, yet the slow second is found"
    assert 390 < slow["latency_p99"] < 410 and slow["latency_p99_at_s"] == 5


def test_fio_points_have_no_per_second_p99_and_say_why():
    impact = event_impact(record(3.0, 4.0), [100] * 6, [], [], "IOPS")["impact"]
    assert impact["latency_p99"] is None and "database points only" in impact["latency_p99_reason"]


def test_the_dip_search_ends_where_the_next_event_begins():
    """A checkpoint at 3 s with no dip of its own, a crash at 6 s: the crash's dip is not
    the checkpoint's."""
    tps = [100, 100, 100, 99, 98, 100, 0, 0, 50, 100]
    checkpoint = event_impact(record(3.0, 4.5), tps, [], [], "TPS", [(6.0, 8.0)])["impact"]
    assert checkpoint["dip"] is None
    crash = event_impact(record(6.0, 8.0), tps, [], [], "TPS", [(3.0, 4.5)])["impact"]
    assert crash["dip"]["started_at_s"] == 6 and crash["recovered_at_s"] == 9
    cut = event_impact(record(3.0, 4.5), [100, 100, 100, 50, 50, 50, 0], [], [], "TPS",
                       [(6.0, 6.5)])["impact"]  # fmt: skip
    assert (
        cut["recovered_at_s"] is None and "before the next event (at 6s)" in cut["recovery_reason"]
    )


def test_a_crash_line_says_recovery_and_what_was_lost():
    details = {
        "ready_s": 3.18, "first_commit_s": 3.22, "duration_s": 3.2,
        "durability": {"transaction": "New-Order", "acknowledged": 1342, "lost": 0,
                       "consistency_broken": {}},
    }  # fmt: skip
    line = impact_line(record(6.0, 9.2, "crash") | {"details": details, "impact": None})
    assert "server back after 3.18s, first commit after 3.22s" in line
    assert "0 of 1,342 acknowledged New-Orders lost; consistency holds" in line
    broken = details | {"durability": {**details["durability"], "lost": None, "reason": "x",
                                        "consistency_broken": {"2: d_next_o_id": 1}}}  # fmt: skip
    line = impact_line(record(6.0, 9.2, "crash") | {"details": broken, "impact": None})
    assert "lost: not known (x)" in line and "BROKEN: 2: d_next_o_id" in line
    checkpoint = {"statement": "CHECKPOINT", "duration_s": 2.26, "answer": None}
    line = impact_line(record(3.0, 5.3, "checkpoint") | {"details": checkpoint, "impact": None})
    assert "CHECKPOINT took 2.26s" in line


def test_a_noisy_baseline_widens_the_band_so_its_noise_is_neither_dip_nor_missed_recovery():
    # 2-user database seconds vary by about 8% (as in a real PostgreSQL brokerage point):
    # a throttle's dip is found, and the first second back inside that spread is recovery
    tps = [2054, 1856, 2150, 1909, 1788, 1883, 26, 23, 1790, 2024, 2073]
    out = event_impact(record(6.0, 8.0), tps, [], [], "TPS")
    impact = out["impact"]
    assert 5.0 < impact["band_pct"] < 20.0
    assert impact["dip"]["started_at_s"] == 6 and impact["recovered_at_s"] == 8
    assert f"back within {impact['band_pct']:g}%" in impact_line(out)


def test_a_quiet_baseline_keeps_the_5_percent_band():
    tps = [100, 101, 99, 100, 93, 94, 100]
    out = event_impact(record(4.0, 5.0), tps, [], [], "IOPS")
    assert out["impact"]["band_pct"] == 5.0
    assert out["impact"]["dip"]["started_at_s"] == 4 and out["impact"]["recovered_at_s"] == 6
