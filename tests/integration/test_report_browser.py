"""Open a report in headless Chromium: it must render (non-blank, charts drawn) offline.

The screenshot is decoded with zlib and struct (no Pillow). Set DBSTOR_KEEP_SCREENSHOT to
a path to keep the PNG for a look (the default study's goes beside it, "-default-study"
added to its name).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from dbstor.report.html import write_report
from dbstor.results.store import load_run, read_samples

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def decode_png(data: bytes) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows, bytes per pixel) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, bpp = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG format {depth}/{colour}"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def pixels(rows: list[bytes], bpp: int, step: int = 2):
    """Every step-th pixel of every step-th row, as (r, g, b)."""
    for row in rows[::step]:
        for x in range(0, len(row), bpp * step):
            yield row[x], row[x + 1], row[x + 2]


def near(colour: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target, strict=True))


@pytest.fixture
def report(tmp_path: Path) -> Path:
    names = ("fc-io-oltp", "iscsi-io-oltp")
    runs = [load_run(GOLDEN / name) for name in names]
    samples = {
        run.run_id: read_samples(GOLDEN / name) for run, name in zip(runs, names, strict=True)
    }
    comparison = json.loads((GOLDEN / "comparison-fc-iscsi.json").read_text())
    return write_report(tmp_path / "study", runs, samples, comparison)


@pytest.fixture
def study_report(tmp_path: Path) -> Path:
    """The default study: fio io-oltp and SQLite brokerage on the target dbstor-data."""
    folder = GOLDEN / "default-study"
    ids = json.loads((folder / "study.json").read_text())["runs"]
    runs = [load_run(folder / run_id) for run_id in ids]
    samples = {run_id: read_samples(folder / run_id) for run_id in ids}
    return write_report(tmp_path / "default-study", runs, samples)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_report_renders_in_headless_chromium(report: Path, tmp_path: Path):
    shot = tmp_path / "report.png"
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,3000", report.as_uri())
    assert shot.exists(), done.stderr.decode(errors="replace")[-2000:]
    if os.environ.get("DBSTOR_KEEP_SCREENSHOT"):
        shutil.copy(shot, os.environ["DBSTOR_KEEP_SCREENSHOT"])
    width, height, rows, bpp = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 3000)
    sample = list(pixels(rows, bpp))
    colours = set(sample)
    assert len(colours) > 200, "the page looks blank"
    inked = sum(1 for p in sample if sum(p) < 720)
    assert inked / len(sample) > 0.05, "too little on the page"
    blue = sum(1 for p in sample if near(p, (0x00, 0x72, 0xB2)))  # FC line and bars
    vermillion = sum(1 for p in sample if near(p, (0xD5, 0x5E, 0x00)))  # ISCSI, CPU line
    assert blue > 2000 and vermillion > 500, "the charts did not render"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_rendered_dom_has_the_chart_areas(report: Path, tmp_path: Path):
    done = chromium(tmp_path, "--dump-dom", report.as_uri())
    dom = done.stdout.decode(errors="replace")
    assert dom.count("<svg") == 8, done.stderr.decode(errors="replace")[-2000:]
    for title in (
        "IOPS against p99 read latency as load rises",
        "Relative to FC = 100",
        "IOPS and CPU per load point",
        "Mean latency at the host and at the device",
        "Per-second IOPS and CPU",
    ):
        assert title in dom
    assert "SLO 1 ms p99 read" in dom and "ISCSI knee 26,400 IOPS" in dom
    # FC's knee lies at QD32, flagged not steady: the text says so and no chart rings it
    assert "FC: the knee could not be stated (QD32 flagged not steady)" in dom
    assert "FC knee" not in dom


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_default_study_opens_with_its_summary_and_draws_the_overlay(
    study_report: Path, tmp_path: Path
):
    shot = tmp_path / "study.png"
    done = chromium(
        tmp_path, f"--screenshot={shot}", "--window-size=1200,9000", study_report.as_uri()
    )
    assert shot.exists(), done.stderr.decode(errors="replace")[-2000:]
    keep = os.environ.get("DBSTOR_KEEP_SCREENSHOT")
    if keep:
        kept = Path(keep)
        shutil.copy(shot, kept.with_name(f"{kept.stem}-default-study{kept.suffix or '.png'}"))
    width, height, rows, bpp = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 9000)
    first = list(pixels(rows[:900], bpp))
    assert len(set(first)) > 100, "the first screen looks blank"
    assert sum(1 for p in first if sum(p) < 720) / len(first) > 0.02, "no summary on top"
    # further down, in the results: the overlay's blue line and vermillion squares
    sample = list(pixels(rows, bpp))
    blue = sum(1 for p in sample if near(p, (0x00, 0x72, 0xB2)))
    vermillion = sum(1 for p in sample if near(p, (0xD5, 0x5E, 0x00)))
    assert blue > 150 and vermillion > 40, "the overlay did not render"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_default_study_dom(study_report: Path, tmp_path: Path):
    done = chromium(tmp_path, "--dump-dom", study_report.as_uri())
    dom = done.stdout.decode(errors="replace")
    assert "The database on the storage's curve" in dom, done.stderr.decode(errors="replace")[
        -2000:
    ]
    headings = re.findall(r"<h2>([^<]+)</h2>", dom)
    assert headings[:4] == ["Summary", "Configuration", "Layout", "Method"]
    assert dom.index("dbstor-data: the storage's curve") < dom.index("IOPS against p99 read")
    # the knee is measured at QD8 (never interpolated where the curve runs backwards), and
    # QD8 is flagged not steady: the overlay rings no knee and the text says why
    assert "the knee could not be stated (QD8 flagged not steady)" in dom
    assert "storage knee" not in dom and "Reads came from memory, not the storage" in dom
    for title in (
        "Transactions per second against transaction p99 latency",
        "Transactions per second and transaction p99 latency",
        "What the device under the target saw",
        "Transaction latency by type at 8 users",
        "Per-second TPS, IOPS and CPU",
    ):
        assert title in dom
