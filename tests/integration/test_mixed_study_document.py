"""A study with fio and a database on two targets, as a customer runs one: each workload
compared among its own runs (comparison.json holds both), the document walked with its
runs (no knee beaten by a measured point, no dash for a value, no refused figure stated),
and `dbstor report DIR` rendering the very document the study wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from document_claims import rerender_problems
from document_walk import document_problems

from dbstor.runs.study import load_folder

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

STUDY = """\
[study]
name = "fio and sqlite on two targets"
profiles = ["io-oltp"]
duration = "1s"
warmup = "0s"
size = "16MiB"
baseline = "SLOW"

[load]
kind = "iodepth"
values = [1, 4]

[[databases]]
engine = "sqlite"
workload = "brokerage"
scale = 20
users = [1, 2]

[[targets]]
label = "SLOW"
path = "{slow}"

[[targets]]
label = "FAST"
path = "{fast}"
"""


def test_a_mixed_study_compares_each_workload_and_re_renders_the_same(dbstor, tmp_path: Path):
    slow, fast = tmp_path / "slow", tmp_path / "fast"
    slow.mkdir()
    fast.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(slow=slow, fast=fast), encoding="utf-8")
    proc = dbstor("run", study, "--out", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (folder,) = (tmp_path / "out").glob("*/")
    comparison = json.loads((folder / "comparison.json").read_text())
    assert {r["workload"] for r in comparison["runs"]} == {"io-oltp"}
    (databases,) = comparison["others"]
    assert {r["workload"] for r in databases["runs"]} == {"brokerage"}
    assert {r["label"] for r in databases["runs"]} == {"SLOW", "FAST"}
    written = (folder / "report.html").read_text()
    runs, _ = load_folder(folder)
    assert document_problems(written, runs) == []
    assert 'id="comparison-2"' in written
    kept = tmp_path / "written.html"
    shutil.copy(folder / "report.html", kept)
    again = dbstor("report", folder)
    assert again.returncode == 0, again.stderr
    assert rerender_problems(kept.read_text(), (folder / "report.html").read_text()) == []
