"""dbstor io end to end: real fio on real files, the results folder it leaves, and the
load series (queue depth, open-loop rate, jobs, auto)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

TINY = ("--duration", "1", "--warmup", "0", "--size", "16MiB")


def _device_of(path: Path) -> str | None:
    """The block device name (e.g. vda) the file system under path sits on, if any."""
    if shutil.which("findmnt") is None:
        return None
    source = subprocess.run(
        ["findmnt", "-n", "-o", "SOURCE", "--target", str(path)], capture_output=True, text=True
    ).stdout.strip()
    return Path(source).name if source.startswith("/dev/") else None


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr


def test_sweep_writes_a_complete_results_folder_and_removes_its_files(dbstor, tmp_path):
    target, out = tmp_path / "target", tmp_path / "out"
    target.mkdir()
    proc = dbstor(
        "io",
        "--target", target,
        "--iodepth", "1,4",
        "--duration", "2",
        "--warmup", "1",
        "--size", "32MiB",
        "--out", out,
        "--json",
    )  # fmt: skip
    _ok(proc)

    summary = json.loads(proc.stdout)
    run = summary["runs"][0]
    assert run["status"] == "complete"
    assert [p["load"] for p in run["points"]] == [
        {"kind": "iodepth", "value": 1},
        {"kind": "iodepth", "value": 4},
    ]
    assert all(p["iops"] > 0 for p in run["points"])
    assert run["peak"] and run["peak"]["iops"] > 0
    assert run["knee"] is not None

    folder = Path(run["folder"])
    if not folder.is_absolute():
        folder = tmp_path / folder
    assert folder.parent == out and folder == dbstor.only_run_folder(out)
    results = dbstor.results(folder)
    assert results["schema"] == 1
    assert results["run_id"] == folder.name == run["run_id"]
    assert results["status"] == "complete"
    assert results["engine"]["name"] == "fio" and results["engine"]["version"]
    assert results["slo"] == {"metric": "read_lat_p99_ms", "limit_ms": 1.0}
    assert results["peak"] is not None and results["knee"] is not None
    points = results["points"]
    assert [p["load"]["value"] for p in points] == [1, 4]
    for point in points:
        assert point["status"] == "ok"
        assert point["read_iops"] > 0 and point["write_iops"] > 0  # io-oltp is 90/10
        assert point["read_lat_ms"]["p99"] > 0
        assert point["read_lat_ms"]["p50"] <= point["read_lat_ms"]["p99"]
        assert point["cpu"]["util_pct"] is not None and 0 <= point["cpu"]["util_pct"] <= 100
    # each point's started_at is when its load (warm-up included) started, not when it was
    # summed up: the last point's start plus its own wall time is no later than the last
    # write of results.json (a start stamped after the point would put it 3 s later)
    saved = datetime.fromtimestamp((folder / "results.json").stat().st_mtime, UTC)
    last = datetime.fromisoformat(points[-1]["started_at"])
    assert last + timedelta(seconds=points[-1]["wall_s"]) <= saved + timedelta(seconds=1)
    assert points[0]["started_at"] < points[1]["started_at"]
    timings = results["timings"]
    assert timings["load_s"] == pytest.approx(sum(p["wall_s"] for p in points), abs=0.01)
    assert timings["launch_to_run_s"] < timings["first_load_after_launch_s"]
    assert {"check_s", "layout_s", "data_check_s", "series_overhead_s"} <= set(timings)
    device = _device_of(target)
    if device:
        assert results["target"]["device"] == device
        for point in points:
            assert point["device"]["name"] == device
            assert point["device"]["read_iops"] > 0

    with open(folder / "samples.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["point"] for r in rows} == {"1", "2"}
    assert {r["phase"] for r in rows} <= {"warmup", "measure"}
    for number in ("1", "2"):
        phases = {r["phase"] for r in rows if r["point"] == number}
        assert phases == {"warmup", "measure"}, (number, phases)
    assert all(r["run_id"] == results["run_id"] for r in rows)

    report = folder / "report.html"
    assert report.is_file() and report.stat().st_size > 0
    assert "<html" in report.read_text(encoding="utf-8").lower()

    job = folder / "jobs" / "point-01.fio"
    text = job.read_text(encoding="utf-8")
    assert "iodepth=1" in text.splitlines()
    assert str(target) in text
    parsed = subprocess.run(
        ["fio", "--parse-only", str(job)], capture_output=True, text=True, cwd=tmp_path
    )
    assert parsed.returncode == 0, parsed.stderr

    assert dbstor.leftovers(target) == []


def test_keep_leaves_the_files_and_a_second_run_reuses_them(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    first = dbstor("io", "--target", target, "--iodepth", "1", *TINY, "--out", "a", "--keep")
    _ok(first)
    assert dbstor.leftovers(target) == [".dbstor-owned.json", "dbstor-io-oltp-0.dat"]
    data = target / "dbstor-io-oltp-0.dat"
    assert data.stat().st_size == 16 * 1024**2

    second = dbstor("io", "--target", target, "--iodepth", "1", *TINY, "--out", "b")
    _ok(second)
    results = dbstor.results(dbstor.only_run_folder(tmp_path / "b"))
    assert results["status"] == "complete"
    assert any("reused" in note for note in results["notes"]), results["notes"]
    assert not any(note.startswith("laid out") for note in results["notes"]), results["notes"]
    # Without --keep the second run removes the files it reused, manifest included.
    assert dbstor.leftovers(target) == []


def test_rate_series_is_open_loop_at_the_asked_rates(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    proc = dbstor(
        "io",
        "--target", target,
        "--rate", "2000,4000",
        "--duration", "2",
        "--warmup", "0",
        "--size", "16MiB",
        "--out", "out",
    )  # fmt: skip
    _ok(proc)
    results = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    points = results["points"]
    assert [p["load"]["kind"] for p in points] == ["rate", "rate"]
    assert [p["load"]["value"] for p in points] == [2000, 4000]
    for point in points:
        achieved = point["read_iops"] + point["write_iops"]
        asked = point["load"]["value"]
        assert achieved == pytest.approx(asked, rel=0.10), (asked, achieved)


def test_numjobs_series_with_the_log_profile_limits_write_latency(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    proc = dbstor(
        "io", "--target", target, "--profile", "io-log", "--numjobs", "1,2", *TINY, "--out", "out"
    )
    _ok(proc)
    results = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert results["workload"]["name"] == "io-log"
    assert results["slo"]["metric"] == "write_lat_p99_ms"
    points = results["points"]
    assert [p["load"]["kind"] for p in points] == ["jobs", "jobs"]
    assert [p["load"]["value"] for p in points] == [1, 2]
    assert [p["load"]["jobs"] for p in points] == [1, 2]
    for point in points:
        assert point["write_iops"] > 0
        latency = point["write_lat_ms"]
        assert latency["mean"] > 0 and latency["p50"] > 0
        # A p99 needs 1,000 operations behind it; a 1 s point of synced writes may have fewer.
        if latency["count"] >= 1000:
            assert latency["p99"] >= latency["p50"]
        else:
            assert latency["p99"] is None
        assert not point["read_iops"]  # the log is written, never read
    assert dbstor.leftovers(target) == []


@pytest.fixture(scope="module")
def auto_run(dbstor_class, tmp_path_factory):
    """One --auto run for the tests below. The SLO (10 us) is one no 8K I/O meets, so
    after the search for the peak it stops at the first fraction: quick, and the case
    of a tight SLO (a disk array with a 1 ms limit) in miniature."""
    tmp_path = tmp_path_factory.mktemp("auto")
    dbstor = dbstor_class(tmp_path)
    target = tmp_path / "target"
    target.mkdir()
    proc = dbstor(
        "io", "--target", target, "--auto", "--slo", "10us", *TINY, "--out", "out", timeout=120
    )
    _ok(proc)
    assert dbstor.leftovers(target) == []
    return dbstor.results(dbstor.only_run_folder(tmp_path / "out"))


def _series(results: dict, name: str) -> list[dict]:
    return [p for p in results["points"] if p["series"] == name]


def test_auto_searches_for_the_peak_then_measures_fractions_of_it(auto_run):
    results = auto_run
    assert results["status"] == "complete"
    discovery, main = _series(results, "discovery"), _series(results, "main")
    assert len(discovery) >= 2
    assert {p["load"]["kind"] for p in discovery} == {"iodepth"}
    assert [p["load"]["value"] for p in discovery[:2]] == [1, 2]
    assert main, "no points at fractions of the peak"
    assert {p["load"]["kind"] for p in main} == {"rate"}
    best = max(p["read_iops"] + p["write_iops"] for p in discovery)
    # The first fraction is 10% of the peak found by the search.
    assert main[0]["load"]["value"] == pytest.approx(0.10 * best, rel=0.01)
    assert all(p["load"]["value"] <= best * 1.01 for p in main)
    if main[0]["read_lat_ms"] and main[0]["read_lat_ms"]["p99"] is not None:
        assert len(main) == 1  # far beyond the SLO at 10%: no point in going higher
        assert any("auto: stopped at 10%" in note for note in results["notes"])


def test_auto_reports_the_peak_it_found_even_when_it_stops_early(auto_run):
    """The run's peak is the most the storage did, not the best of the fractions measured."""
    results = auto_run
    best = max(p["read_iops"] + p["write_iops"] for p in _series(results, "discovery"))
    measured = max(p["read_iops"] + p["write_iops"] for p in results["points"])
    assert results["peak"] is not None
    assert results["peak"]["iops"] == pytest.approx(max(best, measured)), results["peak"]


