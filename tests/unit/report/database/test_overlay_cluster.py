"""The database on the storage's curve for a run measured on several hosts: the summed point
(every host's device I/O at the shared storage) and each host's own device view, on a
results folder recorded from a real loopback Ray cluster (tests/fixtures/cluster, made by
tests/integration/record_cluster_fixture.py: io and SQLite orders on h1, h2, h3)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dbstor.report.database.overlay import host_views, overlay_caption, overlays
from dbstor.report.html import render_report
from dbstor.report.kit.figures import run_names
from dbstor.results.model import Run
from dbstor.results.store import load_run

RECORDED = Path(__file__).resolve().parents[3] / "fixtures" / "cluster"
NS = "{http://www.w3.org/2000/svg}"
HOSTS = ["h1", "h2", "h3"]


@pytest.fixture
def runs() -> list[Run]:
    return [load_run(RECORDED / "io"), load_run(RECORDED / "database")]


def overlay_svg(html: str) -> ET.Element:
    section = html[html.index('<div class="overlay">') :]
    return ET.fromstring(re.search(r"<svg\b.*?</svg>", section, re.S).group(0))


def tooltips(svg: ET.Element) -> list[str]:
    """Every marker's tooltip: 'series name: label (x, y)'."""
    return [
        title.text or ""
        for element in svg.iter()
        if (title := element.find(f"{NS}title")) is not None
    ]


def count(svg: ET.Element, ending: str) -> int:
    """How many markers belong to the series whose name ends so."""
    return sum(1 for tip in tooltips(svg) if f"{ending}: " in tip)


def test_the_recorded_run_has_each_hosts_own_device(runs):
    database = runs[1]
    points = [p for p in database.points if p.ok]
    assert [len(p.hosts) for p in points] == [1, 2, 3]  # instances 1, 2, 3: one per host
    for point in points:
        devices = [h["device"] for h in point.hosts]
        assert all(d and d["name"] for d in devices)  # each host sampled its own device
        summed = sum((d["read_iops"] or 0) + (d["write_iops"] or 0) for d in devices)
        assert point.iops == pytest.approx(summed, rel=1e-6)  # the point is their sum


def test_the_overlay_draws_the_summed_point_and_each_hosts_own_view(runs):
    html = render_report(runs)
    svg = overlay_svg(html)
    legend = " ".join(t.text or "" for t in svg.iter(f"{NS}text"))
    assert "every host's device I/O summed at the shared storage" in legend
    for host in HOSTS:
        assert f"host {host}'s own device" in legend
    assert count(svg, "summed at the shared storage") == 3  # one summed mark per point
    for host, marked in zip(HOSTS, (3, 2, 1), strict=True):  # h1 in every point, h3 in one
        assert count(svg, f"host {host}'s own device") == marked
    views = {v.host: v for v in host_views(runs[1])}
    assert sorted(views) == HOSTS
    # the largest point's summed IOPS is the sum of its hosts' own views
    busiest = max((p for p in runs[1].points if p.ok), key=lambda p: p.iops)
    assert busiest.iops == pytest.approx(sum(views[h].iops[-1] for h in HOSTS), rel=1e-6)


def test_the_caption_says_what_the_marks_are(runs):
    names = dict(zip([r.run_id for r in runs], run_names(runs), strict=True))
    (overlay,) = overlays(runs)
    text = overlay_caption(overlay, names)
    assert "ran on 3 hosts (h1, h2 and h3)" in text
    assert "every host's device I/O summed at the shared storage" in text
    assert "each host's own device view" in text


def test_a_run_on_one_host_has_no_host_views(runs):
    for point in runs[1].points:
        point.hosts = None
    assert host_views(runs[1]) == []
    assert "own device" not in render_report(runs)


def test_a_host_whose_device_read_nothing_has_no_latency_not_0(runs):
    """A host's own device that read nothing in a point has no read await to plot: None
    with the reason, never a marker at 0 ms."""
    database = runs[1]
    point = max((p for p in database.points if p.ok), key=lambda p: len(p.hosts))
    point.hosts[1]["device"]["read_iops"] = 0.0
    views = {v.host: v for v in host_views(database)}
    quiet = views[point.hosts[1]["host"]]
    assert quiet.read_ms[-1] is None and quiet.missing[-1] == "the device saw no reads"
    assert all(ms is None or ms > 0 for v in views.values() for ms in v.read_ms)
    svg = overlay_svg(render_report(runs))
    assert not any(", 0)" in tip or ",0)" in tip for tip in tooltips(svg))
