"""Every command that writes, with a real symbolic link and a foreign file planted at each
name it writes: each is refused in one line (exit 2), the link's target is untouched and
the foreign file is left as it was."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

FIXTURES = Path(__file__).parents[1] / "fixtures"
GOLDEN = Path(__file__).parents[1] / "golden"
THEIRS = "the user's own file\n"
FAST = ("--size", "4MiB", "--duration", "1s", "--warmup", "0s", "--iodepth", "1")
TCO = (
    "--servers", "10", "--sockets", "2", "--cores-per-server", "12", "--cpu-before", "10%",
    "--cpu-after", "40%", "--license", "sqlserver-enterprise", "--license-price", "7000",
    "--storage-price", "300000",
)  # fmt: skip
STUDY = """[study]
name = "links"
duration = "1s"
warmup = "0s"
size = "4MiB"
[load]
kind = "iodepth"
values = [1]
[[targets]]
label = "A"
path = "a"
[[targets]]
label = "B"
path = "b"
"""


def _stamps(seconds: int = 90) -> list[str]:
    now = datetime.now()
    return [(now + timedelta(seconds=s)).strftime("%Y%m%d-%H%M%S") for s in range(-1, seconds)]


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Where a planted link points: a folder with a file in it, and a file."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "report.html").write_text(THEIRS)
    (tmp_path / "elsewhere.html").write_text(THEIRS)
    return folder


def _untouched(tmp_path: Path) -> None:
    assert [p.name for p in (tmp_path / "elsewhere").iterdir()] == ["report.html"]
    assert (tmp_path / "elsewhere" / "report.html").read_text() == THEIRS
    assert (tmp_path / "elsewhere.html").read_text() == THEIRS


@pytest.mark.parametrize("plant", ["link", "dangling", "file"])
def test_io_run_folder(dbstor, tmp_path, victim, plant):
    (tmp_path / "t").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    for stamp in _stamps():
        name = out / f"{stamp}-A-io-oltp"
        if plant == "file":
            name.write_text(THEIRS)
        else:
            name.symlink_to(victim if plant == "link" else tmp_path / "nowhere")
    proc = dbstor("io", "--target", f"A={tmp_path / 't'}", *FAST, "--out", out)
    if plant == "file":  # a file is not a run folder: the run takes the next name
        assert proc.returncode == 0, proc.stderr
        assert all(p.read_text() == THEIRS for p in out.iterdir() if p.is_file())
    else:
        dbstor.assert_user_error(proc, "symbolic link")
    _untouched(tmp_path)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("plant", ["link", "dangling", "file"])
def test_study_folder(dbstor, tmp_path, victim, plant):
    for target in ("a", "b"):
        (tmp_path / target).mkdir()
    (tmp_path / "s.toml").write_text(STUDY)
    out = tmp_path / "out"
    out.mkdir()
    for stamp in _stamps():
        name = out / f"{stamp}-links"
        if plant == "file":
            name.write_text(THEIRS)
        else:
            name.symlink_to(victim if plant == "link" else tmp_path / "nowhere")
    proc = dbstor("run", tmp_path / "s.toml", "--out", out)
    dbstor.assert_user_error(proc, "symbolic link" if plant != "file" else "exists")
    _untouched(tmp_path)
    assert not (tmp_path / "nowhere").exists()
    assert list((tmp_path / "a").iterdir()) == [] and list((tmp_path / "b").iterdir()) == []


def _run_folder(tmp_path: Path, name: str) -> Path:
    """A copy of a golden run under its own run id (compare refuses one run given twice)."""
    folder = tmp_path / name
    shutil.copytree(GOLDEN / "sqlite-brokerage", folder)
    (folder / "report.html").unlink(missing_ok=True)
    results = folder / "results.json"
    data = json.loads(results.read_text())
    data["run_id"] = f"{data['run_id']}-{name}"
    results.write_text(json.dumps(data))
    return folder


def _plant(path: Path, plant: str, tmp_path: Path) -> None:
    if plant == "link":
        path.symlink_to(tmp_path / "elsewhere.html")
    else:
        path.write_text(THEIRS)


@pytest.mark.parametrize("plant", ["link", "file"])
def test_report_and_compare_report(dbstor, tmp_path, victim, plant):
    first, second = _run_folder(tmp_path, "r1"), _run_folder(tmp_path, "r2")
    _plant(first / "report.html", plant, tmp_path)
    proc = dbstor("report", first)
    dbstor.assert_user_error(proc, "symbolic link" if plant == "link" else "not written by dbstor")
    (tmp_path / "cmp").mkdir()
    _plant(tmp_path / "cmp" / "report.html", plant, tmp_path)
    proc = dbstor("compare", first, second, "--report", tmp_path / "cmp")
    dbstor.assert_user_error(proc, "symbolic link" if plant == "link" else "not written by dbstor")
    _untouched(tmp_path)
    if plant == "file":
        assert (first / "report.html").read_text() == THEIRS


def test_report_replaces_its_own_page(dbstor, tmp_path):
    """What dbstor wrote earlier (another process) it may write again."""
    folder = _run_folder(tmp_path, "r1")
    assert dbstor("report", folder).returncode == 0
    before = (folder / "report.html").stat().st_ino
    proc = dbstor("report", folder)
    assert proc.returncode == 0, proc.stderr
    assert (folder / "report.html").stat().st_ino != before


@pytest.mark.parametrize("plant", ["link", "file"])
@pytest.mark.parametrize(
    "command",
    [
        ("advise", "--sqlserver", str(FIXTURES / "h6080_filestats.csv"), "--fast-capacity", "73GB"),
        ("tco", *TCO),
    ],
    ids=["advise", "tco"],
)
def test_html_pages(dbstor, tmp_path, victim, plant, command):
    page = tmp_path / "page.html"
    _plant(page, plant, tmp_path)
    proc = dbstor(*command, "--html", page)
    dbstor.assert_user_error(proc, "symbolic link" if plant == "link" else "not written by dbstor")
    _untouched(tmp_path)
    if plant == "file":
        assert page.read_text() == THEIRS
    else:  # and its own page it replaces
        page.unlink()
        assert dbstor(*command, "--html", page).returncode == 0
        assert dbstor(*command, "--html", page).returncode == 0


@pytest.mark.parametrize("plant", ["link", "file"])
def test_sqlite_journal(dbstor, tmp_path, victim, plant):
    """SQLite's rollback journal is refused like -wal and -shm: never removed, never followed."""
    (tmp_path / "t").mkdir()
    journal = tmp_path / "t" / "dbstor-sqlite-0.db-journal"
    _plant(journal, plant, tmp_path)
    proc = dbstor(
        "run", "--engine", "sqlite", "--workload", "brokerage", "--target", tmp_path / "t",
        "--users", "1", "--duration", "1s", "--warmup", "0s", "--out", tmp_path / "out",
    )  # fmt: skip
    dbstor.assert_user_error(proc, "dbstor-sqlite-0.db-journal")
    assert journal.is_symlink() if plant == "link" else journal.read_text() == THEIRS
    _untouched(tmp_path)
