"""The regression gate's verdicts: beyond the bound and the spread, the direction of each
metric, a figure gone, the JUnit report."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from dbstor.catalog.gate import failed, judge, junit_xml, metric_name


def row(**figures):
    return {"folder": "r", "key": "k", "unit": "IOPS", "spread_pct": None} | figures


def test_a_fall_beyond_the_bound_regresses_and_a_rise_improves():
    assert judge(row(knee=90.0), row(knee=100.0), "knee", 5).status == "regression"
    assert judge(row(knee=97.0), row(knee=100.0), "knee", 5).status == "ok"
    assert judge(row(knee=120.0), row(knee=100.0), "knee", 5).status == "improved"


def test_latency_regresses_upwards():
    assert (
        judge(row(latency_at_load=1.2), row(latency_at_load=1.0), "latency_at_load", 5).status
        == "regression"
    )
    assert (
        judge(row(latency_at_load=0.8), row(latency_at_load=1.0), "latency_at_load", 5).status
        == "improved"
    )


def test_a_change_inside_the_runs_spread_passes():
    verdict = judge(row(peak=90.0, spread_pct=12.0), row(peak=100.0), "peak", 5)
    assert verdict.status == "ok" and verdict.allowed_pct == 12.0 and "spread 12.0%" in verdict.why


def test_a_figure_gone_fails_and_one_never_measured_is_skipped():
    gone = judge(row(knee=None), row(knee=100.0), "knee", 5)
    skipped = judge(row(knee=100.0), row(knee=None), "knee", 5)
    assert gone.status == "missing" and skipped.status.startswith("not measured")
    assert failed([gone]) and not failed([skipped])
    suite = ElementTree.fromstring(junit_xml(row(), row(), [gone, skipped]))
    assert suite.get("failures") == "1" and suite.get("skipped") == "1"


def test_metric_names_and_aliases():
    assert metric_name("knee_iops") == "knee" and metric_name("p99_at_load") == "latency_at_load"
    with pytest.raises(ValueError, match="unknown metric"):
        metric_name("iops")
