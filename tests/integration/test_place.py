"""Placement of named tables and indexes on a target role's path ([databases] place,
--place) against real PostgreSQL, MariaDB and SQLite: the objects' files end up under the
fast path, the workload still runs, refusals are one line with nothing created, and
advise's choice written as a study runs as a before/after comparison."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopfs import mounted_loop_fs
from needs import usable

from dbstor.engines.base import EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.workloads.registry import workload_class

pytestmark = pytest.mark.integration

FAST = ("--users", "1", "--duration", "1", "--warmup", "0", "--scale", "50", "--quiet")


@pytest.fixture
def tiers() -> Iterator[tuple[Path, Path]]:
    """A slow and a fast directory a server's unprivileged account can reach."""
    base = Path(tempfile.mkdtemp(prefix="dbstor-place-"))
    base.chmod(0o711)
    slow, fast = base / "slow", base / "fast"
    slow.mkdir()
    fast.mkdir()
    yield slow, fast
    shutil.rmtree(base, ignore_errors=True)


def loaded(engine_name: str, slow: Path, fast: Path, place: dict[str, str]):
    engine = engine_class(engine_name)(
        EngineSettings(paths={"data": [slow], "fast": [fast]}, buffer_bytes=8 << 20, place=place)
    )
    workload = workload_class("brokerage")(50)
    engine.start()
    report = workload.create(engine, lambda line: None)
    engine.placed = engine.place_objects("brokerage", lambda line: None)
    return engine, report


def by_name(placed: list[dict]) -> dict[str, dict]:
    return {row["object"]: row for row in placed}


def test_postgres_puts_a_table_and_an_index_in_a_tablespace_on_the_fast_path(tiers) -> None:
    usable("postgres")
    slow, fast = tiers
    engine, report = loaded("postgres", slow, fast, {"trade_history": "fast", "trade_ca_*": "fast"})
    try:
        location = engine.query(
            "SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = 'dbstor_place_fast'"
        )[0][0]
        assert Path(location).is_relative_to(fast)
        spaces = dict(
            engine.query(
                "SELECT c.relname, coalesce(t.spcname, 'default') FROM pg_class c "
                "LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace "
                "WHERE c.relname IN ('trade_history', 'trade_ca_dts', 'trade', 'trade_history_pkey')"
            )
        )
        assert spaces == {
            "trade_history": "dbstor_place_fast",
            "trade_ca_dts": "dbstor_place_fast",
            "trade": "default",  # not named
            "trade_history_pkey": "default",  # a table's indexes stay unless named
        }
        rows = engine.query("SELECT count(*) FROM trade_history")[0][0]
        assert rows == report.tables["trade_history"] > 0
        placed = by_name(engine.placed)
        for name in ("trade_history", "trade_ca_dts"):
            assert placed[name]["role"] == "fast" and placed[name]["placed"]
            file = Path(placed[name]["file"])
            assert file.is_relative_to(fast)  # size: the main fork, + FSM, VM, TOAST for a table
            assert 0 < file.stat().st_size <= placed[name]["size_bytes"]
        assert placed["trade"]["role"] == "data"
        assert Path(placed["trade"]["file"]).is_relative_to(slow)
    finally:
        engine.stop()
    assert list(fast.iterdir()) == [] and list(slow.iterdir()) == []


def test_mariadb_rebuilds_a_table_in_a_data_directory_on_the_fast_path(tiers) -> None:
    usable("mariadb")
    slow, fast = tiers
    engine, report = loaded("mariadb", slow, fast, {"trade_history": "fast"})
    try:
        conn = engine.connect()
        with conn.cursor() as cur:
            cur.execute("SHOW CREATE TABLE trade_history")
            create = cur.fetchone()[1]
            cur.execute("SELECT count(*) FROM trade_history")
            rows = cur.fetchone()[0]
            cur.execute("SHOW TABLES")
            tables = {row[0] for row in cur.fetchall()}
        conn.close()
        assert f"DATA DIRECTORY='{fast}" in create and "PRIMARY KEY" in create
        assert rows == report.tables["trade_history"]
        assert not any("__dbstor" in t for t in tables)  # the copy swapped in, the old dropped
        placed = by_name(engine.placed)
        file = Path(placed["trade_history"]["file"])
        assert file.is_relative_to(fast) and file.name == "trade_history.ibd" and file.exists()
        assert Path(placed["trade"]["file"]).is_relative_to(slow)
    finally:
        engine.stop()
    assert list(fast.iterdir()) == [] and list(slow.iterdir()) == []


def test_sqlite_moves_a_table_into_a_file_on_the_fast_path_and_sessions_find_it(tiers) -> None:
    slow, fast = tiers
    engine, report = loaded("sqlite", slow, fast, {"trade_history": "fast"})
    try:
        conn = engine.connect()
        where = conn.execute(
            "SELECT count(*) FROM place_fast.sqlite_master WHERE name = 'trade_history'"
        ).fetchone()[0]
        left = conn.execute(
            "SELECT count(*) FROM main.sqlite_master WHERE tbl_name = 'trade_history'"
        ).fetchone()[0]
        rows = conn.execute("SELECT count(*) FROM trade_history").fetchone()[0]  # unqualified
        conn.close()
        assert (where, left, rows) == (1, 0, report.tables["trade_history"])
        placed = by_name(engine.placed)
        assert placed["trade_history"]["file"] == str(fast / "dbstor-sqlite-0-fast.db")
        assert placed["trade"]["role"] == "data" and placed["trade"]["file"] == str(engine.files[0])
    finally:
        engine.stop()
    assert [p.name for p in fast.iterdir() if p.suffix == ".db"] == []


