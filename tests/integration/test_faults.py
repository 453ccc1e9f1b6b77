"""Faults with a clear end, on real tmpfs mounts and real fio: a results folder whose file
system fills up mid-run, a layout that runs out of space, fio killed mid-point and fio
refusing a job. One line naming the problem (and the full file system), exit 2 where it is
the user's to fix, nothing half-made left, every finished point kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from dbstor.drivers.fio_runner import run_job
from dbstor.errors import UserError

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]


def test_results_folder_filling_up_keeps_the_finished_points(dbstor, tmp_path, tmpfs):
    out = tmpfs("out", "160k")
    target = tmp_path / "target"
    target.mkdir()
    proc = dbstor(
        "io", "--target", target, "--iodepth", "1,2,4,8,16,32", "--duration", "2",
        "--warmup", "0", "--size", "16MiB", "--out", out, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("dbstor: error: the file system at") and str(out) in line, line
    assert "full" in line and "kept" in line, line
    folder = dbstor.only_run_folder(out)
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))  # whole JSON
    assert sum(p["status"] == "ok" for p in data["points"]) >= 1
    names = sorted(p.name for p in folder.rglob("*"))
    assert not [n for n in names if n.endswith(".tmp")], names  # no half-written file
    for json_file in (folder / "jobs").glob("*.json"):
        json.loads(json_file.read_text(encoding="utf-8"))  # fio outputs kept are whole
    rows = (folder / "samples.csv").read_text(encoding="utf-8").splitlines()
    assert len({row.count(",") for row in rows}) == 1, "a half-written samples row"
    assert dbstor.leftovers(target) == []  # the test files were removed


def test_a_layout_that_runs_out_of_space_names_the_file_system(tmp_path, tmpfs):
    target = tmpfs("small", "8m")
    job = f"[layout]\nfilename={target}/dbstor-io-oltp-0.dat\nsize=16M\nrw=write\nbs=1M\n"
    with pytest.raises(UserError) as caught:
        run_job(job, tmp_path / "jobs" / "layout.fio", str(target), timeout_s=120)
    message = str(caught.value)
    assert str(target) in message and "is full" in message, message
    assert "No space left on device" in message and "smaller --size" in message, message


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                raw = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(raw[raw.rfind(")") + 2 :].split()[1]), []).append(
                int(entry.name)
            )
    out, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop(0)
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def test_fio_killed_mid_point_says_so(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1", "--duration", "60", "--warmup", "0",
        "--size", "16MiB", "--out", "out",
    )  # fmt: skip
    deadline = time.monotonic() + 120
    fio = None
    while fio is None and time.monotonic() < deadline:
        for pid in _descendants(proc.pid):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"point-01.fio" in cmd:
                fio = pid  # breadth first: fio's main process comes before its job processes
                break
        time.sleep(0.1)
    assert fio is not None, "fio never started on the first point"
    time.sleep(1)
    os.kill(fio, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert "Traceback" not in stderr, stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    error = data["points"][0]["error"]
    assert data["points"][0]["status"] == "failed" and "killed by signal 9 SIGKILL" in error, error
    assert "no message" not in error


def test_fio_refusing_a_setting_gives_fios_reason(tmp_path):
    job = (
        f"[q]\nfilename={tmp_path}/f.dat\nsize=4M\nrw=randread\nioengine=io_uring\n"
        "iodepth=100000\ntime_based=1\nruntime=1\n"
    )
    with pytest.raises(Exception) as caught:
        run_job(job, tmp_path / "jobs" / "q.fio", str(tmp_path), timeout_s=60)
    message = str(caught.value)
    assert "no message" not in message and "error 22 (Invalid argument)" in message, message


def test_a_database_load_that_fills_the_disk_is_one_line(dbstor, tmp_path, tmpfs):
    """A real tmpfs too small for the database: one line naming it, exit 2, nothing left."""
    small = tmpfs("small", "20m")
    proc = dbstor(
        "run", "--engine", "sqlite", "--target", small, "--scale", "1000", "--users", "1",
        "--duration", "1", "--warmup", "0", "--out", tmp_path / "out",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "filled up while loading brokerage" in last and str(small) in last
    assert "Traceback" not in proc.stderr
    assert list(small.iterdir()) == []


def test_compare_report_to_a_read_only_folder_is_one_line(dbstor, tmp_path, tmpfs):
    """compare --report into a read-only file system: the flag named, exit 2, no trace."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    proc = dbstor(
        "io", "--target", f"A={tmp_path / 'a'}", "--target", f"B={tmp_path / 'b'}",
        "--iodepth", "1", "--duration", "1", "--warmup", "0", "--size", "16MiB",
        "--out", tmp_path / "out", "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (run_folder,) = (tmp_path / "out").iterdir()  # the study folder: two runs
    read_only = tmpfs("ro", "1m")
    subprocess.run(["mount", "-o", "remount,ro", str(read_only)], check=True)
    for where in (read_only, read_only / "sub"):
        proc = dbstor("compare", run_folder, "--report", where)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip().splitlines() == [
            line
            for line in proc.stderr.strip().splitlines()
            if line.startswith("dbstor: error: --report")
        ]
        assert "Traceback" not in proc.stderr
