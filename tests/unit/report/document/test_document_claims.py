"""The document walker's claim checks fail on what they are there to catch (a walker that
passes everything proves nothing): each rule broken once in an otherwise clean document."""

from __future__ import annotations

from document_claims import rerender_problems
from document_walk import document_problems

from dbstor.report.html import render_report
from dbstor.results.model import Run


def _steady(run: Run) -> Run:
    for point in run.points:
        point.trust.steady = True
    return run


def _insert(html: str, sentence: str) -> str:
    """The sentence as one more finding at the head of the summary."""
    item = f'<li>{sentence} <a class="src" href="#results">table</a></li>'
    return html.replace('<ul class="findings">', f'<ul class="findings">{item}', 1)


def test_a_knee_beaten_by_a_measured_point_within_the_limit(default_pair):
    runs, _ = default_pair
    _steady(runs[0])
    html = render_report(runs)
    assert "dbstor-data io-oltp sustains 54,770 IOPS" in html
    assert document_problems(html, runs) == []
    # the knee the code gave before: interpolated at QD 14 where the curve ran backwards
    old = html.replace("sustains 54,770 IOPS", "sustains 53,965 IOPS")
    (problem,) = document_problems(old, runs)
    assert "a knee of 53,965 IOPS is stated while a point within the same limit" in problem


def test_a_sentence_with_a_dash_or_an_empty_value(sqlite_run: Run):
    html = render_report([sqlite_run])
    assert document_problems(html, [sqlite_run]) == []
    for bad in ("with a p99 transaction latency of –.", "peaked at 5,918 TPS at ."):
        problems = document_problems(_insert(html, f"SQLite {bad}"), [sqlite_run])
        assert any("a dash or an empty value" in p for p in problems), bad
    ranged = _insert(html, "The repeats ranged 44,100–46,050 IOPS.")
    assert document_problems(ranged, [sqlite_run]) == []  # a range is not a missing value


def test_a_figure_stated_from_a_point_the_document_refuses(fc: Run):
    html = render_report([fc])  # QD32, beside the knee, is flagged not steady
    assert "the knee could not be stated (QD32 flagged not steady)" in html
    assert document_problems(html, [fc]) == []
    stated = _insert(html, "FC sustains 47,702 IOPS within the SLO (p99 read ≤ 1 ms).")
    problems = document_problems(stated, [fc])
    assert any("its knee is refused" in p for p in problems)


def test_extra_checks_are_run_beside_the_claims(fc: Run):
    def roles(html, prose, runs):
        return ["data: named on sdb, its files are on sdc"]

    html = render_report([fc])
    assert document_problems(html, [fc], (roles,)) == ["data: named on sdb, its files are on sdc"]


def test_a_re_render_that_differs_from_the_study_s_document(fc: Run):
    html = render_report([fc])
    assert rerender_problems(html, render_report([fc])) == []
    other = html.replace("<h2>Summary</h2>", "<h2>Summary</h2>\n")
    assert rerender_problems(html, other)


def test_a_re_render_a_minute_later_is_the_same_document(fc: Run):
    html = render_report([fc])
    later = html.replace("report generated ", "report generated 2031-01-01 00:00 UTC, not ", 1)
    assert later != html and rerender_problems(html, later) == []
