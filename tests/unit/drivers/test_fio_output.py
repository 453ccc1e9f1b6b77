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


def test_steadystate_verdict_is_fios_own_over_every_job():
    """Recorded fio 3.33 output (2 jobs, --steadystate=iops_slope:0.01% --ss_dur=4s
    --ss_ramp=0, runtime 12 s): neither job reached it, so the point did not."""
    text = (FIXTURES / "randread-8k-qd4-2jobs-steadystate-unmet.json").read_text()
    raw = json.loads(text)["jobs"]
    run = parse_fio_json(text)
    state = run.steadystate
    assert state["attained"] is False and state["window_s"] == 4
    assert state["test"].startswith("iops_slope")
    slopes = [float(j["steadystate"]["criterion"].rstrip("%")) for j in raw]
    assert state["slope_pct_per_s"] == max(slopes, key=abs)  # the job furthest from it
    assert type(run).from_dict(run.to_dict()).steadystate == state
    # output without the option has no verdict
    assert parse_fio_json((FIXTURES / "randrw-8k-qd4-1job.json").read_text()).steadystate is None


def test_steadystate_window_is_fios_own_per_second_iops_summed_over_jobs():
    text = (FIXTURES / "randread-8k-qd4-2jobs-steadystate-unmet.json").read_text()
    raw = json.loads(text)["jobs"]
    per_job = [j["steadystate"]["data"]["iops"] for j in raw]
    state = parse_fio_json(text).steadystate
    assert state["iops"] == [float(a + b) for a, b in zip(*per_job, strict=True)]
    assert len(state["iops"]) == 4
