"""A study with fio and database runs: each workload compared among its own runs, a line
for a run that had nothing to compare with, and one code path for the study and for
`dbstor report` (analysis/study_compare.py)."""

from __future__ import annotations

import json
import re

from dbstor.analysis.study_compare import study_comparison
from dbstor.report.html import render_report
from dbstor.results.model import Run


def test_fio_runs_are_compared_and_a_lone_database_run_says_why(fc: Run, iscsi: Run, sqlite_run):
    comparison = study_comparison([fc, iscsi, sqlite_run], "FC")
    assert comparison is not None and comparison["comparable"] is not False
    assert [r["label"] for r in comparison["runs"]] == ["FC", "ISCSI"]
    assert comparison["others"] == []
    (line,) = comparison["not_compared"]
    assert "no other run of the study ran brokerage" in line
    json.dumps(comparison)  # comparison.json holds it as it is
    html = render_report([fc, iscsi, sqlite_run], comparison=comparison)
    assert "no other run of the study ran brokerage" in html.split('id="configuration"')[0]


def test_database_runs_are_compared_among_themselves(
    fc: Run, iscsi: Run, sqlite_run: Run, postgres_run: Run
):
    postgres_run.workload["name"] = sqlite_run.workload["name"]  # both brokerage
    runs = [fc, iscsi, sqlite_run, postgres_run]
    comparison = study_comparison(runs, None)
    (other,) = comparison["others"]
    assert {r["workload"] for r in other["runs"]} == {sqlite_run.workload["name"]}
    assert comparison["not_compared"] == []
    html = render_report(runs, comparison=comparison)
    ids = re.findall(r'<section class="comparison" id="([^"]+)"', html)
    assert ids == ["comparison", "comparison-2"]
    assert "brokerage: Comparison against" in html


def test_runs_of_different_workloads_only_say_why_they_are_not_compared(default_pair):
    runs, _ = default_pair
    comparison = study_comparison(runs, None)
    assert comparison["comparable"] is False and "others" not in comparison
    assert study_comparison(runs[:1], None) is None


def test_the_terminal_shows_every_comparison_the_document_shows(
    fc: Run, iscsi: Run, sqlite_run: Run, postgres_run: Run
):
    """A study of fio and databases: the terminal printed the fio comparison alone; it
    shows each workload's comparison and each lone run's line, as the document does."""
    from rich.console import Console

    from dbstor.report.console import print_comparison

    postgres_run.workload["name"] = sqlite_run.workload["name"]  # both brokerage
    comparison = study_comparison([fc, iscsi, sqlite_run, postgres_run], None)
    comparison["not_compared"] = ["X was compared with no other run: no other run ran dss."]
    console = Console(record=True, width=80, color_system=None)
    print_comparison(comparison, console)
    text = console.export_text()
    titles = re.findall(r"Compared with \S+ \(= 100\): (\S+)", text)
    assert titles == ["io-oltp", sqlite_run.workload["name"]], text
    assert "X was compared with no other run" in text
    assert all(len(line) <= 80 for line in text.splitlines()) and "…" not in text
