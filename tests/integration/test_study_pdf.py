"""[study] pdf = true: a real fio study prints its report to report.pdf through headless
Chromium (its pages rendered by pdftoppm, none blank); without Chromium the study is
refused in one line naming the package before anything runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

STUDY = """\
[study]
name = "printed"
duration = "1s"
warmup = "0s"
size = "16MiB"
pdf = true

[load]
kind = "iodepth"
values = [1, 4]

[[targets]]
label = "A"
path = "{a}"
"""


def _study(tmp_path: Path) -> None:
    target = tmp_path / "a"
    target.mkdir()
    (tmp_path / "s.toml").write_text(STUDY.format(a=target), encoding="utf-8")


@pytest.mark.skip_without_fio
@pytest.mark.skipif(
    shutil.which("chromium") is None or shutil.which("pdftoppm") is None,
    reason="chromium or poppler-utils missing",
)
def test_a_study_with_pdf_true_prints_its_report(dbstor, tmp_path):
    _study(tmp_path)
    proc = dbstor("run", "s.toml", "--out", "out", "--json", timeout=400)
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / json.loads(proc.stdout)["folder"]
    pdf = folder / "report.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-" and f"pdf: {pdf}" in proc.stderr.replace("\n", "")
    subprocess.run(["pdftoppm", "-r", "20", "-gray", pdf, tmp_path / "p"], check=True, timeout=120)
    pages = sorted(tmp_path.glob("p-*.pgm"))
    assert len(pages) >= 5  # summary ... appendix, each section on its own page
    for page in pages:
        pixels = page.read_bytes().split(maxsplit=4)[4]
        assert sum(1 for b in pixels if b < 200) > 20, f"{page.name} is blank"


def test_a_study_with_pdf_true_and_no_chromium_is_refused_before_it_runs(dbstor, tmp_path):
    _study(tmp_path)
    bare = tmp_path / "bin"
    bare.mkdir()
    fio = shutil.which("fio")
    if fio:
        (bare / "fio").symlink_to(fio)  # fio is there: only Chromium is missing
    proc = dbstor("run", "s.toml", "--out", "out", env={"PATH": str(bare)})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "dbstor: error: s.toml: study.pdf: printing the report needs headless Chromium: "
        "install the chromium package, or remove pdf = true"
    ]
    assert not (tmp_path / "out").exists()  # refused before any folder was made
