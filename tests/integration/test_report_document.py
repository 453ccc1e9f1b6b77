"""The study's document with its analyses, built by the real commands: dbstor efficiency
on a real SQLite file, capacity, advise on a recorded PostgreSQL run, tco (with and
without a storage price), written to analyses.json as a study writes it; and the same
document printed to PDF by headless Chromium, its pages rendered by pdftoppm."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from html import unescape
from pathlib import Path

import pytest

from dbstor.report.document.analyses import ANALYSES_FILE

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CHROMIUM = shutil.which("chromium")
PDFTOPPM = shutil.which("pdftoppm")
TCO = ("tco", "--servers", "10", "--cores-per-server", "16", "--cpu-before", "10%")
TCO += ("--cpu-after", "40%", "--license", "sqlserver-enterprise", "--example-prices", "--json")


def _json(dbstor, *args: str | Path) -> dict:
    done = dbstor(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def study(tmp_path: Path, dbstor) -> Path:
    """The default study's folder, with analyses.json from the real commands."""
    folder = tmp_path / "study"
    shutil.copytree(GOLDEN / "default-study", folder)
    db = tmp_path / "orders.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, note TEXT)")
        conn.executemany(
            "INSERT INTO orders (note) VALUES (?)",
            ((f"order {i % 97} shipped to warehouse {i % 13}",) for i in range(40000)),
        )
    analyses = {
        "schema": 1,
        "efficiency": {
            "dbstor-data": _json(dbstor, "efficiency", db, "--full", "--json", "--quiet"),
            "legacy": {"missing": "the run's files were removed before the scan"},
        },
        "capacity": {
            "dbstor-data": _json(
                dbstor,
                "capacity",
                "--drives",
                "48x800GB",
                "--raid",
                "raid-dp",
                "--raid-group",
                "23",
                "--spares",
                "2",
                "--json",
            )
        },
        "placement": {
            "dbstor-data": _json(
                dbstor,
                "advise",
                GOLDEN / "postgres-instances",
                "--fast-capacity",
                "2GB",
                "--fast-latency",
                "0.1ms",
                "--json",
            )
        },
        "tco": _json(dbstor, *TCO),
    }
    (folder / ANALYSES_FILE).write_text(json.dumps(analyses))
    return folder


def _section(html: str, sid: str) -> str:
    start = html.index(f'id="{sid}"')
    end = html.find("<section", start)
    return unescape(html[start : end if end > 0 else len(html)])


def test_every_analysis_has_its_section(study: Path, dbstor):
    done = dbstor("report", study)
    assert done.returncode == 0, done.stderr
    html = (study / "report.html").read_text()
    ids = re.findall(r'<section class="doc" id="([a-z]+)"', html)
    assert ids == [
        "summary", "configuration", "layout", "method", "results", "efficiency",
        "capacity", "placement", "cost", "conclusion", "appendix",
    ]  # fmt: skip
    efficiency = _section(html, "efficiency")
    assert "total data reduction" in efficiency and ":1 (95%:" in efficiency
    assert "the run's files were removed before the scan" in efficiency  # missing: why
    assert "30.24 TB usable" in _section(html, "capacity")
    assert "trade" in _section(html, "placement") and "I/O served by the fast tier" in html
    summary = _section(html, "summary")
    assert (
        "of files scanned (every file its run built, not only tables) at a data reduction of"
        in summary
        and 'href="#efficiency"' in html.split('id="configuration"')[0]
    )
    assert "38.4 TB raw give 30.24 TB usable (79% of raw)" in summary
    assert "With CPU at 10% before and 40% after the storage change, 10 database" in summary


def test_example_prices_are_labelled_and_no_price_gives_no_payback(study: Path, dbstor):
    dbstor("report", study)
    cost = _section((study / "report.html").read_text(), "cost")
    assert "Example prices" in cost and "(example prices)" in cost
    needs = "ROI, NPV and payback need the price of the new storage: give storage_price"
    assert needs in cost
    assert '<th scope="row">ROI</th>' not in cost and "payback</th>" not in cost
    assert "months" not in cost
    analyses = json.loads((study / ANALYSES_FILE).read_text())
    analyses["tco"] = _json(dbstor, *TCO, "--storage-price", "250000")
    (study / ANALYSES_FILE).write_text(json.dumps(analyses))
    dbstor("report", study)
    cost = _section((study / "report.html").read_text(), "cost")
    assert '<th scope="row">ROI</th><td>71% over 3 years' in cost and needs not in cost
    assert "21.0 months" in cost and "USD 117,762 (example prices)" in cost


def test_an_unreadable_analyses_file_is_said_not_fatal(study: Path, dbstor):
    (study / ANALYSES_FILE).write_text("{not json")
    done = dbstor("report", study)
    assert done.returncode == 0, done.stderr
    assert "analyses.json could not be read" in (study / "report.html").read_text()


