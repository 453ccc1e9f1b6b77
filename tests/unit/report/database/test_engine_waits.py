"""The report's "The engine's own waits": shown for a run whose points carry
`engine_window` (per event waits, time waited and mean wait, the rates and ratios, the
reasons for dashes), absent for runs without it, names escaped."""

from __future__ import annotations

import re

from dbstor.report.database.waits import waits_block
from dbstor.report.html import render_report
from dbstor.report.kit.fmt import DASH


def oracle_like(waits: float, wait_ms: float | None, commits: float | None) -> dict:
    return {
        "seconds": 60.0,
        "waits": {
            "db file sequential read": {
                "waits": waits,
                "wait_ms": wait_ms,
                "mean_ms": wait_ms / waits if wait_ms is not None else None,
            },
            "log file sync": {"waits": 0.0, "wait_ms": 0.0, "mean_ms": None},
            "<b>odd</b>": {"waits": 3.0, "wait_ms": 3.0, "mean_ms": 1.0},
        },
        "rates": {"user commits/s": commits, "redo bytes/s": 2_500_000.0},
        "ratios": {},
        "why_null": {} if commits else {"user commits/s": "v$sysstat has no 'user commits'"},
    }


def rows_of(html: str) -> list[list[str]]:
    out = []
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        out.append(
            [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        )
    return out


def test_the_waits_table_shows_each_points_events_means_and_rates(postgres_run):
    run = postgres_run
    first, second = run.points[0], run.points[1]
    first.engine_window = oracle_like(6000.0, 46_140.0, 117.5)
    second.engine_window = oracle_like(12000.0, 120_000.0, None)
    html = waits_block(run)
    assert html.startswith("<h3>The engine's own waits</h3>")
    rows = rows_of(html)
    reads = [r for r in rows if r[1:2] == ["db file sequential read"]]
    assert reads[0][2:] == ["6,000", "100", "46.1", "7.69 ms"]
    assert reads[1][2:] == ["12,000", "200", "120", "10.0 ms"]
    assert all(r[1] != "log file sync" for r in rows if len(r) > 1)  # no wait in any point
    assert "No wait in any point: log file sync." in html
    assert "&lt;b&gt;odd&lt;/b&gt;" in html and "<b>odd</b>" not in html
    head = rows.index(["load", "redo bytes/s", "user commits/s"])
    assert rows[head + 1][1:] == ["2,500,000", "118"]
    assert rows[head + 2][1:] == ["2,500,000", DASH]  # null, with its reason below
    assert "v$sysstat has no &#x27;user commits&#x27;" in html


def test_a_run_without_the_figures_has_no_such_table(postgres_run):
    assert waits_block(postgres_run) == ""
    assert "own waits" not in render_report([postgres_run], {})


def test_the_whole_report_places_it_after_the_engine_io(postgres_run):
    for point in postgres_run.points:
        point.engine_window = oracle_like(100.0, 500.0, 10.0)
    html = render_report([postgres_run], {})
    assert html.index("Engine I/O per transaction") < html.index("The engine's own waits")
    assert html.index("The engine's own waits") < html.index("<h3>The client</h3>")


def test_a_reason_is_listed_only_for_a_figure_the_table_shows(postgres_run):
    window = oracle_like(100.0, 500.0, 10.0)
    window["why_null"] = {"log file sync": "timing off", "<b>odd</b>": "odd timing off"}
    postgres_run.points[0].engine_window = window
    html = waits_block(postgres_run)
    assert "No wait in any point: log file sync." in html and "timing off" in html
    assert "<li>timing off</li>" not in html  # log file sync's row is not shown
    assert "<li>odd timing off</li>" in html


def test_awr_snapshots_asked_for_are_listed_per_point_with_the_report_to_run(postgres_run):
    first, second = postgres_run.points[0], postgres_run.points[1]
    first.engine_window = oracle_like(100.0, 500.0, 10.0) | {
        "awr": {
            "begin_snap_id": 41,
            "end_snap_id": 42,
            "report": "@?/rdbms/admin/awrrpt.sql with begin_snap 41, end_snap 42",
        }
    }
    second.engine_window = oracle_like(100.0, 500.0, 10.0) | {
        "awr": {"begin_snap_id": None, "end_snap_id": None, "why": "no AWR snapshot: <ORA>"}
    }
    html = waits_block(postgres_run)
    assert "AWR snapshots at each point's edges (asked for):" in html
    assert "snapshots 41 to 42 (@?/rdbms/admin/awrrpt.sql with begin_snap 41, end_snap 42)" in html
    assert "no AWR snapshot: &lt;ORA&gt;" in html
    first.engine_window.pop("awr")
    second.engine_window.pop("awr")
    assert "AWR" not in waits_block(postgres_run)  # off unless asked
