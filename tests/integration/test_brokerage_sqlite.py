"""The brokerage workload on the real SQLite engine: build, every transaction from four
threads, invariants, deterministic generation, and the I/O shape at the storage."""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import brokerage_checks as checks
import pytest

from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.brokerage import MIX, BrokerageWorkload
from dbstor.workloads.brokerage.schema import TABLES

pytestmark = pytest.mark.integration
SCALE = 200


def make_engine(root: Path, paths: int = 1) -> SQLiteEngine:
    dirs = [root / f"d{k}" for k in range(paths)]
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    engine = SQLiteEngine(EngineSettings(paths={"data": dirs}))
    engine.start()
    return engine


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SQLiteEngine, BrokerageWorkload, object]]:
    engine = make_engine(tmp_path_factory.mktemp("brokerage"), paths=2)
    workload = BrokerageWorkload(SCALE, seed=3)
    lines: list[str] = []
    report = workload.create(engine, lines.append)
    yield engine, workload, report
    engine.stop()


def test_build_counts_and_placement(built):
    engine, workload, report = built
    expected = workload.volumes.expected()
    assert set(report.tables) == {t.name for t in TABLES}
    for table, rows in report.tables.items():
        assert rows == pytest.approx(expected[table], rel=0.1, abs=60), table
    assert report.rows == sum(report.tables.values()) and report.rows_per_s > 0
    assert report.bytes and report.bytes > 0
    conn = engine.connect()
    try:
        conn.commit()
        main = {
            r[0] for r in conn.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")
        }
        other = {
            r[0] for r in conn.execute("SELECT name FROM d1.sqlite_master WHERE type = 'table'")
        }
        assert "trade" in main and "trade_history" in other  # spread round-robin
        assert {t.name for t in TABLES} <= main | other
        counted = {
            t.name: conn.execute(f"SELECT COUNT(*) FROM {t.name}").fetchone()[0] for t in TABLES
        }
        assert counted == report.tables
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 8192
    finally:
        conn.close()


def test_every_transaction_from_four_threads(built):
    engine, workload, _ = built
    conn = engine.connect()
    try:
        before = checks.totals(conn, "sqlite")
        run = checks.drive(engine, workload, per_type=50, threads=4)
        assert not run.errors, run.errors[:5]
        assert all("locked" in k or "busy" in k for k in run.retries), run.retries
        done = sum((s.outcomes for s in run.sessions), start=type(run.sessions[0].outcomes)())
        for txn in MIX:
            assert done[txn] >= 4 * 50 - (8 if txn == "Trade-Order" else 0), (txn, done)
        checks.check_invariants(conn, "sqlite", before, run)
        assert sum(len(s.completed) for s in run.sessions) > 100  # Trade-Results settled trades
    finally:
        conn.close()


def table_digest(engine: SQLiteEngine) -> dict[str, str]:
    conn = engine.connect()
    try:
        out = {}
        for table in TABLES:
            digest = hashlib.sha256()
            for row in conn.execute(f"SELECT * FROM {table.name} ORDER BY {', '.join(table.key)}"):
                digest.update(repr(row).encode())
            out[table.name] = digest.hexdigest()
        return out
    finally:
        conn.close()


def test_generation_is_deterministic(tmp_path):
    digests = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        engine = make_engine(tmp_path / name)
        try:
            BrokerageWorkload(60, seed=seed, options={"trade_days": 2}).create(
                engine, lambda m: None
            )
            digests.append(table_digest(engine))
        finally:
            engine.stop()
    assert digests[0] == digests[1]
    changed = {t for t in digests[0] if digests[0][t] != digests[2][t]}
    assert {"trade", "trade_history", "daily_market", "holding", "customer"} <= changed


def _proc_io() -> dict[str, int]:
    text = Path("/proc/self/io").read_text()
    return {k: int(v) for k, v in (line.split(": ") for line in text.splitlines())}


def _device_stats(path: Path) -> tuple[int, int, int, int] | None:
    """(reads, sectors read, writes, sectors written) of the block device holding `path`,
    from /proc/diskstats; None when it cannot be told (overlay, no /sys)."""
    dev = os.stat(path).st_dev
    link = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    if not link.exists():
        return None
    name = link.resolve().name
    for line in Path("/proc/diskstats").read_text().splitlines():
        fields = line.split()
        if fields[2] == name:
            return int(fields[3]), int(fields[5]), int(fields[7]), int(fields[9])
    return None


def _drop_cache(files: list[Path]) -> None:
    for path in files:
        for file in (path, path.with_name(path.name + "-wal")):
            if file.exists():
                fd = os.open(file, os.O_RDONLY)
                try:
                    os.fsync(fd)
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io (Linux)")
def test_io_shape_at_the_storage(tmp_path, capsys):
    """The mix on a database several times SQLite's cache, the OS cache of its files dropped before
    the run and every 50 transactions (an OS cache far smaller than the database):
    storage reads must dominate storage writes."""
    engine = make_engine(tmp_path)
    try:
        workload = BrokerageWorkload(SCALE, seed=3)
        workload.create(engine, lambda m: None)
        size = sum(f.stat().st_size for f in engine.files)
        assert size > 4 * engine.cache_bytes
        conn = engine.connect()
        session = workload.session(engine, conn, 0)
        rng, names, weights = random.Random(11), list(MIX), list(MIX.values())
        _drop_cache(engine.files)
        before, started = _proc_io(), time.monotonic()
        device_before = _device_stats(tmp_path)
        count = 3000
        for n in range(count):
            session.run(rng.choices(names, weights)[0])
            if n % 50 == 49:
                _drop_cache(engine.files)
        conn.close()
        _drop_cache(engine.files)  # fsync: the last writes reach the storage
        after, seconds = _proc_io(), time.monotonic() - started
        device_after = _device_stats(tmp_path)
        read = after["read_bytes"] - before["read_bytes"]
        write = after["write_bytes"] - before["write_bytes"]
        asked_read = after["rchar"] - before["rchar"]
        asked_write = after["wchar"] - before["wchar"]
        with capsys.disabled():
            print(
                f"\nbrokerage I/O shape, SQLite, scale {SCALE} ({size / 1e6:.0f} MB), "
                f"{count} transactions in {seconds:.1f} s: storage read {read / 1e6:.1f} MB, "
                f"write {write / 1e6:.1f} MB (writes {write / (read + write):.1%} of bytes); "
                f"SQLite asked the OS for {asked_read / 8192 / 1000:.1f}K page reads and "
                f"{asked_write / 8192 / 1000:.1f}K page writes (writes {asked_write / (asked_read + asked_write):.1%})"
            )
            if device_before and device_after:  # the whole device: other I/O counts too
                r, rs, w, ws = (a - b for a, b in zip(device_after, device_before, strict=True))
                print(
                    f"device: {r} reads of {rs * 512 / max(r, 1) / 1024:.1f} KiB on average, "
                    f"{w} writes of {ws * 512 / max(w, 1) / 1024:.1f} KiB (writes {w / max(1, r + w):.1%} of requests)"
                )
        assert read > 0 and write > 0
        assert write < read  # writes are the minority
        assert asked_write / (asked_read + asked_write) < 0.3
    finally:
        engine.stop()
