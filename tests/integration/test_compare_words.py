"""The comparison's words against real runs (fio, SQLite): a tmpfs target has no device
figures (null, never 0), a baseline without a knee is compared at its peak load and says
so, a rate run's load is a rate in IO/s, runs of different load kinds share no "same load",
and a run whose reads came from memory yields no factor and no per-disk efficiency."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

SHORT = ("--duration", "1", "--warmup", "0", "--size", "16MiB")


def _shm_dir(tmp_path: Path) -> Path:
    """A folder on tmpfs (/dev/shm has no block device under it)."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    path = shm / f"dbstor-test-{tmp_path.name}"
    path.mkdir(exist_ok=True)
    return path


def _folder(stdout: str, cwd: Path) -> Path:
    folder = Path(json.loads(stdout)["folder"])
    return folder if folder.is_absolute() else cwd / folder


def _comparison(folder: Path) -> dict:
    return json.loads((folder / "comparison.json").read_text())


def _no_zero_device_figures(value: object, where: str = "") -> None:
    """No device figure reads 0 where nothing was measured (a tmpfs target)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("iops", "read_iops", "write_iops", "read_mbps", "write_mbps"):
                assert item is None, f"{where}.{key} = {item!r}, expected null"
            _no_zero_device_figures(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _no_zero_device_figures(item, f"{where}[{i}]")


def test_tmpfs_database_has_nulls_and_a_from_memory_run_no_factor(dbstor, tmp_path):
    """SQLite on /dev/shm (no block device) beside SQLite on disk, one study with drives:
    results.json has null device figures (peak included), the terminal never says 0 IOPS,
    and as the small database was read from memory the comparison computes no factor and
    no per-disk efficiency, and says why."""
    shm = _shm_dir(tmp_path)
    disk = tmp_path / "disk"
    disk.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(
        f"""[study]
name = "tmpfs vs disk"
duration = "1s"
warmup = "0s"
baseline = "DISK"

[[databases]]
engine = "sqlite"
workload = "brokerage"
scale = 100
users = [1, 2]

[[targets]]
label = "DISK"
path = "{disk}"
facts = {{ drives = 6 }}

[[targets]]
label = "SHM"
path = "{shm}"
facts = {{ drives = 2 }}
""",
        encoding="utf-8",
    )
    try:
        proc = dbstor("run", study, "--out", "out", "--json")
    finally:
        for leftover in shm.iterdir():
            leftover.unlink()
        shm.rmdir()
    assert proc.returncode == 0, proc.stderr
    folder = _folder(proc.stdout, tmp_path)
    runs = [p.parent for p in folder.glob("*/results.json")]
    on_shm = [
        json.loads((r / "results.json").read_text())
        for r in runs
        if json.loads((r / "results.json").read_text())["target"]["label"] == "SHM"
    ]
    assert len(on_shm) == 1
    result = on_shm[0]
    assert result["points"] and all(p["status"] == "ok" for p in result["points"])
    _no_zero_device_figures(result["points"], "points")
    assert result["peak"] is not None and result["peak"]["iops"] is None  # not 0
    comparison = _comparison(folder)
    shm_entry = next(r for r in comparison["runs"] if r["label"] == "SHM")
    assert shm_entry["values"]["iops"] is None
    assert all(v is None for v in shm_entry["normalised"].values())  # no factor at all
    factor = next(f for f in comparison["factors"] if f["label"] == "SHM")
    assert factor["text"].startswith("not computed: ")
    assert "its reads came from memory" in factor["text"]
    assert "x0" not in json.dumps(comparison)
    assert comparison["per_disk"] == []
    refused = comparison["per_disk_withheld"]
    assert [r["label"] for r in refused] == ["SHM"] and "from memory" in refused[0]["reason"]
    # the report and the terminal say the same
    html = (folder / "report.html").read_text()
    assert "per-disk efficiency of SHM not computed" in html
    assert not re.search(r"\b0 (device )?IOPS", proc.stderr)
    assert "knee: not computed (no block device under the target" in " ".join(proc.stderr.split())
    text = dbstor("compare", *sorted(runs, key=lambda r: "SHM" in r.name))
    assert text.returncode == 0, text.stderr
    words = " ".join(text.stdout.split())
    assert "per-disk efficiency of SHM not computed" in words
    assert "not computed: DISK's point at" in words or "not computed: SHM's point at" in words
    assert "IOPS x0" not in words
    # nor a cost case: the runs' CPU is not the work's demand (from memory, a busy host)
    by_label = {json.loads((r / "results.json").read_text())["target"]["label"]: r for r in runs}
    tco = dbstor(
        "tco", "--servers", "10", "--cores-per-server", "12", "--license",
        "sqlserver-enterprise", "--before-run", by_label["DISK"], "--after-run", by_label["SHM"],
    )  # fmt: skip
    line = dbstor.assert_user_error(tco, "no cost case from its point at users")
    assert "--cpu-before/--cpu-after" in line


def test_baseline_without_a_knee_is_compared_at_its_peak_load(dbstor, tmp_path):
    """An SLO no point meets (1 µs): the baseline has no knee, so the same-load line
    names the baseline's peak load, never its knee."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    proc = dbstor(
        "io", "--target", f"A={a}", "--target", f"B={b}", "--iodepth", "1,4", *SHORT,
        "--slo", "0.001ms", "--out", "out", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    comparison = _comparison(_folder(proc.stdout, tmp_path))
    assert [r["basis"] for r in comparison["runs"]] == ["peak", "peak"]
    lines = [line["lead"] for line in comparison["verdict"]["lines"]]
    assert "the baseline's peak load" in lines[0] and "QD" in lines[0]
    assert not any("knee" in line for line in lines), lines
    assert comparison["same_load"]["basis"] == "the baseline's peak load"
    assert comparison["metric_names"]["read_lat_ms"] == "p99 read latency (ms)"


