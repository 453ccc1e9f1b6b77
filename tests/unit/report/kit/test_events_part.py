"""The Events part of a run's section: nothing without events; with them, the timeline
marks each one and the table says what the load felt, in the reader's words."""

from __future__ import annotations

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
