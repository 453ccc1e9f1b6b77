"""SIGTERM and SIGHUP end a run like Ctrl-C (finished points kept, nothing it started left
running, exit status 128 + the signal), and a point during which dbstor was stopped
(SIGSTOP) is marked interrupted with the gap."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from needs import usable
from proc_tree import cmdline, descendants, still_running, watch

pytestmark = pytest.mark.integration

STATUS = {signal.SIGTERM: 143, signal.SIGHUP: 129}
CASES = [
    pytest.param(signal.SIGTERM, False, id="sigterm-to-dbstor"),
    pytest.param(signal.SIGHUP, True, id="sighup-to-the-session"),  # a terminal closing
]


def _send(pid: int, sig: signal.Signals, to_group: bool) -> None:
    if to_group:
        os.killpg(pid, sig)
    else:
        os.kill(pid, sig)


def _ended_cleanly(dbstor, proc, sig, seen: dict[int, str], out: Path) -> dict:
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == STATUS[sig], stderr
    assert "Traceback" not in stderr, stderr
    assert f"interrupted ({sig.name}); finished load points are kept" in stderr, stderr
    assert still_running(seen, wait_s=15) == {}
    results = dbstor.results(dbstor.only_run_folder(out))
    assert results["status"] == "interrupted"
    assert results["points"] and results["points"][0]["status"] == "ok", results["points"]
    return results


@pytest.mark.skip_without_fio
@pytest.mark.parametrize(("sig", "to_group"), CASES)
def test_a_signal_mid_point_ends_an_io_run_like_ctrl_c(dbstor, tmp_path, sig, to_group):
    target = tmp_path / "target"
    target.mkdir()
    out = tmp_path / "out"
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1,2", "--duration", "6", "--warmup", "0",
        "--size", "16MiB", "--jobs", "2", "--out", out,
    )  # fmt: skip
    dbstor.wait_for_points(out, 1, proc)
    deadline = time.monotonic() + 30
    while not any("point-02.fio" in cmdline(p) for p in descendants(proc.pid)):
        assert time.monotonic() < deadline, "the second point's fio never started"
        time.sleep(0.05)
    seen = watch([proc.pid], 0.5)
    assert sum("fio" in cmdline(p).split(" ")[0] for p in seen) >= 2, seen
    _send(proc.pid, sig, to_group)
    results = _ended_cleanly(dbstor, proc, sig, seen, out)
    assert len(results["points"]) == 1
    assert dbstor.leftovers(target) == []


@pytest.mark.parametrize(("sig", "to_group"), CASES)
def test_a_signal_mid_point_ends_a_postgres_run_like_ctrl_c(
    dbstor, tmp_path, server_dir, sig, to_group
):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    out = tmp_path / "out"
    proc = dbstor.start(
        "run", "--engine", "postgres", "--target", target, "--client-processes", "2",
        "--users", "2,3", "--duration", "4", "--warmup", "0", "--scale", "50", "--out", out,
    )  # fmt: skip
    dbstor.wait_for_points(out, 1, proc, timeout=300)
    pidfile = next(target.glob("dbstor-pg-*/data/postmaster.pid"))
    postmaster = int(pidfile.read_text().splitlines()[0])
    me = cmdline(proc.pid)
    deadline = time.monotonic() + 30
    while sum(cmdline(p) == me for p in descendants(proc.pid)) < 3:  # the second point's clients
        assert time.monotonic() < deadline, "the second point's client processes never started"
        time.sleep(0.05)
    seen = watch([proc.pid, postmaster], 0.5)
    assert sum("postgres" in cmdline(p) for p in seen) > 1, seen
    _send(proc.pid, sig, to_group)
    results = _ended_cleanly(dbstor, proc, sig, seen, out)
    assert len(results["points"]) == 1
    assert list(target.iterdir()) == []  # the managed server's instance folder is gone


@pytest.mark.skip_without_fio
def test_a_point_during_which_dbstor_was_stopped_is_interrupted_with_the_gap(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    out = tmp_path / "out"
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1,2", "--duration", "6", "--warmup", "0",
        "--size", "16MiB", "--out", out,
    )  # fmt: skip
    dbstor.wait_for_points(out, 1, proc)
    deadline = time.monotonic() + 30
    while not any("point-02.fio" in cmdline(p) for p in descendants(proc.pid)):
        assert time.monotonic() < deadline, "the second point's fio never started"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGSTOP)  # dbstor alone, as Ctrl-Z's stop of one process
    time.sleep(4)
    os.kill(proc.pid, signal.SIGCONT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    points = dbstor.results(dbstor.only_run_folder(out))["points"]
    assert [p["status"] for p in points] == ["ok", "interrupted"], points
    assert "paused_s" not in points[0]
    assert 3.5 <= points[1]["paused_s"] < 30, points[1]
    assert "stopped or its clock jumped" in points[1]["error"]
    report = (dbstor.only_run_folder(out) / "report.html").read_text(encoding="utf-8")
    assert "interrupted: dbstor was stopped" in report
    assert dbstor.leftovers(target) == []
