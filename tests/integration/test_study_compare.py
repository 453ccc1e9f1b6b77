"""A study file with two targets, the comparison against a baseline, compare and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

STUDY = """\
[study]
name = "two dirs"
duration = "1s"
warmup = "0s"
size = "16MiB"
baseline = "SLOW"

[load]
kind = "iodepth"
values = [1, 4]

[[targets]]
label = "FAST"
path = "{fast}"
facts = {{ drives = 24, protocol = "NVMe" }}

[[targets]]
label = "SLOW"
path = "{slow}"
facts = {{ drives = 6 }}
"""


def _assert_baseline_is_100(normalised: dict[str, float | None]) -> None:
    numbers = {k: v for k, v in normalised.items() if v is not None}
    assert numbers, "the baseline has no normalised values"
    assert "iops" in numbers
    for key, value in numbers.items():
        assert value == pytest.approx(100.0), (key, value)


def _entry(runs: list[dict], label: str) -> dict:
    matches = [r for r in runs if r["label"] == label]
    assert len(matches) == 1, (label, [r["label"] for r in runs])
    return matches[0]


@pytest.fixture(scope="module")
def study_run(dbstor_class, tmp_path_factory):
    """Run the two-target study once; return (its --json summary, the study folder)."""
    tmp_path = tmp_path_factory.mktemp("study")
    dbstor = dbstor_class(tmp_path)
    fast, slow = tmp_path / "fast", tmp_path / "slow"
    fast.mkdir()
    slow.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(fast=fast, slow=slow), encoding="utf-8")
    proc = dbstor("run", study, "--out", "out", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    summary = json.loads(proc.stdout)
    folder = Path(summary["folder"])
    folder = folder if folder.is_absolute() else tmp_path / folder
    assert dbstor.leftovers(fast) == [] and dbstor.leftovers(slow) == []
    return summary, folder


def test_study_writes_a_study_folder_with_the_comparison(dbstor, study_run):
    summary, folder = study_run
    assert folder.parent.name == "out"
    assert (folder / "study.json").is_file()
    assert (folder / "report.html").is_file() and (folder / "report.html").stat().st_size > 0

    study = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    run_folders = [folder / run_id for run_id in study["runs"]]
    assert len(run_folders) == 2
    assert dbstor.run_folders(folder) == sorted(run_folders)
    labels = []
    for run_folder in run_folders:
        results = dbstor.results(run_folder)
        assert results["status"] == "complete"
        assert [p["load"]["value"] for p in results["points"]] == [1, 4]
        assert all(p["read_iops"] > 0 for p in results["points"])
        labels.append(results["target"]["label"])
    assert labels == ["FAST", "SLOW"]
    assert [r["target"] for r in summary["runs"]] == ["FAST", "SLOW"]

    comparison = json.loads((folder / "comparison.json").read_text(encoding="utf-8"))
    assert comparison["baseline"] == "SLOW"
    assert comparison["comparable"] is True
    _assert_baseline_is_100(_entry(comparison["runs"], "SLOW")["normalised"])
    fast = _entry(comparison["runs"], "FAST")
    assert fast["normalised"]["iops"] > 0
    per_disk = comparison["per_disk"]
    assert [row["label"] for row in per_disk] == ["FAST"]
    assert per_disk[0]["drives"] == 24 and per_disk[0]["baseline_drives"] == 6
    assert per_disk[0]["drive_reduction"] == pytest.approx(6 / 24)
    assert summary["comparison"]["baseline"] == "SLOW"


def test_compare_normalises_to_the_baseline_folder(dbstor, study_run):
    _, folder = study_run
    study = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    run1, run2 = (folder / run_id for run_id in study["runs"])

    proc = dbstor("compare", run1, run2, "--baseline", run2, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["baseline"] == "SLOW"
    assert result["comparable"] is True
    assert [r["label"] for r in result["runs"]] == ["FAST", "SLOW"]
    _assert_baseline_is_100(_entry(result["runs"], "SLOW")["normalised"])
    fast = _entry(result["runs"], "FAST")
    assert fast["normalised"]["iops"] == pytest.approx(
        fast["values"]["iops"] / _entry(result["runs"], "SLOW")["values"]["iops"] * 100
    )
    assert [f["label"] for f in result["factors"]] == ["FAST"]
    # the seeds' method first: every run at the baseline's knee (or peak) load, then own knees
    assert [r["label"] for r in result["same_load"]["runs"]] == ["FAST", "SLOW"]
    assert [f["label"] for f in result["same_load"]["factors"]] == ["FAST"]
    lines = result["verdict"]["lines"]
    assert "at the same load" in lines[0]["lead"] and "at its own" in lines[-1]["lead"]
    assert "per_disk" in result
    text = dbstor("compare", run1, run2, "--baseline", run2).stdout
    assert "FAST vs SLOW at the same load" in text


def test_report_renders_the_study_again(dbstor, study_run):
    _, folder = study_run
    report = folder / "report.html"
    report.unlink()
    proc = dbstor("report", folder)
    assert proc.returncode == 0, proc.stderr
    printed = Path(proc.stdout.strip().splitlines()[-1])
    assert printed.resolve() == report.resolve()
    text = report.read_text(encoding="utf-8")
    assert "FAST" in text and "SLOW" in text


def test_runs_of_different_profiles_are_not_comparable(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    proc = dbstor(
        "io", "--target", target, "--profile", "io-oltp,io-slob",
        "--iodepth", "1", "--duration", "1", "--warmup", "0", "--size", "16MiB",
        "--out", "out", "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = dbstor.run_folders(tmp_path / "out")
    assert len(runs) == 2
    workloads = {dbstor.results(r)["workload"]["name"] for r in runs}
    assert workloads == {"io-oltp", "io-slob"}

    proc = dbstor("compare", *runs, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["comparable"] is False
    assert any("workload" in w for w in result["warnings"]), result["warnings"]

    # Without --json the warning reaches the reader too.
    proc = dbstor("compare", *runs)
    assert proc.returncode == 0, proc.stderr
    assert "io-slob" in proc.stdout + proc.stderr
    assert "not like for like" in (proc.stdout + proc.stderr).replace("\n", " ")
