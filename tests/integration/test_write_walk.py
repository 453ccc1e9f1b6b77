"""The walk over every name dbstor writes that a user could have put something at first:
the test files and their manifest, every embedded engine's database file and side files,
every managed server's folder on the target, the index, the exports, the JUnit report, the
PDF and the folders study --shrink makes. At each name a real symbolic link (to a file and a folder of the user's) and a
foreign file are planted in turn: the command is refused in one line (exit 2) naming the
name, the link's target and the foreign file are left exactly as they were, and nothing
is made outside the folders named. (Run folders, study folders, report.html,
compare --report, advise --html and tco --html: test_no_write_through_links.py.)"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from needs import usable

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

GOLDEN = Path(__file__).parents[1] / "golden"
EXAMPLES = Path(__file__).parents[2] / "examples"
THEIRS = "the user's own file\n"
FAST = ("--duration", "1s", "--warmup", "0s")
DB = ("--workload", "brokerage", "--users", "1", *FAST)
DSS = ("--workload", "dss", "--scale", "0.01", "--streams", "1")


@dataclass(frozen=True)
class Case:
    name: str  # relative to the test's folder: where something is planted
    args: Callable[[Path], list[str]]  # the command, given the test's folder
    engine: str | None = None  # an engine the command needs
    setup: Callable[[Path], None] = lambda root: (root / "t").mkdir()


def _golden_run(root: Path) -> None:
    (root / "t").mkdir()
    shutil.copytree(GOLDEN / "sqlite-brokerage", root / "res" / "r1")
    shutil.copytree(GOLDEN / "sqlite-brokerage", root / "base" / "r0")  # check's baseline


def _run(engine: str) -> Callable[[Path], list[str]]:
    load = DSS if engine == "duckdb" else DB  # a workload with SQL for the engine
    return lambda r: ["run", "--engine", engine, "--target", str(r / "t"), *load, "--out", str(r / "o")]  # fmt: skip


IO = lambda r: ["io", "--target", str(r / "t"), "--size", "4MiB", "--iodepth", "1", *FAST,  # noqa: E731
                "--out", str(r / "o")]  # fmt: skip
CASES = {
    "io test file": Case("t/dbstor-io-oltp-0.dat", IO),
    "io manifest": Case("t/.dbstor-owned.json", IO),
    **{
        f"sqlite {end or 'file'}": Case(f"t/dbstor-sqlite-0.db{end}", _run("sqlite"), "sqlite")
        for end in ("", "-wal", "-shm", "-journal")
    },
    "duckdb file": Case("t/dbstor-duckdb-0.db", _run("duckdb"), "duckdb"),
    "duckdb wal": Case("t/dbstor-duckdb-0.db.wal", _run("duckdb"), "duckdb"),
    "duckdb temp folder": Case("t/dbstor-duckdb-0.tmp", _run("duckdb"), "duckdb"),
    "postgres folder": Case("t/dbstor-pg-0", _run("postgres"), "postgres"),
    "mariadb folder": Case("t/dbstor-mariadb-0", _run("mariadb"), "mariadb"),
    "index.html": Case("res/index.html", lambda r: ["index", str(r / "res")], setup=_golden_run),
    "index.json": Case("res/index.json", lambda r: ["index", str(r / "res")], setup=_golden_run),
    "export --sqlite": Case(
        "x.sqlite", lambda r: ["export", str(r / "res"), "--sqlite", str(r / "x.sqlite")],
        setup=_golden_run,
    ),
    "export --duckdb": Case(
        "x.duckdb", lambda r: ["export", str(r / "res"), "--duckdb", str(r / "x.duckdb")],
        setup=_golden_run,
    ),
    "export --parquet": Case(
        "pq/samples.parquet", lambda r: ["export", str(r / "res"), "--parquet", str(r / "pq")],
        setup=lambda r: (_golden_run(r), (r / "pq").mkdir()),
    ),
    "check --junit": Case(
        "j.xml",
        lambda r: ["check", str(r / "res" / "r1"), "--baseline", str(r / "base" / "r0"),
                   "--junit", str(r / "j.xml")],
        setup=_golden_run,
    ),
    "study --shrink": Case(
        "sh/FLASH",
        lambda r: ["study", str(EXAMPLES / "tr-4403-brokerage.toml"), "--shrink", str(r / "sh")],
        setup=lambda r: (r / "sh").mkdir(),
    ),
    "report --pdf": Case(
        "res/r1/report.pdf", lambda r: ["report", str(r / "res" / "r1"), "--pdf"],
        setup=_golden_run,
    ),
}  # fmt: skip


def _victims(root: Path) -> None:
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "theirs.txt").write_text(THEIRS)
    (root / "elsewhere.txt").write_text(THEIRS)


def _untouched(root: Path) -> None:
    assert [p.name for p in (root / "elsewhere").iterdir()] == ["theirs.txt"]
    assert (root / "elsewhere" / "theirs.txt").read_text() == THEIRS
    assert (root / "elsewhere.txt").read_text() == THEIRS


def _plant(path: Path, plant: str, root: Path) -> None:
    if plant == "link to a file":
        path.symlink_to(root / "elsewhere.txt")
    elif plant == "link to a folder":
        path.symlink_to(root / "elsewhere", target_is_directory=True)
    elif plant == "dangling link":
        path.symlink_to(root / "nowhere")
    else:
        path.write_text(THEIRS)


@pytest.mark.parametrize(
    "plant", ["link to a file", "link to a folder", "dangling link", "foreign file"]
)
@pytest.mark.parametrize("case", list(CASES))
def test_every_name_dbstor_writes_refuses_links_and_foreign_files(dbstor, request, case, plant):
    spec = CASES[case]
    if spec.engine:
        usable(spec.engine)
    if case == "report --pdf" and shutil.which("chromium") is None:
        pytest.skip("chromium is not installed")  # CI installs it: a failure there (-rs)
    servers = ("postgres", "mariadb")  # their accounts reach only a traversable folder
    root = request.getfixturevalue("server_dir" if spec.engine in servers else "tmp_path")
    spec.setup(root)
    _victims(root)
    planted = root / spec.name
    _plant(planted, plant, root)
    before = {p.name for p in root.iterdir()}
    beside = {p.name for p in planted.parent.iterdir()}
    proc = dbstor(*spec.args(root))
    dbstor.assert_user_error(proc, planted.name)
    _untouched(root)
    if plant == "foreign file":
        assert planted.read_text() == THEIRS
    else:
        assert planted.is_symlink()
    assert not (root / "nowhere").exists()  # a dangling link is never made real
    assert {p.name for p in root.iterdir()} - before <= {"o"}  # at most its --out
    after = {p.name for p in planted.parent.iterdir()}
    assert after == beside  # nothing written beside it either (all checked before any write)
