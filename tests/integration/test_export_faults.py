"""dbstor export when writing fails, on real file systems: a read-only tmpfs, a full tmpfs,
a missing parent folder, and a histogram file that is not one (--hdr). Each exporter
(--sqlite, --duckdb, --parquet, --hdr) ends in one line, exit 2, and leaves nothing
half-written where it was to write (no partial database, no temporary file)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).parents[1] / "golden"
EXPORTERS = {"--sqlite": "x.db", "--duckdb": "x.ddb", "--parquet": "pq", "--hdr": "hdr"}


def _results(root: Path, histogram: str = json.dumps({"bins": {"1500000": 3}})) -> Path:
    run = root / "res" / "r1"
    shutil.copytree(GOLDEN / "sqlite-brokerage", run)
    (run / "histograms").mkdir()
    (run / "histograms" / "point-01.json").write_text(histogram)
    return root / "res"


def _fill(folder: Path) -> None:
    """Fill the file system under folder to the last block."""
    with open(folder / "filler", "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name != "filler")


@pytest.mark.parametrize("flag", list(EXPORTERS))
def test_a_full_file_system_is_one_line_and_leaves_nothing(dbstor, tmp_path, tmpfs, flag):
    res = _results(tmp_path)
    where = tmpfs("full", "256k")
    _fill(where)
    proc = dbstor("export", res, flag, where / EXPORTERS[flag])
    line = dbstor.assert_user_error(proc, str(where))
    assert "full" in line.lower() or "space" in line.lower(), line
    assert _left(where) == [], _left(where)  # not even the folder it made
    assert not (where / EXPORTERS[flag]).is_file()


@pytest.mark.parametrize("flag", list(EXPORTERS))
def test_a_read_only_file_system_is_one_line(dbstor, tmp_path, tmpfs, flag):
    res = _results(tmp_path)
    where = tmpfs("ro", "1m")
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
    proc = dbstor("export", res, flag, where / EXPORTERS[flag])
    dbstor.assert_user_error(proc, str(where), "read-only")
    assert _left(where) == []


@pytest.mark.parametrize("flag", ["--sqlite", "--duckdb"])
def test_a_missing_parent_folder_is_one_line(dbstor, tmp_path, flag):
    res = _results(tmp_path)
    proc = dbstor("export", res, flag, tmp_path / "no" / "such" / EXPORTERS[flag])
    dbstor.assert_user_error(proc, "does not exist")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    "histogram", ["{not json", json.dumps({"bins": {"x": 1}}), json.dumps([1]), "[" * 100000]
)
def test_a_corrupt_histogram_is_named_and_nothing_is_written(dbstor, tmp_path, histogram):
    res = _results(tmp_path, histogram)
    proc = dbstor("export", res, "--hdr", tmp_path / "hdr")
    dbstor.assert_user_error(proc, "point-01.json", "not a latency histogram")
    assert not (tmp_path / "hdr").exists()  # the folder it made is removed again
