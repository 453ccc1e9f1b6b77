"""The document's rules walked over every stored run kind (fio, SQLite from memory,
PostgreSQL instances, interrupted tmpfs, a cluster's fio and database runs, the default
study with its comparison, two fio targets compared) by sections, as a reader meets them;
and the review's findings on run kinds the first audit did not try, one test per class."""

from __future__ import annotations

import copy
import re
from html import unescape

import pytest
from document_walk import document_problems, golden_runs, section_texts

from dbstor.analysis.compare import compare_runs
from dbstor.analysis.study_compare import study_comparison
from dbstor.report.html import render_report
from dbstor.results.model import Run


def _label(runs: list[Run]) -> str:
    return f"{runs[0].run_id}+{len(runs) - 1}"


@pytest.mark.parametrize("runs", golden_runs(), ids=_label)
def test_every_run_kind_keeps_the_document_s_rules(runs: list[Run]):
    comparison = study_comparison(runs, None)
    assert document_problems(render_report(runs, comparison=comparison), runs) == []


def test_two_targets_compared_keep_the_rules(fc: Run, iscsi: Run, samples, comparison):
    assert document_problems(render_report([fc, iscsi], samples, comparison), [fc, iscsi]) == []


def test_runs_not_compared_say_why_with_the_count(default_pair):
    """'The runs were not compared: they are not comparable as they ran.' said neither
    why nor anything to check; the comparison's reason is known."""
    runs, samples = default_pair
    html = render_report(runs, samples, compare_runs(runs))
    _, texts = section_texts(html)
    assert (
        "The 2 runs were not compared with each other: different workloads (io-oltp, brokerage)."
        in texts["summary"]
    )


def test_a_from_memory_finding_counts_its_points(sqlite_run: Run):
    _, texts = section_texts(render_report([sqlite_run]))
    ok = sum(1 for p in sqlite_run.points if p.ok)
    assert f"reads came from memory at all {ok} load points" in re.sub(
        r"\s+", " ", texts["summary"]
    )
    sqlite_run.points = [p for p in sqlite_run.points if p.ok][:2]  # not 'at all 2'
    _, texts = section_texts(render_report([sqlite_run]))
    assert "reads came from memory at both of its 2 load points;" in " ".join(
        texts["summary"].split()
    )


def test_method_says_the_slo_once(fc: Run):
    html = render_report([fc])
    assert '<th scope="row">SLO</th><td>1 ms p99 read</td>' in html
    assert "SLO SLO" not in section_texts(html)[1]["method"]


def test_a_query_run_has_no_slo_in_its_method(fc: Run):
    """A dss run is timed: its method read 'SLO – p99 device read'."""
    run = copy.deepcopy(fc)
    run.workload = {**(run.workload or {}), "kind": "queries"}
    html = render_report([run])
    assert '<th scope="row">SLO</th><td>none: queries are compared by elapsed time</td>' in html


def test_fio_layout_has_no_column_of_dashes(fc: Run, postgres_run: Run):
    assert "largest objects" not in render_report([fc]).split('id="method"')[0]
    assert "<th>largest objects</th>" in render_report([postgres_run])


def test_a_shared_reason_for_both_factors_is_one_finding(fc: Run, iscsi: Run, comparison):
    """Both factors not computed for the same unsteady point: two findings said the same."""
    why = "not computed: ISCSI's point at QD 16: it was not steady"
    comparison["verdict"] = {
        "lines": [
            {"lead": "ISCSI vs FC at the same load", "text": why},
            {"lead": "ISCSI at its own knee vs FC at its own knee", "text": why},
        ]
    }
    summary = section_texts(render_report([fc, iscsi], comparison=comparison))[1]["summary"]
    assert unescape(summary).count(why) == 1


def test_engine_sizes_in_bytes_read_as_sizes(postgres_run: Run):
    """MariaDB records innodb_buffer_pool_size as 33554432: '32 MiB', not '33,554,432'."""
    run = copy.deepcopy(postgres_run)
    run.engine["settings"] = {"innodb_buffer_pool_size": 33554432, "max_connections": 600}
    configuration = section_texts(render_report([run]))[1]["configuration"]
    assert "32 MiB" in configuration and "33,554,432" not in configuration
    assert "600" in configuration