def _ppm_pages(pdf: Path, out: Path) -> list[bytes]:
    subprocess.run([PDFTOPPM, "-r", "24", pdf, out / "page"], check=True, timeout=120)
    return [p.read_bytes() for p in sorted(out.glob("page-*.ppm"))]


def _pixels(ppm: bytes) -> tuple[int, int, bytes]:
    """(width, height, RGB bytes) of a binary PPM (P6) page."""
    fields = ppm.split(maxsplit=4)
    assert fields[0] == b"P6"
    pixels = fields[4][1:] if fields[4][:1].isspace() else fields[4]
    return int(fields[1]), int(fields[2]), pixels


def _inked_share(ppm: bytes) -> float:
    """Share of the pixels of a page that are not white."""
    _, _, pixels = _pixels(ppm)
    dark = sum(1 for i in range(0, len(pixels) - 2, 3) if sum(pixels[i : i + 3]) < 700)
    return dark / (len(pixels) / 3)


def _filled(ppm: bytes) -> float:
    """How far down the page its last inked row lies (0 blank, 1 full)."""
    width, height, pixels = _pixels(ppm)
    row = width * 3
    for y in range(height - 1, -1, -1):
        line = pixels[y * row : (y + 1) * row]
        if any(sum(line[i : i + 3]) < 700 for i in range(0, len(line) - 2, 3)):
            return (y + 1) / height
    return 0.0


@pytest.mark.skipif(
    CHROMIUM is None or PDFTOPPM is None, reason="chromium or poppler-utils missing"
)
def test_pdf_pages_are_filled_and_none_is_blank(study: Path, dbstor, tmp_path):
    """Sections flow on (a one-line section took a page of its own, the summary's page was
    80% empty); only the results and the appendix open a page, so the only pages under a
    quarter full are the last before each of those and the document's last."""
    done = dbstor("report", study, "--pdf", timeout=240)
    assert done.returncode == 0, done.stderr
    pdf = study / "report.pdf"
    assert done.stdout.split() == [str(study / "report.html"), str(pdf)]
    assert pdf.read_bytes()[:5] == b"%PDF-"
    pages = _ppm_pages(pdf, tmp_path)
    shares = [_inked_share(p) for p in pages]
    assert min(shares) > 0.002, f"a blank page: {shares}"
    filled = [_filled(p) for p in pages]
    short = [i for i, f in enumerate(filled[:-1]) if f < 0.25 + 0.05]  # + the top margin
    assert len(short) <= 2, f"pages under a quarter full: {short} of {filled}"
    assert filled[0] > 0.5, f"the summary's page is mostly empty: {filled}"


def test_pdf_without_chromium_names_the_package(study: Path, dbstor, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    done = dbstor("report", study, "--pdf", env={"PATH": str(empty)})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith("install the chromium package")
    assert (study / "report.html").is_file() and not (study / "report.pdf").exists()
    assert os.environ.get("PATH")  # the test's own PATH is untouched


_WIDE = """<script>var out = [], page = document.documentElement.clientWidth;
document.querySelectorAll("body *").forEach(function (e) {
  var box = e.getBoundingClientRect();
  if (box.right > page + 1 && !e.closest(".scroll")) {
    out.push(e.tagName + " " + (e.textContent || "").slice(0, 60).replace(/\\s+/g, " "));
  }
});
document.body.setAttribute("data-wide", out.slice(0, 5).join(" | "));</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_nothing_in_the_document_is_wider_than_the_page(study: Path, dbstor, tmp_path):
    """At 1000 px no element outside a table's own scrolling box runs past the page's
    right edge (the placement's figures table, with a long unbreakable source, made the
    whole h6080 document scroll sideways)."""
    analyses = json.loads((study / ANALYSES_FILE).read_text())
    placement = analyses["placement"]["dbstor-data"]
    placement["fast_tier"]["latency_source"] = (
        "mean read latency at the highest load, every point within the SLO (users 16) of "
        "run 20261129-072627-FLASH-brokerage"
    )
    (study / ANALYSES_FILE).write_text(json.dumps(analyses))
    done = dbstor("report", study)
    assert done.returncode == 0, done.stderr
    probe = tmp_path / "probe.html"
    probe.write_text((study / "report.html").read_text().replace("</body>", _WIDE + "</body>"))
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", f"--user-data-dir={tmp_path / 'profile'}",
         "--window-size=1000,1400", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    ).stdout  # fmt: skip
    wide = re.search(r'data-wide="([^"]*)"', dom)
    assert wide is not None, dom[-2000:]
    assert unescape(wide.group(1)) == ""
