"""The Events part of a run's section: nothing without events; with them, the timeline
marks each one and the table says what the load felt, in the reader's words."""

from __future__ import annotations

from collections import Counter

from dbstor.drivers.tally import bin_ns
from dbstor.events.impact import event_impact
from dbstor.report.kit.events import events_html


def throttle_event() -> dict:
    record = {
        "kind": "throttle", "where": "--event throttle@3s", "at_s": 3.0, "for_s": 2.0,
        "settings": {"iops": 100.0}, "started_s": 2.6, "ended_s": 4.6, "ok": True,
        "error": None, "details": {}, "name": "point-01-e1", "window_shift_s": 0.4,
    }  # fmt: skip
    iops = [3000.0, 3000.0, 2000.0, 300.0, 300.0, 3000.0, 3000.0]
    return event_impact(record, iops, [], [], "IOPS") | {"repeat": 1}


def failed_command() -> dict:
    return {
        "kind": "command", "at_s": 5.0, "for_s": None, "started_s": 5.0, "ended_s": 5.1,
        "ok": False, "error": "<script> exited with status 3", "repeat": 1,
        "impact": None, "impact_reason": "fewer than 2 measured seconds before the event",
    }  # fmt: skip


def test_a_run_without_events_has_no_events_part(fc, samples):
    assert events_html(fc, samples[fc.run_id]) == ""


def test_each_event_is_marked_and_its_impact_told(fc):
    fc.points[0].events = [throttle_event(), failed_command()]
    warmup = fc.points[0].warmup_s
    rows = [
        {"run_id": fc.run_id, "point": 1, "repeat": 1, "phase": "measure",
         "t_s": warmup + s + 1.001, "io_read_iops": v, "dev_read_await_ms": 0.1}
        for s, v in enumerate([3000, 3000, 2000, 300, 300, 3000, 3000])
    ]  # fmt: skip
    html = events_html(fc, rows)
    assert html.startswith('<h3 id="events">Events</h3>')
    assert "throttle ▸" in html and "◂ ends" in html and "command ▸" in html
    assert "90% (lowest 300 at 3 s)" in html and "3,000 IOPS" in html
    assert "fio&#x27;s own measured window, which began 0.40 s after" in html
    assert "&lt;script&gt; exited with status 3" in html and "<script>" not in html
    assert "fewer than 2 measured seconds" in html


def test_a_database_point_shows_each_seconds_p99_and_what_a_crash_did(fc):
    """The timeline draws the per-second p99 where the samples have it; the table gives the
    p99 before and at its highest second, and the crash's recovery and durability."""
    record = {
        "kind": "crash", "where": "--event crash@3s", "at_s": 3.0, "for_s": None,
        "started_s": 3.0, "ended_s": 6.2, "ok": True, "error": None, "name": "point-01-e1",
        "details": {"ready_s": 3.1, "first_commit_s": 3.2, "durability": {
            "transaction": "New-Order", "acknowledged": 500, "lost": 0,
            "consistency_broken": {}}},
    }  # fmt: skip
    tps = [200.0, 200.0, 200.0, 20.0, 0.0, 0.0, 180.0, 200.0]
    bins = [Counter({bin_ns(5e6): 100}) for _ in tps]
    bins[3] = Counter({bin_ns(5e6): 19, bin_ns(900e6): 1})
    fc.points[0].events = [event_impact(record, tps, [], [], "TPS", (), bins) | {"repeat": 1}]
    warmup = fc.points[0].warmup_s
    rows = [
        {"run_id": fc.run_id, "point": 1, "repeat": 1, "phase": "measure",
         "t_s": warmup + s + 1.001, "tps": v, "txn_lat_mean_ms": 5.0,
         "txn_lat_p99_ms": 900.0 if s == 3 else 5.0}
        for s, v in enumerate(tps)
    ]  # fmt: skip
    html = events_html(fc, rows)
    assert "p99 transaction latency (ms)" in html and "mean transaction latency" not in html
    assert "4.9 → 897.0" in html  # the baseline's p99, the highest second's (2% bins)
    assert "server back after 3.1s, first commit after 3.2s" in html
    assert "0 of 500 acknowledged New-Orders lost; consistency holds" in html
