"""Whose numbers are these: a real database point beside other work on the same disk and
the same CPU. The run's own processes sit in dbstor's cgroup (cgroup v1 blkio + cpuacct
here); the device's and the host's figures include the other work, the own figures do not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from needs import usable

pytestmark = pytest.mark.integration

SHORT = ("--duration", "4", "--warmup", "1", "--scale", "50")


@contextmanager
def running(cmd: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """A process beside the run, in its own session; stopped (its group) at the end."""
    proc = subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def reader(big: Path) -> list[str]:
    """Reads `big` with O_DIRECT again and again: device reads that are not the run's."""
    with big.open("wb") as out:
        for _ in range(64):
            out.write(os.urandom(1 << 20))
    loop = f"while true; do dd if={big} of=/dev/null bs=16k iflag=direct status=none; done"
    return ["bash", "-c", loop]


def sqlite_point(dbstor, tmp_path: Path) -> dict:
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "sqlite", "--target", target, "--users", "2", *SHORT, "--out", "out"
    )
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "out")
    again = dbstor("report", folder)  # the new fields load back and render
    assert again.returncode == 0, again.stderr
    return dbstor.results(folder)["points"][0]


def test_a_reader_beside_the_database_is_foreign_and_reads_still_come_from_memory(dbstor, tmp_path):
    with running(reader(tmp_path / "big")):
        time.sleep(1)
        point = sqlite_point(dbstor, tmp_path)
    own, engine = point["own_io"], point["engine_io"]
    assert own["source"].startswith("cgroup v1"), own["source"]
    assert own["device"] == point["device"]["name"]
    # the small database is in memory: the engine's processes read (almost) nothing ...
    assert own["reads_per_txn"] < 0.05
    # ... while the device read a lot: the reader's, not the run's
    assert engine["host_device_reads_per_txn"] > 0.05
    assert point["foreign_io_share"] > 0.5 and point["shared_device"] is True
    assert engine["device_reads_per_txn"] == own["reads_per_txn"]
    notes = point["trust"]["notes"]
    assert any(n.startswith("reads came from memory") for n in notes), notes
    assert any(n.startswith("shared device:") for n in notes), notes
    report = (dbstor.only_run_folder(tmp_path / "out") / "report.html").read_text()
    assert "The device was shared: at 2 users, " in report


def test_own_cpu_is_apart_from_a_busy_loop_beside(dbstor, tmp_path):
    loop = [sys.executable, "-c", "while True: pass"]
    with running(loop) as busy:
        time.sleep(0.5)
        started, t0 = _cpu_s(busy.pid), time.monotonic()
        point = sqlite_point(dbstor, tmp_path)
        loop_pct = 100 * (_cpu_s(busy.pid) - started) / (time.monotonic() - t0) / os.cpu_count()
    cpu = point["cpu"]
    assert cpu["own_source"].startswith("cgroup v1")
    assert cpu["server_pct"] is None, "SQLite has no server process: it runs in the clients"
    assert 0 < cpu["own_pct"] == pytest.approx(cpu["client_pct"])
    assert cpu["own_pct"] + cpu["other_pct"] == pytest.approx(cpu["util_pct"], abs=0.01)
    # the loop's share of the host is other work, not the run's (on a machine shared with
    # more work the other share is larger still)
    assert loop_pct > 5
    assert cpu["other_pct"] > 0.6 * loop_pct
    assert any(n.startswith("busy host:") for n in point["trust"]["notes"])


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_postgres_capped_reads_are_its_own(dbstor, tmp_path, server_dir):
    """PostgreSQL with a small buffer under a memory cap reads from the device; its own
    reads in the cgroup agree with what its processes read (/proc/PID/io) and the server's
    CPU is counted apart from the client's."""
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", "--target", target, "--users", "2",
        "--duration", "4", "--warmup", "1", "--scale", "400",  # more than the cap holds
        "--buffer", "16MiB", "--memory-limit", "96MiB", "--out", "out",
        timeout=400,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    point = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))["points"][0]
    own = point["own_io"]
    server, client = own["roles"]["server"]["reads"], own["roles"]["client"]["reads"]
    assert server > 0 and client < server / 10, (server, client)  # the clients read little
    # the cgroup's bytes read and the server's /proc read_bytes count the same reads
    proc_bytes = point["engine_io"]["storage_read_bytes"]
    assert abs(own["read_bytes"] - proc_bytes) <= 0.2 * max(own["read_bytes"], proc_bytes) + (
        1 << 20
    ), (own["read_bytes"], proc_bytes)
    assert point["cpu"]["server_pct"] > 0 and point["cpu"]["client_pct"] > 0
    assert leftover_groups() == [], "every point's groups are removed"


def leftover_groups() -> list[Path]:
    """dbstor's own accounting groups whose dbstor process is gone."""
    groups = [
        g
        for root in ("/sys/fs/cgroup/blkio", "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/unified")
        for g in Path(root).glob("dbstor-own-*")
    ]
    return [g for g in groups if not Path(f"/proc/{g.name.split('-')[2]}").exists()]


@pytest.mark.skip_without_fio
def test_fio_at_a_low_rate_beside_a_reader_sees_the_device_excess_as_foreign(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    with running(reader(tmp_path / "big")):
        time.sleep(1)
        proc = dbstor(
            "io", "--target", target, "--rate", "200", "--duration", "3", "--warmup", "1",
            "--size", "16MiB", "--out", "out",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    point = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))["points"][0]
    own = point["own_io"]
    assert own["source"] == "fio's output"
    assert own["reads"] + own["writes"] == pytest.approx(200 * 3, rel=0.2)
    assert point["foreign_io_share"] > 0.5 and point["shared_device"] is True


def test_a_target_on_tmpfs_has_no_foreign_share_and_says_why(dbstor, tmp_path):
    target = Path("/dev/shm") / f"dbstor-own-{os.getpid()}"
    target.mkdir()
    try:
        proc = dbstor(
            "run", "--engine", "sqlite", "--target", target, "--users", "1", *SHORT,
            "--out", tmp_path / "out",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    finally:
        target.rmdir()
    point = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))["points"][0]
    assert point["foreign_io_share"] is None and point["shared_device"] is False
    assert "no block device" in point["foreign_io_reason"]
    assert point["own_io"]["reads"] is None, "no device: not measured, not 0"
    assert point["cpu"]["own_pct"] > 0
