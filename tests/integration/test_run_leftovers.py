"""Issue 38's leftovers that need a real run: a from: path in a study file read from the
study file's folder, the --metrics-port 0 endpoint told and served, a run still running
compared, a study's run folder deleted before its report, a target folder removed and a
file system turned read-only during an io run, and small files never below 1:1."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

GOLDEN = Path(__file__).parents[1] / "golden"
SHORT = ("--duration", "1s", "--warmup", "0s", "--size", "16MiB")


def _first_point(folder: Path, timeout_s: float = 90) -> Path:
    """The run folder under `folder` once its results.json holds a finished point."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for results in folder.glob("*/results.json"):
            try:
                if json.loads(results.read_text())["points"]:
                    return results.parent
            except (ValueError, KeyError):
                pass  # being replaced
        time.sleep(0.1)
    raise AssertionError("no point finished")


def test_a_from_path_in_a_study_is_read_from_the_study_files_folder(dbstor, tmp_path):
    study = tmp_path / "studies"
    (study / "t").mkdir(parents=True)
    (study / "source").mkdir()
    (study / "source" / "table.dat").write_bytes(b"customer row, " * 40000)
    (study / "s.toml").write_text(
        '[study]\ndata = "from:source"\nduration = "1s"\nwarmup = "0s"\nsize = "16MiB"\n'
        '[load]\nkind = "iodepth"\nvalues = [1]\n[[targets]]\nlabel = "A"\npath = "t"\n'
    )
    proc = dbstor("run", "studies/s.toml", "--out", tmp_path / "out", "--quiet")  # cwd: tmp
    assert proc.returncode == 0, proc.stderr
    results = json.loads(next((tmp_path / "out").glob("*/results.json")).read_text())
    data = results["workload"]["data"]
    assert data["kind"] == "from" and data["source"] == str(study / "source")
    assert data["compression"] > 1.5  # the repeated rows were measured, not 1:1 from nothing


def test_metrics_port_0_says_where_it_serves_and_serves_there(dbstor, tmp_path):
    (tmp_path / "t").mkdir()
    proc = dbstor.start(
        "io", "--target", tmp_path / "t", "--iodepth", "1", *SHORT, "--metrics-port", "0",
        "--quiet", "--out", tmp_path / "out",
    )  # fmt: skip
    assert proc.stderr is not None
    line = proc.stderr.readline()  # the first line, even with --quiet
    assert line.startswith("live figures for Prometheus at http://127.0.0.1:"), line
    url = line.split(" at ", 1)[1].strip()
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert b"dbstor_run_info" in answer.read()
    _, rest = proc.communicate(timeout=120)
    assert proc.returncode == 0, rest


def test_a_run_still_running_is_compared_with_a_note(dbstor, tmp_path):
    (tmp_path / "t").mkdir()
    proc = dbstor.start(
        "io", "--target", tmp_path / "t", "--iodepth", "1,2,4", *SHORT, "--out", tmp_path / "out"
    )
    running = _first_point(tmp_path / "out")
    compared = dbstor("compare", GOLDEN / "fc-io-oltp", running)
    proc.send_signal(signal.SIGTERM)  # what was to be seen is seen
    proc.communicate(timeout=120)
    assert compared.returncode == 0, compared.stderr
    assert f"{running.name} is still running" in compared.stdout + compared.stderr


def test_a_study_whose_run_folder_was_deleted_says_so(dbstor, tmp_path):
    study = tmp_path / "study"
    shutil.copytree(GOLDEN / "default-study", study)
    gone = sorted(p.name for p in study.iterdir() if p.is_dir())[0]
    shutil.rmtree(study / gone)
    proc = dbstor("report", study)
    assert proc.returncode == 0, proc.stderr
    assert f"dbstor: warning: {study / 'study.json'} lists 1 run(s)" in proc.stderr
    assert gone in proc.stderr
    compared = dbstor("compare", study, GOLDEN / "fc-io-oltp")
    assert gone in compared.stderr and compared.returncode == 0, compared.stderr
    indexed = dbstor("index", tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    assert f"1 gone: {gone}" in (tmp_path / "index.html").read_text()
    entry = next(
        e
        for e in json.loads((tmp_path / "index.json").read_text())["entries"]
        if e["kind"] == "study"
    )
    assert entry["missing"] == [gone]


def test_a_target_folder_removed_during_a_run_is_said_in_one_line(dbstor, tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1,2,4", *SHORT, "--out", tmp_path / "out"
    )
    run = _first_point(tmp_path / "out")
    shutil.rmtree(target)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr
    # rmtree takes the test file before the folder: the check may see either instant
    assert f"the target folder {target} was removed during the run" in stderr or (
        f"the test file {target}/" in stderr and "was removed during the run" in stderr
    ), stderr
    # removed between points, dbstor's check comes before fio and the folder stays gone;
    # removed while a point's fio runs (likelier on a busy host), fio makes the folder
    # again as it reopens its file: then it holds nothing but that test file
    if target.exists():
        assert [p.name for p in target.iterdir()] in ([], ["dbstor-io-oltp-0.dat"]), stderr
    results = json.loads((run / "results.json").read_text())
    assert results["points"][0]["status"] == "ok"


def test_a_target_turned_read_only_says_so_and_names_the_test_file_left(dbstor, tmp_path, tmpfs):
    target = tmpfs("ro", "64m")
    proc = dbstor.start(
        "io", "--target", target, "--iodepth", "1,2,4,8", *SHORT, "--out", tmp_path / "out"
    )
    run = _first_point(tmp_path / "out")
    deadline = time.monotonic() + 30  # fio holds the file open for writing within a point
    while time.monotonic() < deadline and proc.poll() is None:
        remount = ["mount", "-o", "remount,ro", str(target)]
        if subprocess.run(remount, capture_output=True).returncode == 0:
            break
        time.sleep(0.02)
    _, stderr = proc.communicate(timeout=120)
    subprocess.run(["mount", "-o", "remount,rw", str(target)], check=True)
    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr
    assert f"the file system under {target} became read-only during the run" in stderr
    left = target / "dbstor-io-oltp-0.dat"
    assert left.exists()
    assert f"could not be removed and are left: {left} (Read-only file system)" in stderr
    assert json.loads((run / "results.json").read_text())["points"][0]["status"] == "ok"


def test_small_files_are_never_below_one_to_one(dbstor, tmp_path):
    """A file's tail shorter than a block takes a whole block compressed or not: the
    ratio is at least 1:1 and no saving is negative."""
    files = tmp_path / "db"
    files.mkdir()
    (files / "tiny").write_bytes(bytes(range(100)))
    (files / "short").write_bytes(bytes((i * 7919) % 251 for i in range(3000)))
    (files / "text").write_bytes(b"an order line, " * 400)
    proc = dbstor("efficiency", files, "--json")
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["compression_ratio"] >= 1.0 and figures["total_ratio"] >= 1.0
    assert all(f["compression_ratio"] >= 1.0 for f in figures["per_file"])
    assert all(m["ratio"] >= 1.0 and m["savings_pct"] >= 0 for m in figures["compression"])
