"""Fresh runs of the kinds a customer makes, each report walked by its sections
(document_walk): a plain `dbstor io` run on real fio, a DuckDB dss query run, and a study
of two fio targets whose baseline has no knee, with [tco] but no storage price and
[capacity]. Order, no empty section, nothing of the machine or a Python repr outside the
appendix, findings with a number and a link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from document_walk import document_problems, section_texts
from needs import usable

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

SHORT = ("--duration", "1", "--warmup", "0", "--size", "16MiB")
STUDY = """
[study]
name = "two targets, no knee, tco without a storage price"
profiles = ["io-oltp"]
duration = "1s"
warmup = "0s"
size = "16MiB"
baseline = "SLOW"

[slo]
limit = "0.001ms"

[load]
kind = "iodepth"
values = [1, 4]

[[targets]]
label = "SLOW"
path = "{slow}"

[[targets]]
label = "FAST"
path = "{fast}"

[capacity]
drives = "24x960GB"
raid = "raid-dp"
raid_group = 12
spares = 1

[tco]
servers = 10
cores_per_server = 12
license = "oracle-enterprise"
"""


def _report(dbstor, out: Path) -> str:
    (report,) = out.glob("*/report.html")
    return report.read_text()


def _texts(html: str) -> dict[str, str]:
    return {k: re.sub(r"\s+", " ", v) for k, v in section_texts(html)[1].items()}


def test_a_plain_io_run_reads_as_a_document(dbstor, tmp_path):
    (tmp_path / "lun").mkdir()
    proc = dbstor("io", "--target", f"lun={tmp_path / 'lun'}", "--iodepth", "1,4", *SHORT,
                  "--out", tmp_path / "out")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    html = _report(dbstor, tmp_path / "out")
    assert document_problems(html) == []
    texts = _texts(html)
    assert str(tmp_path) not in html.split('id="appendix"')[0] and str(tmp_path) in html
    assert "SLO 1 ms p99 read" in texts["method"] and "SLO SLO" not in texts["method"]
    assert "largest objects" not in texts["layout"]  # fio's test files: no column of dashes
    title = re.findall(r"<h1>([^<]*)</h1>", html)
    assert title == ["io-oltp on lun"]  # not 'io-oltp on lun: lun io-oltp'
    (folder,) = (tmp_path / "out").glob("*/")
    assert dbstor("report", folder).returncode == 0
    again = (folder / "report.html").read_text()
    assert re.findall(r"<h1>([^<]*)</h1>", again) == title  # not the run id


def test_a_dss_query_run_reads_as_a_document(dbstor, tmp_path):
    usable("duckdb")
    (tmp_path / "lun").mkdir()
    proc = dbstor("run", "--engine", "duckdb", "--workload", "dss", "--scale", "0.01",
                  "--target", tmp_path / "lun", "--out", tmp_path / "out")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    html = _report(dbstor, tmp_path / "out")
    assert document_problems(html) == []
    texts = _texts(html)
    assert "SLO none: queries are compared by elapsed time" in texts["method"]
    assert "geometric mean" in texts["summary"]


def test_a_study_without_a_knee_or_a_price_reads_as_a_document(dbstor, tmp_path):
    slow, fast = tmp_path / "slow", tmp_path / "fast"
    slow.mkdir()
    fast.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(slow=slow, fast=fast))
    proc = dbstor("run", study, "--out", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = _report(dbstor, tmp_path / "out")
    assert document_problems(html) == []
    order, _ = section_texts(html)
    assert {"comparison", "capacity", "cost"} <= set(order) and "efficiency" not in order
    texts = _texts(html)
    assert "TB usable" in texts["capacity"]
    cost = texts["cost"]
    assert "knee load" not in cost  # no knee: the CPU, if any, is read at the peak's load
    if "Not computed" in cost:  # a busy device: no CPU to rest it on, and no price either
        assert "; ROI, NPV and payback need storage_price too" in cost
    else:  # a quiet device: the case stands, priced by nothing
        assert "measured by the runs at the baseline's peak load (QD 4)" in cost
        assert "ROI, NPV and payback need the price of the new storage" in cost
    cost = cost.replace("ROI, NPV and payback need", "")
    assert "payback" not in cost and "ROI" not in cost and "months" not in cost
    assert "SLOW: no load point stayed within the SLO" in texts["summary"]
    assert "SLOW and FAST: 23.04 TB raw give 16.42 TB usable" in texts["summary"]