def test_rate_runs_name_their_load_in_io_per_second(dbstor, tmp_path):
    """Auto mode: a queue-depth search, then a curve of IOPS rates. The comparison takes
    the rates (the curve), names them in IO/s, and never calls a rate a queue depth."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    proc = dbstor(
        "io", "--target", f"A={a}", "--target", f"B={b}", "--auto", *SHORT,
        "--out", "out", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    comparison = _comparison(_folder(proc.stdout, tmp_path))
    same = comparison["same_load"]
    assert same["load"]["kind"] == "rate" and same["load_words"].endswith(" IO/s")
    leads = " ".join(line["lead"] for line in comparison["verdict"]["lines"])
    assert "IO/s" in leads and "QD" not in leads and "e+0" not in leads
    assert "IO/s" in comparison["latency_at"]
    assert "QD" not in proc.stderr.split("Compared with")[-1]


def test_runs_of_different_load_kinds_share_no_same_load(dbstor, tmp_path):
    """Queue depths against numbers of jobs: no 'same load' line, one line why, and only
    each run's own knee or peak figures, read latency not compared."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    folders = []
    for label, path, series in (("A", a, ("--iodepth", "1,2")), ("B", b, ("--numjobs", "1,2"))):
        proc = dbstor(
            "io", "--target", f"{label}={path}", *series, *SHORT, "--out", "out", "--json"
        )
        assert proc.returncode == 0, proc.stderr
        folders.append(_folder(proc.stdout, tmp_path))
    proc = dbstor("compare", *folders, "--json")
    assert proc.returncode == 0, proc.stderr
    comparison = json.loads(proc.stdout)
    assert comparison["same_load"] is None
    assert "different kinds of load (A: iodepth, B: jobs)" in comparison["same_load_refused"]
    first, *rest = comparison["verdict"]["lines"]
    assert first["lead"] == "no comparison at the same load"
    assert rest and all("own" in line["lead"] for line in rest)
    # read latency is never compared across load kinds; on a host with other I/O the whole
    # factor can be withheld first (a shared device), which is said instead
    said = rest[0]["text"]
    assert "read latency not computed: no load is the same" in said or (
        said.startswith("not computed: ") and "shared device" in said
    )
    assert all(f["latency_at"] is None for f in comparison["factors"])
    others = [e for e in comparison["runs"] if e["label"] != comparison["baseline"]]
    assert others and all(e["normalised"].get("read_lat_ms") is None for e in others)
    text = dbstor("compare", *folders)
    assert "no comparison at the same load: the runs step through different kinds" in " ".join(
        text.stdout.split()
    )
