"""Two real runs at once: the same --out or the same target is refused in one line naming
the first run (pid, host, start) before the second creates anything; a different target
with a different --out runs beside it."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

FAST = ("--size", "8MiB", "--warmup", "0s")


def _io(target: Path, out: Path, *more: str) -> tuple[str, ...]:
    return ("io", "--target", f"{target.name}={target}", *FAST, "--out", str(out), *more)


def test_one_run_per_out_and_per_target(dbstor, tmp_path: Path):
    first_target, other_target = tmp_path / "A", tmp_path / "B"
    first_target.mkdir()
    other_target.mkdir()
    first = dbstor.start(*_io(first_target, tmp_path / "out1", "--iodepth", "1,2,4,8",
                              "--duration", "4s"))  # fmt: skip
    dbstor.wait_for_points(tmp_path / "out1", 1, first, timeout=120)
    before = sorted(p.name for p in first_target.iterdir())

    same_target = dbstor(*_io(first_target, tmp_path / "out2", "--iodepth", "1"))
    line = dbstor.assert_user_error(same_target, f"pid {first.pid}", socket.gethostname())
    assert "started" in line and str(first_target) in line
    assert not (tmp_path / "out2").exists()
    same_out = dbstor(*_io(other_target, tmp_path / "out1", "--iodepth", "1"))
    dbstor.assert_user_error(same_out, f"pid {first.pid}", "--out")
    assert list(other_target.iterdir()) == []
    assert sorted(p.name for p in first_target.iterdir()) == before

    assert first.poll() is None  # still running: the next run goes on beside it
    beside = dbstor(*_io(other_target, tmp_path / "out3", "--iodepth", "1", "--duration", "1s"))
    assert beside.returncode == 0, beside.stderr

    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    results = dbstor.results(dbstor.only_run_folder(tmp_path / "out1"))
    assert [p["load"]["value"] for p in results["points"]] == [1, 2, 4, 8]
    # the lock ended with the first run: the same target and --out take a run again
    again = dbstor(*_io(first_target, tmp_path / "out1", "--iodepth", "1", "--duration", "1s"))
    assert again.returncode == 0, again.stderr


def test_a_run_killed_with_kill_9_leaves_no_lock(dbstor, tmp_path: Path):
    """The kernel drops an flock with its holder: after kill -9 the next run goes ahead."""
    target = tmp_path / "A"
    target.mkdir()
    first = dbstor.start(*_io(target, tmp_path / "out", "--iodepth", "1,2,4", "--duration", "5s"))
    dbstor.wait_for_points(tmp_path / "out", 1, first, timeout=120)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    again = dbstor(*_io(target, tmp_path / "out", "--iodepth", "1", "--duration", "1s"))
    assert again.returncode == 0, again.stderr
