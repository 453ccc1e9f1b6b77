"""The client table: NOPM, open-loop queueing and client cost, from recorded points."""

from __future__ import annotations

import copy

from dbstor.report.database.client import client_caption, client_table
from dbstor.results.model import LatencyStats, Load


def test_open_loop_and_workload_figures_are_shown(sqlite_run):
    run = copy.deepcopy(sqlite_run)
    point = run.points[0]
    point.load = Load(kind="rate", value=400, jobs=8)
    point.workload_metrics = {"nopm": 12345.0, "tpm": 27000.0}
    point.open_loop = {
        "arrivals": 1200,
        "finished": 1100,
        "backlog": 100,
        "finished_share": 1100 / 1200,
    }
    point.txn_lat_ms = LatencyStats(mean=40.0, p99=250.0, count=1100)
    point.service_lat_ms = LatencyStats(mean=2.0, p99=9.5, count=1100)
    point.client = {
        "processes": 2,
        "cores": 0.21,
        "cpu_ms_per_txn": 0.456,
        "cpu_us_per_io": 12.5,
        "rss_per_user_kib": 140.0,
    }
    html = client_table(run)
    assert "NOPM" in html and "12,345" in html
    assert "91.7%" in html and ">100<" in html
    assert "250" in html and "9.5" in html
    assert "0.456" in html and "140" in html
    assert "from the moment each was due" in client_caption(run)


def test_closed_loop_run_has_no_open_loop_columns(sqlite_run):
    html = client_table(sqlite_run)
    assert "of arrivals" not in html and "client|" not in html and "processes" in html
    assert "from the moment each was due" not in client_caption(sqlite_run)
