"""render_report and write_report on the golden runs."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dbstor.report.html import render_report, write_report
from dbstor.results.model import CpuStats, DeviceStats, LatencyStats, Load, Point, Run

SVG_BLOCK = re.compile(r"<svg\b.*?</svg>", re.S)


def svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(block) for block in SVG_BLOCK.findall(html)]


def test_single_run_report_has_curve_slo_and_knee(fc: Run, samples):
    html = render_report([fc], samples)
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "<title>dbstor report: FC, io-oltp</title>" in html
    assert "How to read this report" in html
    assert "SLO 1 ms p99 read" in html
    # the knee marker's label on the curve says no more than the card and the summary
    assert "knee 47,702 IOPS" not in html and "47,702" not in html
    # QD32 is flagged not steady: the card refuses the knee as the summary does, and states
    # no figure from the refused points
    assert (
        "Knee: not stated (QD32 flagged not steady); the points&#x27; figures are in the "
        "run&#x27;s table"
    ) in html
    assert 'class="ref"' in html and "stroke-dasharray" in html
    assert "Per-second IOPS and CPU" in html  # samples give the time series
    assert "Comparison against" not in html
    for svg in svgs(html):  # every chart is well-formed XML
        assert svg.get("viewBox")


def test_points_table_and_facts(fc: Run):
    html = render_report([fc])
    assert "QD64" in html and "saturated" in html and "not steady" in html
    assert "IOPS rose 6.2% over the last 10 s" in html
    assert "median 45,400, 3 repeats" in html and "44,100–46,050" in html
    assert 'class="num over"' in html and 'class="num within"' in html
    assert "The 1 GiB test file is 4% of host memory (24 GiB)" in html
    assert "AFF8080 EX" in html and "io_uring" in html and "fio-3.33" in html
    assert "Per-second" not in html  # no samples, no time series


def test_study_with_comparison(fc: Run, iscsi: Run, samples, comparison):
    comparison["warnings"] = ["ISCSI ran on device sdc, FC on dm-3: different block layers"]
    html = render_report([fc, iscsi], samples, comparison)
    assert "<title>dbstor study: fc-vs-iscsi</title>" in html
    assert "Comparison against FC (baseline = 100)" in html
    assert "Relative to FC = 100" in html
    assert "ISCSI vs FC</b>: read latency +258%, IOPS x0.55, CPU x0.87" in html
    assert "26,400 (55.3)" in html and "3.58 ms (358)" in html
    assert "read latency at one load for every run, the baseline&#x27;s knee (QD 23.8)" in html
    assert "different block layers" in html
    assert "Matched load points" in html
    assert "FC knee" not in html  # QD32 not steady: no ring on a knee the text refuses
    assert "ISCSI knee 26,400 IOPS" in html
    assert len(svgs(html)) == 1 + 1 + 3 * 2  # curve, comparison, 3 charts per run


def test_comparison_extras(fc: Run, iscsi: Run, comparison):
    comparison["comparable"] = False
    comparison["per_disk"] = [
        {
            "label": "FLASH",
            "drives": 6,
            "baseline_drives": 75,
            "drive_reduction": 12.5,
            "performance_factor": 1.15,
            "per_disk_efficiency": 14.4,
        }
    ]
    comparison["runs"][1]["values"]["tps"] = 1200.0
    comparison["runs"][1]["normalised"]["tps"] = 97.0
    html = render_report([fc, iscsi], comparison=comparison)
    assert "not comparable" in html
    assert "Per-disk efficiency" in html and "x12.5" in html and "x14.4" in html
    assert ">TPS<" in html


def test_labels_and_facts_are_escaped(tmpfs: Run):
    html = render_report([tmpfs])
    assert "<script" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in html
    assert "RAM disk &lt;b&gt;not&lt;/b&gt; storage" in html
    assert "No space left on device &lt;dev/shm&gt;" in html


def test_interrupted_run_failed_point_and_notes(tmpfs: Run):
    html = render_report([tmpfs])
    assert (
        "the run is <b>interrupted</b>; this report covers the 2 load points that finished" in html
    )
    assert "direct I/O not supported on tmpfs: these are page-cache speeds" in html
    assert '<tr class="failed">' in html and "failed: fio exited with status 1" in html
    assert "QD16 failed" in html  # the failed point's axis label
    assert "so the knee was not reached" in html
    assert 'class="badge interrupted"' in html
    assert "No device statistics" in html


def test_failed_run_is_called_failed(tmpfs: Run):
    tmpfs.status = "failed"
    assert "the run <b>failed</b>" in render_report([tmpfs])


def _bare_point(value: float, **kwargs) -> Point:
    return Point(Load("iodepth", value), 10.0, **kwargs)


def test_missing_values_do_not_crash():
    run = Run("bare", "0.1.0", {}, {"label": "bare"}, {}, {}, {}, {}, "", status="complete")
    run.points = [
        _bare_point(1),  # nothing measured at all
        _bare_point(
            2,
            read_iops=100.0,
            read_lat_ms=LatencyStats(p99=None),
            cpu=CpuStats(),
            device=DeviceStats(),
        ),
        _bare_point(
            4,
            read_iops=200.0,
            read_lat_ms=LatencyStats(mean=0.5, p99=0.9),
            cpu=CpuStats(util_pct=None),
            device=DeviceStats(read_await_ms=0.4),
        ),
        _bare_point(8, status="failed", error=None),
    ]
    html = render_report([run], samples={"bare": []}, extra_sections=[])
    assert "no error message recorded" in html
    assert "the latency the client sees" in html and "read, host (client)" in html
    assert "Knee: no SLO set" in html
    for svg in svgs(html):
        assert svg.get("viewBox")


def test_run_with_no_points_renders():
    run = Run(
        "empty",
        "0.1.0",
        {},
        {},
        {},
        {},
        {},
        {"metric": "read_lat_p99_ms", "limit_ms": 1},
        "",
        status="failed",
    )
    html = render_report([run])
    assert "no data to plot" in html and "peak: none" in html.lower()


def test_render_needs_a_run():
    with pytest.raises(ValueError):
        render_report([])


def test_extra_sections_and_title(fc: Run):
    html = render_report([fc], title="My <study>", extra_sections=['<section id="eff">E</section>'])
    assert "<title>My &lt;study&gt;</title>" in html
    extra = html.index('<section id="eff">E</section>')  # before the appendix, which ends it
    assert html.index('id="conclusion"') < extra < html.index('id="appendix"')


def test_self_contained(fc: Run, iscsi: Run, samples, comparison):
    html = render_report([fc, iscsi], samples, comparison)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "<script" not in html and "<link" not in html and "@import" not in html


def test_write_report_is_atomic_and_returns_the_path(tmp_path: Path, fc: Run):
    path = write_report(tmp_path / "run", [fc])
    assert path == tmp_path / "run" / "report.html"
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]


def test_search_points_are_listed_but_not_plotted(fc: Run):
    search = copy.deepcopy(fc.points[2])
    search.load = Load("iodepth", 128)
    search.series = "discovery"
    fc.points.append(search)
    html = render_report([fc])
    assert "QD128" in html and "flag-search" in html
    curve = svgs(html)[0]
    labels = {t.text for t in curve.iter("{http://www.w3.org/2000/svg}text")}
    assert "QD64" in labels and "QD128" not in labels
    results = html[html.index('id="results"') :]  # the method names the search's loads
    assert results.index("QD128") > results.index('<h3 id="points-1">Load points</h3>')
    method = html[html.index('id="method"') : html.index('id="results"')]
    assert "found by auto mode&#x27;s search: QD128, kept as search points" in method


def test_knee_with_transactions(fc: Run):
    for point in fc.points:
        point.trust.steady = True
        point.tps = (point.iops or 0.0) / 40
    assert "Knee: 1,193 TPS, 47,702 IOPS at QD 23.8" in render_report([fc])
