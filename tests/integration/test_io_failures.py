"""What goes wrong: bad input, unusable targets, a disk filling up mid-run, Ctrl-C.

Every user-side failure is one line on stderr starting 'dbstor: error:', exit status 2,
no traceback, and nothing of the user's destroyed; finished load points are kept.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

TINY = ("--iodepth", "1", "--duration", "1", "--warmup", "0", "--size", "16MiB")


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "target"
    path.mkdir()
    return path


def _no_results(out: Path) -> None:
    assert not out.exists() or not list(out.rglob("results.json")), list(out.rglob("*"))


# --- bad input -------------------------------------------------------------------------


def test_unknown_profile_suggests_the_close_one(dbstor, target):
    proc = dbstor("io", "--target", target, "--profile", "io-oltpp", *TINY)
    dbstor.assert_user_error(proc, "io-oltpp", "did you mean 'io-oltp'")


def test_list_with_a_non_number_names_the_flag(dbstor, target):
    proc = dbstor("io", "--target", target, "--iodepth", "1,x", "--duration", "1")
    dbstor.assert_user_error(proc, "--iodepth", "1,x")


def test_zero_slo_is_refused(dbstor, target):
    proc = dbstor("io", "--target", target, *TINY, "--slo", "0ms")
    dbstor.assert_user_error(proc, "--slo")


def test_study_file_with_a_syntax_error_names_the_file(dbstor, tmp_path):
    study = tmp_path / "broken.toml"
    study.write_text('[study\nname = "x"\n', encoding="utf-8")
    proc = dbstor("run", study, "--out", "out")
    dbstor.assert_user_error(proc, "broken.toml", "TOML")
    _no_results(tmp_path / "out")


def test_study_file_with_an_unknown_field_names_file_and_field(dbstor, tmp_path, target):
    study = tmp_path / "typo.toml"
    study.write_text(
        f'[study]\ndurration = "1s"\n\n[[targets]]\nlabel = "A"\npath = "{target}"\n',
        encoding="utf-8",
    )
    proc = dbstor("run", study, "--out", "out")
    line = dbstor.assert_user_error(proc, "typo.toml", "study.durration")
    assert "duration" in line.replace("durration", "")  # the field it probably meant
    _no_results(tmp_path / "out")


# --- unusable targets ------------------------------------------------------------------


def test_missing_target_path(dbstor, tmp_path):
    missing = tmp_path / "no" / "such" / "dir"
    proc = dbstor("io", "--target", missing, *TINY, "--out", "out", "--quiet")
    dbstor.assert_user_error(proc, str(missing), "does not exist")
    assert not missing.exists()
    _no_results(tmp_path / "out")


def test_read_only_target(loop_fs, dbstor, tmp_path):
    loop_fs.remount("ro")
    proc = dbstor("io", "--target", loop_fs.path, *TINY, "--out", "out", "--quiet")
    dbstor.assert_user_error(proc, str(loop_fs.path), "read-only")
    _no_results(tmp_path / "out")


def test_fio_not_installed(dbstor, tmp_path, target):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bin_dir)}
    proc = dbstor("io", "--target", target, *TINY, "--out", "out", "--quiet", env=env)
    dbstor.assert_user_error(proc, "fio is not installed", "apt-get install fio")
    assert dbstor.leftovers(target) == []
    _no_results(tmp_path / "out")


def test_foreign_file_is_refused_then_accepted_with_allow_overwrite(dbstor, tmp_path, target):
    foreign = target / "dbstor-io-oltp-0.dat"
    precious = b"somebody's data, not dbstor's\n" * 100
    foreign.write_bytes(precious)

    proc = dbstor("io", "--target", target, *TINY, "--out", "out", "--quiet")
    dbstor.assert_user_error(proc, str(foreign), "--allow-overwrite")
    assert foreign.read_bytes() == precious
    assert not (target / ".dbstor-owned.json").exists()
    _no_results(tmp_path / "out")

    proc = dbstor("io", "--target", target, *TINY, "--out", "out", "--quiet", "--allow-overwrite")
    assert proc.returncode == 0, proc.stderr
    assert dbstor.results(dbstor.only_run_folder(tmp_path / "out"))["status"] == "complete"


def test_block_device_is_refused_without_both_flags(loop_fs, dbstor, tmp_path):
    marker = loop_fs.path / "keep-me.txt"
    marker.write_text("still here\n", encoding="utf-8")
    os.sync()
    device = str(loop_fs.device)
    for extra in ((), ("--allow-overwrite",), ("--i-know-this-destroys-data",)):
        proc = dbstor("io", "--target", device, *TINY, "--out", "out", "--quiet", *extra)
        dbstor.assert_user_error(proc, device, "--allow-overwrite", "--i-know-this-destroys-data")
    assert marker.read_text(encoding="utf-8") == "still here\n"
    _no_results(tmp_path / "out")


def test_size_larger_than_the_free_space_is_refused_before_any_point(loop_fs, dbstor, tmp_path):
    before = sorted(p.name for p in loop_fs.path.iterdir())
    free_mib = loop_fs.free_bytes() // 1024**2
    size = f"{free_mib + 16}MiB"
    proc = dbstor(
        "io", "--target", loop_fs.path, "--iodepth", "1", "--duration", "1",
        "--size", size, "--out", "out", "--quiet",
    )  # fmt: skip
    dbstor.assert_user_error(proc, str(loop_fs.path), "free", "--size")
    assert sorted(p.name for p in loop_fs.path.iterdir()) == before
    _no_results(tmp_path / "out")


# --- the disk filling up mid-run, and Ctrl-C ------------------------------------------


def _fill(directory: Path) -> None:
    """Write zeros into directory until the file system is full."""
    chunk = bytes(1024 * 1024)
    with open(directory / "filler.bin", "wb", buffering=0) as handle:
        for size in (1024 * 1024, 64 * 1024, 4096):
            block = chunk[:size]
            while True:
                try:
                    handle.write(block)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
        os.fsync(handle.fileno())


def test_results_disk_filling_up_ends_the_run_cleanly(loop_fs, dbstor, tmp_path, target):
    out = loop_fs.path / "out"
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1,2,4", "--duration", "2", "--warmup", "0",
        "--size", "16MiB", "--out", out, "--quiet",
    )  # fmt: skip
    dbstor.wait_for_points(out, 1, proc)
    _fill(loop_fs.path)
    stdout, stderr = proc.communicate(timeout=60)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    line = dbstor.assert_user_error(done)
    assert "full" in line or "no space" in line.lower(), line

    results = dbstor.results(dbstor.only_run_folder(out))
    ok = [p for p in results["points"] if p["status"] == "ok"]
    assert ok and ok[0]["load"]["value"] == 1
    assert ok[0]["read_iops"] > 0
    assert results["status"] in ("failed", "running")  # whatever fit before the disk filled
    assert dbstor.leftovers(target) == []


@pytest.mark.parametrize("to_group", [False, True], ids=["to-dbstor", "to-process-group"])
def test_ctrl_c_keeps_the_finished_points(dbstor, tmp_path, target, to_group):
    out = tmp_path / "out"
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1,2,4", "--duration", "2", "--warmup", "0",
        "--size", "16MiB", "--out", out,
    )  # fmt: skip
    dbstor.wait_for_points(out, 1, proc)
    if to_group:  # what a terminal's Ctrl-C does: dbstor and fio both get SIGINT
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert "finished load points are kept" in stderr

    folder = dbstor.only_run_folder(out)
    results = dbstor.results(folder)
    assert results["status"] == "interrupted"
    assert results["points"], "the finished point was lost"
    assert all(p["status"] == "ok" for p in results["points"])
    assert results["points"][0]["load"]["value"] == 1
    assert len(results["points"]) < 3
    with open(folder / "samples.csv", newline="", encoding="utf-8") as handle:
        assert {row["point"] for row in csv.DictReader(handle)} >= {"1"}
    json.dumps(results)  # parsed and whole
    assert dbstor.leftovers(target) == []


def test_ctrl_c_while_laying_out_leaves_no_file_behind(dbstor, tmp_path, target):
    """Interrupted before any point: nothing of dbstor's stays in the target, and the next
    run is not refused because of a half-written file dbstor no longer recognises."""
    out = tmp_path / "out"
    data = target / "dbstor-io-oltp-0.dat"
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1", "--duration", "1", "--warmup", "0",
        "--size", "1GiB", "--out", out, "--quiet",
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not (data.exists() and data.stat().st_size > 0):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the layout never started"
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    results = dbstor.results(dbstor.only_run_folder(out))
    assert results["status"] == "interrupted" and results["points"] == []
    assert dbstor.leftovers(target) == []

    again = dbstor("io", "--target", target, *TINY, "--out", out, "--quiet")
    assert again.returncode == 0, again.stderr
