"""The Grafana dashboard in docs/ reads only metrics dbstor's live endpoint or node_exporter serve."""

from __future__ import annotations

import json
import re
from pathlib import Path

from dbstor.telemetry.prometheus import load_preset

DASHBOARD = Path(__file__).parents[3] / "docs" / "grafana-dashboard.json"
LIVE = {
    "dbstor_point",
    "dbstor_point_load",
    "dbstor_point_ops",
    "dbstor_point_errors",
    "dbstor_point_ops_per_second",
    "dbstor_point_latency_seconds",
    "dbstor_ops_total",
    "dbstor_errors_total",
    "dbstor_run_info",
    "dbstor_last_point",
    "dbstor_point_device_iops",
    "dbstor_last_point_ops_per_second",
    "dbstor_last_point_latency_seconds",
}


def test_dashboard_metrics_exist() -> None:
    dash = json.loads(DASHBOARD.read_text())
    node = {
        name
        for spec in load_preset("node-exporter").quantities.values()
        for name in (spec.metric, spec.per)
        if name
    }
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    assert exprs
    for expr in exprs:
        for name in re.findall(r"\b((?:dbstor|node)_[a-z_]+)\b", expr):
            assert name in LIVE | node, (name, expr)
    live_src = (Path(__file__).parents[3] / "src/dbstor/telemetry/live.py").read_text()
    for name in LIVE - {"dbstor_ops_total", "dbstor_errors_total"}:
        assert f'"{name}"' in live_src, name