@pytest.mark.parametrize(
    ("engine", "args", "needles"),
    [
        ("postgres", ("--place", "nosuch_*=fast"), ("'nosuch_*' names no table", "trade_history")),
        ("mariadb", ("--place", "trade_ca_*=fast"), ("names only indexes", "place the table")),
        ("postgres", ("--place", "trade=log"), ("has no log path", "--target log=")),
    ],
)
def test_bad_place_is_one_line_and_nothing_is_created(dbstor, tiers, engine, args, needles):
    usable(engine)
    slow, fast = tiers
    proc = dbstor(
        "run", "--engine", engine, "--target", slow, "--target", f"fast={fast}",
        *FAST, *args, "--out", "out",
    )  # fmt: skip
    dbstor.assert_user_error(proc, *needles)
    assert list(slow.iterdir()) == [] and list(fast.iterdir()) == []
    assert not (dbstor.cwd / "out").exists()


def test_an_engine_that_cannot_place_is_refused_in_one_line(dbstor, tiers) -> None:
    slow, fast = tiers
    proc = dbstor(
        "run", "--engine", "duckdb", "--workload", "dss", "--scale", "0.01",
        "--target", slow, "--target", f"fast={fast}", "--place", "lineitem=fast", "--out", "out",
    )  # fmt: skip
    dbstor.assert_user_error(proc, "DuckDB cannot put single tables", "drop place")
    assert list(slow.iterdir()) == [] and not (dbstor.cwd / "out").exists()


@pytest.fixture
def fast_device(tiers) -> Iterator[tuple[Path, Path, str]]:
    """The slow directory, and a fast one on a device of its own (an ext4 loop file
    system) with its /proc/diskstats name."""
    slow, fast = tiers
    with mounted_loop_fs(fast, "96M") as fs:
        fs.path.chmod(0o711)
        (fs.path / "moved").mkdir()
        yield slow, fs.path / "moved", fs.device.name


def test_advise_writes_a_before_after_study_that_runs_and_compares(dbstor, fast_device) -> None:
    """... and the after-run measures its fast device: the moved objects' I/O is counted
    there (issue 33: every device of every role measured), beside the before-run."""
    usable("postgres")
    slow, fast, loop = fast_device
    first = dbstor(
        "run", "--engine", "postgres", "--target", slow, "--users", "1,2", "--duration", "1",
        "--warmup", "0", "--scale", "50", "--buffer", "1MiB", "--quiet", "--out", "first",
        timeout=300,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    run = dbstor.only_run_folder(dbstor.cwd / "first")
    study = dbstor.cwd / "moved.toml"
    advice = dbstor(
        "advise", run, "--fast-capacity", "4MB", "--fast-path", fast, "--write-study", study
    )
    assert advice.returncode == 0, advice.stderr
    text = study.read_text()
    assert 'label = "before"' in text and f'fast = "{fast}"' in text and "place = {" in text
    again = dbstor("run", study, "--quiet", "--out", "second", timeout=600)
    assert again.returncode == 0, again.stderr
    runs = {
        dbstor.results(f)["target"]["label"]: dbstor.results(f)
        for f in dbstor.run_folders(dbstor.cwd / "second")
    }
    assert set(runs) == {"before", "after"}
    for label, home in (("before", slow), ("after", fast)):
        moved = [r for r in runs[label]["engine"]["placement"] if r["placed"]]
        assert moved and all(r["role"] == "fast" for r in moved)
        assert all(Path(r["file"]).is_relative_to(home) for r in moved), (label, moved)
        assert [p["status"] for p in runs[label]["points"]] == ["ok", "ok"]
    comparison = next((dbstor.cwd / "second").rglob("comparison.json"))
    assert "after" in comparison.read_text() and "before" in comparison.read_text()
    after, before = runs["after"], runs["before"]
    assert after["target"]["roles"]["fast"]["devices"] == [loop]
    assert loop not in after["target"]["roles"]["data"]["devices"]
    for point in after["points"]:
        assert point["roles"]["fast"]["devices"] == [loop]
        assert point["roles"]["fast"]["read_iops"] is not None
    # the before-run keeps its "fast" objects on the slow path: the data's device
    roles = before["target"]["roles"]
    assert roles["fast"]["devices"] == roles["data"]["devices"]
    document = (comparison.parent / "report.html").read_text()
    table = document[document.index("Where the I/O went") :]
    assert f"<td>{loop}</td>" in table[: table.index("</table>")]
    layout = document[document.index('<table class="layout">') :]
    assert f"<td>fast</td><td>{loop}</td>" in layout[: layout.index("</table>")]