def _plain_fio(job: Path) -> tuple[float, str]:
    """Run a job file with plain fio from its own folder (as a user would); IOPS, stderr."""
    output = job.parent / "plain-fio.json"
    plain = subprocess.run(
        ["fio", "--output-format=json+", f"--output={output}", job.name],
        cwd=job.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert plain.returncode == 0, plain.stderr
    jobs = json.loads(output.read_text(encoding="utf-8"))["jobs"]
    return sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs), plain.stderr


def test_the_kept_job_file_reproduces_the_point_with_plain_fio(dbstor, tmp_path):
    """dbstor's IOPS match plain fio on the same job file (loosely: a noisy shared machine).

    Other load on the host can disturb one of the two runs, so the pair is measured again
    (at most three times) before calling a difference a failure; a real mismatch repeats.
    The job file must stand on its own: --out is given relative, as users type it, and
    fio runs it from the jobs folder.
    """
    target = tmp_path / "target"
    target.mkdir()
    pairs, complaints = [], []
    for attempt in range(3):
        out = f"out-{attempt}"
        proc = dbstor(
            "io",
            "--target", target,
            "--iodepth", "4",
            "--duration", "1",
            "--warmup", "1",
            "--size", "32MiB",
            "--out", out,
            "--keep",
            "--quiet",
        )  # fmt: skip
        _ok(proc)
        folder = dbstor.only_run_folder(tmp_path / out)
        point = dbstor.results(folder)["points"][0]
        ours = point["read_iops"] + point["write_iops"]
        theirs, stderr = _plain_fio(folder / "jobs" / "point-01.fio")
        complaints += [ln for ln in stderr.splitlines() if ln.strip()]
        assert ours > 0 and theirs > 0
        pairs.append((round(ours), round(theirs)))
        if abs(ours - theirs) <= 0.25 * theirs:
            break
    else:
        pytest.fail(f"dbstor vs plain fio IOPS differ by more than 25% every time: {pairs}")
    # e.g. "fopen log: No such file or directory" when the job names a relative log path
    assert complaints == [], complaints


@pytest.mark.integration
def test_precondition_writes_until_steady_before_measuring(dbstor, tmp_path):
    target = tmp_path / "flash"
    target.mkdir()
    proc = dbstor(
        "io",
        "--target",
        target,
        "--iodepth",
        "4",
        "--duration",
        "1",
        "--warmup",
        "0",
        "--size",
        "16MiB",
        "--precondition",
        "--out",
        "out",
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "out")
    notes = " ".join(dbstor.results(folder)["notes"])
    assert "preconditioned in" in notes
    rounds = sorted((folder / "jobs").glob("precondition-*.fio"))
    assert 5 <= len(rounds) <= 10
    assert "rw=randwrite" in rounds[0].read_text()
