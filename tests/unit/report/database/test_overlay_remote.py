"""The database on the storage's curve when it ran on an external server: placed by that
server's own device when --db-host named it (the remote_device layer), and the caption says
so; left off, as before, when that layer has no figures."""

from __future__ import annotations

from dbstor.report.database.figures import overlay_chart
from dbstor.report.database.overlay import overlay_caption, overlays, placed_points
from dbstor.report.html import render_report
from dbstor.report.kit.figures import run_names

SELECTION = 'instance="dbhost:9100",device="sdb"'


def external_with_db_host(runs, missing: str | None = None):
    db = runs[1]
    db.engine = {**db.engine, "managed": False}
    db.study = {**db.study, "telemetry": {"prometheus": "http://prom:9090", "db_host": SELECTION}}
    for i, point in enumerate(db.points):
        remote = {"source": "node-exporter", "read_iops": 1000.0 * (i + 1), "write_iops": 500.0,
                  "read_latency_ms": 0.5 + i}  # fmt: skip
        if missing is not None:
            remote = {"source": "node-exporter", "missing": missing}
        point.layers = {"client": {"source": "postgres"}, "remote_device": remote}
    return db


def test_external_server_placed_by_its_own_device_and_said_so(default_pair):
    runs, _ = default_pair
    db = external_with_db_host(runs)
    (overlay,) = overlays(runs)
    assert overlay.databases == [db] and overlay.external == []
    placed = placed_points(db)
    assert [p.iops for p in placed] == [1500.0 + 1000.0 * i for i in range(len(placed))]
    assert [p.read_lat_ms.mean for p in placed] == [0.5 + i for i in range(len(placed))]
    assert db.points[0].read_iops != 1000.0  # the run itself keeps this host's figures
    names = dict(zip([r.run_id for r in runs], run_names(runs), strict=True))
    text = overlay_caption(overlay, names)
    assert f"ran on an external server: its markers are that server's own device ({SELECTION})" in (
        text
    )
    assert "left off this chart" not in text
    assert (
        "its server&#x27;s device mean read await: 1 user: total IOPS at the device "
        "(reads + writes) 1,500, mean read latency (ms) 0.5</title>"
    ) in overlay_chart(overlay, names)
    assert 'class="overlay"' in render_report(runs)


def test_external_server_without_the_layers_figures_stays_off(default_pair):
    runs, _ = default_pair
    external_with_db_host(runs, missing="Prometheus at http://prom:9090 did not answer")
    assert overlays(runs) == []
    assert 'class="overlay"' not in render_report(runs)


def test_the_device_caption_names_only_what_is_drawn(default_pair):
    """With the database host's device as the only latency beyond the client's
    transactions, no latency-by-layer chart is drawn: the caption names the layer table."""
    runs, _ = default_pair
    db = external_with_db_host(runs)
    html = render_report(runs)
    section = html[html.index(f"<h2>{run_names(runs)[1]}") :]
    assert "latency by layer" not in section.lower()
    assert "are in the layer table below" in section
    assert "Layer by layer at each load point" in section
    assert db.points[0].layers["remote_device"]["read_latency_ms"] == 0.5