def test_one_capacity_for_every_target_is_one_finding(fc: Run, iscsi: Run):
    """A study-wide [capacity] gave each target the same array: one finding per target
    said the same and pushed the others out of the six."""
    same = {"raw_tb": 23.04, "usable_tb": 16.416, "usable_pct_of_raw": 71.25}
    other = {"raw_tb": 9.6, "usable_tb": 7.0, "usable_pct_of_raw": 72.9}
    analyses = {"capacity": {"FC": same, "ISCSI": dict(same)}}
    summary = section_texts(render_report([fc, iscsi], analyses=analyses))[1]["summary"]
    assert summary.count("TB raw give") == 1
    assert "FC and ISCSI: 23.04 TB raw give 16.42 TB usable (71% of raw)." in summary
    analyses["capacity"]["ISCSI"] = other
    summary = section_texts(render_report([fc, iscsi], analyses=analyses))[1]["summary"]
    assert summary.count("TB raw give") == 2 and "ISCSI: 9.6 TB raw give 7 TB usable" in summary


@pytest.mark.parametrize("runs", golden_runs(), ids=_label)
def test_cards_and_curves_state_no_figure_the_summary_refuses(runs: list[Run]):
    """A fio run's card said 'Peak: 36,343 IOPS' under a summary saying 'no peak is
    stated (QD16 flagged not steady)', and its curve ringed 'knee 26,337 IOPS' the text
    refused."""
    html = unescape(render_report(runs))
    _, texts = section_texts(html)
    summary, results = texts["summary"], texts["results"]
    peaks = re.findall(r"no peak is stated \(([^)]*)\)", summary)
    knees = re.findall(r"the knee could not be stated \(([^)]*)\)", summary)
    for why in peaks:
        assert f"Peak: not stated ({why}); the points' figures are in the run's table" in results
    for why in knees:
        assert f"Knee: not stated ({why}); the points' figures are in the run's table" in results
    assert "knee not stated" not in results and "as measured" not in results


def test_a_flagged_fio_peak_is_refused_on_its_card(fc: Run):
    run = copy.deepcopy(fc)
    peak = max((p for p in run.points if p.ok), key=lambda p: p.iops or 0.0)
    peak.trust.steady = False  # QD64, the peak, still drifting
    _, texts = section_texts(unescape(render_report([run])))
    assert "no peak is stated (QD64 flagged not steady)" in texts["summary"]
    assert "Peak: not stated (QD64 flagged not steady); the points' figures" in texts["results"]


def test_one_run_s_title_names_its_study_once(fc: Run):
    from dbstor.report.html import run_title

    run = copy.deepcopy(fc)
    assert run_title(run) == "fc-vs-iscsi: FC io-oltp"
    run.study = {**run.study, "name": "io-oltp on FC", "source": "command line"}
    assert run_title(run) == "io-oltp on FC"
    run.study = {}
    assert run_title(run) == f"{run.run_id}: FC io-oltp"


def test_the_cost_case_says_at_which_load_its_cpu_was_measured(fc: Run, iscsi: Run):
    """'CPU 55% before, 69% after' with no word of where from: the runs at a load."""
    where = "host-wide CPU measured by the runs at the baseline's peak load (QD 4)"
    tco = {
        "servers": {"before": 10, "after": 8, "retired": 2, "needed_exact": 7.9,
                    "ceiling_pct": 70.0, "cpu_before_pct": 55.5, "cpu_after_pct": 69.2},
        "needs": "no storage price",
        "assumptions": ["servers.count = 10 (given)",
                        f"CPU utilisation: {where}: FC 55.5%, ISCSI 69.2%"],
    }  # fmt: skip
    cost = section_texts(render_report([fc, iscsi], analyses={"tco": tco}))[1]["cost"]
    assert f"56% before, 69% after the storage change: {where}" in unescape(cost)
    tco["assumptions"] = ["cpu.before = 10% (given)"]  # from flags: nothing to cite
    cost = section_texts(render_report([fc, iscsi], analyses={"tco": tco}))[1]["cost"]
    assert "after the storage change " in cost and "measured by the runs" not in cost
