"""Refusals that need the run to start (a target, an engine, an external server, the free
space, a study file), with progress on: one line, no progress line before it, nothing on
stdout, and no results folder or run folder left (real dbstor in a subprocess)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

TARGET = '[[targets]]\nlabel = "A"\npath = "target"\n'
CASES = {
    "no such target": ["io", "--target", "nowhere"],
    "a file as target": ["run", "--engine", "sqlite", "--target", "afile"],
    "free space": ["io", "--target", "target", "--size", "1000PiB"],
    "queue depth": ["io", "--target", "target", "--iodepth", "1,100000"],
    "data source missing": ["io", "--target", "target", "--data", "from:nowhere"],
    "prometheus down": [
        "io",
        "--target",
        "target",
        "--prometheus",
        "http://127.0.0.1:1",
        "--storage",
        "purefa",
    ],
    "query flag on transactions": ["run", "--engine", "sqlite", "--target", "target", "--cold"],
    "postgres not answering": [
        "run",
        "--engine",
        "postgres",
        "--dsn",
        "postgresql://u@127.0.0.1:1/db",
    ],
    "mariadb not answering": ["run", "--engine", "mariadb", "--dsn", "mysql://u@127.0.0.1:1/db"],
    "mariadb dsn timeout": ["run", "--engine", "mariadb", "--dsn", "mysql://u@h/?read_timeout=abc"],
    "postgres dsn timeout": [
        "run",
        "--engine",
        "postgres",
        "--dsn",
        "postgresql://u@h/db?connect_timeout=abc",
    ],
    "buffer beyond memory": [
        "run",
        "--engine",
        "postgres",
        "--target",
        "target",
        "--buffer",
        "1PiB",
    ],
    "instances beyond the ceiling": [
        "run",
        "--engine",
        "postgres",
        "--target",
        "target",
        "--instances",
        "1,100000",
    ],
    "study: instances beyond the ceiling": ["run", "many.toml"],
    "study: second target missing": ["run", "two.toml"],
    "study: boolean duration": ["run", "bool.toml"],
}


@pytest.mark.parametrize("args", list(CASES.values()), ids=list(CASES))
def test_refused_before_progress_and_folders(dbstor, tmp_path, args):
    (tmp_path / "target").mkdir()
    (tmp_path / "afile").write_text("mine\n")
    (tmp_path / "two.toml").write_text(
        f'{TARGET}[[targets]]\nlabel = "B"\npath = "nowhere"\n', encoding="utf-8"
    )
    (tmp_path / "many.toml").write_text(
        f'{TARGET}[[databases]]\nengine = "sqlite"\ninstances = [1, 100000]\n', encoding="utf-8"
    )
    (tmp_path / "bool.toml").write_text(f"[study]\nduration = true\n{TARGET}", encoding="utf-8")
    short = () if args[1].endswith(".toml") else ("--duration", "1", "--warmup", "0")
    proc = dbstor(*args, *short, "--out", "out", timeout=180)
    dbstor.assert_user_error(proc)  # exactly one line: no progress line came before it
    assert proc.stdout == ""
    assert not (tmp_path / "out").exists(), sorted(map(str, (tmp_path / "out").rglob("*")))
    assert list((tmp_path / "target").iterdir()) == []


def _a_block_device() -> str | None:
    for path in sorted(Path("/dev").glob("loop[0-9]*")):
        if stat.S_ISBLK(path.stat().st_mode):
            return str(path)
    return None


@pytest.mark.parametrize("engine", ["sqlite", "postgres"])
def test_a_block_device_for_a_database_is_refused_before_anything(dbstor, tmp_path, engine):
    device = _a_block_device()
    if device is None:
        pytest.skip("no block device node under /dev")
    proc = dbstor("run", "--engine", engine, "--target", device, "--out", "out")
    dbstor.assert_user_error(proc, "is a block device", "only fio runs on a raw device")
    assert proc.stdout == "" and not (tmp_path / "out").exists()


def test_a_dsn_for_an_embedded_engine_is_refused_before_anything(dbstor, tmp_path):
    """DBSTOR_DSN (or --dsn) with sqlite: refused in preflight naming where the DSN came
    from; an empty DBSTOR_DSN counts as not set."""
    (tmp_path / "target").mkdir()
    env = {**os.environ, "DBSTOR_DSN": "postgresql://u@127.0.0.1:1/db"}
    proc = dbstor("run", "--engine", "sqlite", "--target", "target", "--out", "out", env=env)
    dbstor.assert_user_error(proc, "sqlite is embedded", "DBSTOR_DSN")
    assert proc.stdout == "" and not (tmp_path / "out").exists()
    env["DBSTOR_DSN"] = ""
    proc = dbstor("run", "--engine", "postgres", "--out", "out", env=env)
    dbstor.assert_user_error(proc, "--engine needs --target")


FOREIGN = {  # engine -> (someone else's file where the engine's go, extra flags)
    "sqlite": ("dbstor-sqlite-0.db", ()),
    "sqlite wal": ("dbstor-sqlite-0.db-wal", ()),
    "duckdb": ("dbstor-duckdb-0.db", ("--workload", "dss")),
    "postgres": ("dbstor-pg-0/PG_VERSION", ()),
    "postgres second instance": ("dbstor-pg-1/PG_VERSION", ("--instances", "1,2")),
    "mariadb": ("dbstor-mariadb-0/ibdata1", ()),
}


@pytest.mark.parametrize("case", list(FOREIGN))
def test_someone_elses_files_where_the_engine_goes_are_refused_before_anything(
    dbstor, tmp_path, case
):
    """A user's file where a managed engine's database file or instance directory goes
    (engines' check_target in preflight): one line, no progress, no folder, file untouched."""
    engine = case.split()[0]
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    name, extra = FOREIGN[case]
    mine = tmp_path / "target" / name
    mine.parent.mkdir(parents=True)
    mine.write_text("the user's own\n")
    proc = dbstor(
        "run", "--engine", engine, "--target", "target", *extra,
        "--duration", "1", "--warmup", "0", "--out", "out", timeout=180,
    )  # fmt: skip
    dbstor.assert_user_error(proc, str(mine.relative_to(tmp_path / "target").parts[0]))
    assert "--allow-overwrite" in proc.stderr
    assert proc.stdout == "" and not (tmp_path / "out").exists()
    assert mine.read_text() == "the user's own\n"
    assert {p.name for p in (tmp_path / "target").iterdir()} == {
        mine.relative_to(tmp_path / "target").parts[0]
    }
