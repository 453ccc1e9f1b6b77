import json
from pathlib import Path

import pytest

from dbstor.drivers.fio_output import parse_fio_json, parse_iops_log

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fio"


def test_one_job_totals():
    text = (FIXTURES / "randrw-8k-qd4-1job.json").read_text()
    raw = json.loads(text)["jobs"][0]
    run = parse_fio_json(text)
    assert run.jobs == 1 and run.errors == []
    assert run.read.ios == raw["read"]["total_ios"]
    assert run.read.iops == pytest.approx(raw["read"]["iops"])
    assert run.write.iops == pytest.approx(raw["write"]["iops"])
    assert run.read.histogram.count == raw["read"]["clat_ns"]["N"]
    assert run.version.startswith("fio-")
    # 90/10 mix: about one write in ten
    assert 0.05 < run.write.ios / (run.read.ios + run.write.ios) < 0.15


def test_two_jobs_are_summed_and_histograms_merged():
    text = (FIXTURES / "randrw-8k-qd4-2job.json").read_text()
    jobs = json.loads(text)["jobs"]
    run = parse_fio_json(text)
    assert run.jobs == 2
    assert run.read.iops == pytest.approx(sum(j["read"]["iops"] for j in jobs))
    assert run.read.histogram.count == sum(j["read"]["clat_ns"]["N"] for j in jobs)
    expected_mean = (
        sum(j["read"]["clat_ns"]["mean"] * j["read"]["clat_ns"]["N"] for j in jobs)
        / run.read.histogram.count
    )
    assert run.read.histogram.stats().mean == pytest.approx(expected_mean / 1e6)
    assert run.client_cpu_pct == pytest.approx(sum(j["usr_cpu"] + j["sys_cpu"] for j in jobs))


def test_chatter_before_json_is_ignored_and_garbage_rejected():
    text = "fio: some warning\n" + (FIXTURES / "randrw-8k-qd4-1job.json").read_text()
    assert parse_fio_json(text).jobs == 1
    with pytest.raises(ValueError):
        parse_fio_json("fio: engine failed")


def test_plain_json_without_histograms_is_refused():
    data = json.loads((FIXTURES / "randrw-8k-qd4-1job.json").read_text())
    for side in ("read", "write"):
        del data["jobs"][0][side]["clat_ns"]["bins"]
    with pytest.raises(ValueError, match="json\\+"):
        parse_fio_json(json.dumps(data))


def test_job_error_is_reported():
    data = json.loads((FIXTURES / "randrw-8k-qd4-1job.json").read_text())
    data["jobs"][0]["error"] = 28
    assert parse_fio_json(json.dumps(data)).errors == ["job fixture: error 28"]


def test_iops_log():
    series = parse_iops_log((FIXTURES / "iops-log-1job.log").read_text())
    assert series == {0: [44299.0], 1: [4976.0]}
