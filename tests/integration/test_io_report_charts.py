"""The report's charts on real fio runs: a far SLO is a marker at the top edge and the
axis fits what fio measured; a target with no block device (tmpfs) says "not measured"
where the device's figures would be, never a bar or a point at 0."""

from __future__ import annotations

import re
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

SVG = "{http://www.w3.org/2000/svg}"
TINY = ("--iodepth", "1,2", "--duration", "1", "--warmup", "0", "--size", "16MiB")


def _charts(report: str) -> dict[str, ET.Element]:
    """Every chart of the report by its title."""
    out = {}
    for svg in re.findall(r"<svg .*?</svg>", report, flags=re.S):
        root = ET.fromstring(svg)
        title = next(root.iter(f"{SVG}text")).text or ""
        out[title] = root
    return out


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_a_far_slo_is_marked_at_the_edge_and_the_axis_fits_fio(dbstor, tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    proc = dbstor(
        "io", "--target", tmp_path / "t", *TINY, "--slo", "1000ms", "--out", tmp_path / "o"
    )
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "o")
    p99s = [p["read_lat_ms"]["p99"] for p in dbstor.results(folder)["points"]]
    p99s = [v for v in p99s if v is not None]
    report = (folder / "report.html").read_text()
    curve = _charts(report)["IOPS against p99 read latency as load rises"]
    assert "SLO 1000 ms p99 read ↑ above" in _texts(curve)
    ticks = [float(t.text.replace(",", "")) for t in curve.iter(f"{SVG}text")
             if t.get("text-anchor") == "end" and float(t.get("x")) < 66]  # fmt: skip
    assert max(ticks) < 1000
    if p99s:
        assert max(p99s) <= max(ticks) <= 2.5 * max(p99s) + 0.01
    assert "lies far above every point" in report and "dashed SLO line" not in report


def test_a_tmpfs_target_says_its_device_was_not_measured(dbstor, tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm tmpfs here")
    with tempfile.TemporaryDirectory(dir=shm) as target:
        proc = dbstor("io", "--target", target, *TINY, "--out", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "o")
    assert all(p["device"] is None for p in dbstor.results(folder)["points"])
    charts = _charts((folder / "report.html").read_text())
    legend = _texts(charts["IOPS and CPU per load point"])
    assert "device busy %: not measured (no block device under the target)" in legend
    latency = _texts(charts["Mean latency at the host and at the device"])
    assert "device await: not measured (no block device under the target)" in latency
    for root in charts.values():
        bars = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
        assert all(float(r.get("height")) > 0 for r in bars)
