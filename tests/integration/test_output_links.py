"""Every output flag of every command, with a symbolic link planted at the name the user
gives (a folder output: --out, --report, --parquet, --hdr, --shrink, the folder report
writes into; a file output: --sqlite, --duckdb, --junit, --html, --write-study), and at
each file a folder output makes inside it: refused in one line (exit 2) naming the name,
before anything is written, the link's target left exactly as it was. (The names a run
writes inside its own folders and on the target: test_write_walk.py.)"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

GOLDEN = Path(__file__).parents[1] / "golden"
EXAMPLES = Path(__file__).parents[2] / "examples"
THEIRS = "the user's own file\n"
FAST = ("--duration", "1s", "--warmup", "0s")
TCO = (
    "--servers", "10", "--sockets", "2", "--cores-per-server", "12", "--cpu-before", "10%",
    "--cpu-after", "40%", "--license", "sqlserver-enterprise", "--license-price", "7000",
    "--storage-price", "300000",
)  # fmt: skip


def _results(root: Path) -> Path:
    """A results folder with one run that kept a latency histogram (for --hdr)."""
    run = root / "res" / "r1"
    shutil.copytree(GOLDEN / "sqlite-brokerage", run)
    shutil.copytree(GOLDEN / "sqlite-brokerage", root / "base")  # check's baseline
    shutil.copytree(GOLDEN / "sqlite-brokerage", root / "other")  # compare's second run
    results = root / "other" / "results.json"
    data = json.loads(results.read_text())
    data["run_id"] += "-other"  # its own run: compare refuses one run given twice
    results.write_text(json.dumps(data))
    (run / "histograms").mkdir()
    (run / "histograms" / "point-01.json").write_text(json.dumps({"bins": {"1500000": 3}}))
    return root / "res"


Args = Callable[[Path], list[str]]
# (output named by the flag, whether it is a folder, the command given the test's folder)
CASES: dict[str, tuple[str, bool, Args]] = {
    "io --out": ("o", True, lambda r: ["io", "--target", str(r / "t"), "--size", "4MiB",
                                      "--iodepth", "1", *FAST, "--out", str(r / "o")]),
    "run --out": ("o", True, lambda r: ["run", "--engine", "sqlite", "--target", str(r / "t"),
                                       "--users", "1", *FAST, "--out", str(r / "o")]),
    "compare --report": ("rep", True, lambda r: ["compare", str(r / "res" / "r1"),
                                                str(r / "other"), "--report", str(r / "rep")]),
    "report RUN_DIR": ("linkrun", True, lambda r: ["report", str(r / "linkrun")]),
    "export --parquet": ("pq", True, lambda r: ["export", str(r / "res"), "--parquet", str(r / "pq")]),
    "export --parquet, a file in it": ("pq/runs.parquet", False,
                                       lambda r: ["export", str(r / "res"), "--parquet", str(r / "pq")]),
    "export --hdr": ("hdr", True, lambda r: ["export", str(r / "res"), "--hdr", str(r / "hdr")]),
    "export --hdr, a file in it": ("hdr/r1.hlog", False,
                                   lambda r: ["export", str(r / "res"), "--hdr", str(r / "hdr")]),
    "export --sqlite": ("x.db", False, lambda r: ["export", str(r / "res"), "--sqlite", str(r / "x.db")]),
    "export --duckdb": ("x.ddb", False, lambda r: ["export", str(r / "res"), "--duckdb", str(r / "x.ddb")]),
    "study --shrink": ("sh", True, lambda r: ["study", str(EXAMPLES / "tr-4403-brokerage.toml"),
                                             "--shrink", str(r / "sh")]),
    "check --junit": ("j.xml", False, lambda r: ["check", str(r / "res" / "r1"), "--baseline",
                                                str(r / "base"), "--junit", str(r / "j.xml")]),
    "tco --html": ("t.html", False, lambda r: ["tco", *TCO, "--html", str(r / "t.html")]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_every_output_flag_refuses_a_link_at_its_name(dbstor, tmp_path, case):
    name, folder, args = CASES[case]
    (tmp_path / "t").mkdir()
    _results(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "theirs.txt").write_text(THEIRS)
    (tmp_path / "victim.txt").write_text(THEIRS)
    if case == "report RUN_DIR":
        shutil.copytree(GOLDEN / "sqlite-brokerage", victim / "run")
        target = victim / "run"
    else:
        target = victim if folder else tmp_path / "victim.txt"
    planted = tmp_path / name
    planted.parent.mkdir(exist_ok=True)
    planted.symlink_to(target, target_is_directory=folder)
    before = sorted(p.name for p in victim.rglob("*"))
    proc = dbstor(*args(tmp_path))
    dbstor.assert_user_error(proc, planted.name, "symbolic link")
    assert planted.is_symlink()
    assert sorted(p.name for p in victim.rglob("*")) == before  # nothing written through it
    assert (victim / "theirs.txt").read_text() == THEIRS
    assert (tmp_path / "victim.txt").read_text() == THEIRS
    left = [p.name for p in planted.parent.iterdir() if p.name.endswith(".tmp")]
    assert not left, left  # no temporary file beside it either
