"""The document walker's claim checks fail on what they are there to catch (a walker that
passes everything proves nothing): each rule broken once in an otherwise clean document."""

from __future__ import annotations

import re

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


def _log_on_its_own_device(run: Run) -> Run:
    """The PostgreSQL run with its WAL on a second device, as a run records it: the
    role's devices at the start, each path's device at the end, each point's roles."""
    run.target = dict(run.target or {})
    run.target["paths"] = {"data": ["/mnt/a/data"], "log": ["/mnt/b/log"]}
    run.target["roles"] = {
        "data": {"paths": ["/mnt/a/data"], "devices": ["dm-2"], "mount": None, "shared_with": []},
        "log": {"paths": ["/mnt/b/log"], "devices": ["loop7"], "mount": None, "shared_with": []},
    }
    run.engine_stats = dict(run.engine_stats or {})
    run.engine_stats["paths"] = [
        {"instance": 0, "role": "data", "path": "/mnt/a/data", "device": "dm-2",
         "files": 900, "bytes_on_disk": 1 << 28},
        {"instance": 0, "role": "log", "path": "/mnt/b/log", "device": "loop7",
         "files": 4, "bytes_on_disk": 1 << 26},
    ]  # fmt: skip
    return run


def test_a_device_named_for_a_role_that_is_not_the_device_its_files_are_on(postgres_run: Run):
    run = _log_on_its_own_device(postgres_run)
    html = render_report([run])
    assert "<td>log</td><td>loop7</td>" in html
    assert document_problems(html, [run]) == []
    # the Layout naming the data's device for the log, as it once did for every role
    planted = html.replace("<td>log</td><td>loop7</td>", "<td>log</td><td>dm-2</td>", 1)
    problems = document_problems(planted, [run])
    assert any("log is named on dm-2" in p and "loop7" in p for p in problems), problems
    # a per-path row naming a device the role's files are not on
    planted = html.replace(
        "<td>log</td><td>loop7</td><td class", "<td>log</td><td>sdz</td><td class"
    )
    assert planted != html
    assert any("log is named on sdz" in p for p in document_problems(planted, [run]))
    # the role said to be on no device while its files are on one
    planted = html.replace("<td>log</td><td>loop7</td>", "<td>log</td><td>no block device</td>")
    assert any("log is named on no block device" in p for p in document_problems(planted, [run]))


def test_a_role_recorded_on_another_device_than_its_path_facts(postgres_run: Run):
    """A run that recorded the data's device for its log role (the Layout's old error, at
    the source): the path facts read at the run's end say where the files are."""
    run = _log_on_its_own_device(postgres_run)
    run.target["roles"]["log"]["devices"] = ["dm-2"]
    problems = document_problems(render_report([run]), [run])
    assert any("log is named on dm-2, while the path facts put its files on loop7" in p
               for p in problems), problems  # fmt: skip


def test_the_conclusion_names_the_highest_load_and_the_most_within_the_limit(postgres_run: Run):
    """Every load within the SLO: the conclusion said 'up to the highest load (216 TPS at 1
    instances)' while the highest load was 2 instances; it names both, in words."""
    from dbstor.report.document.conclusion import conclusion_body

    postgres_run.slo["limit_ms"] = 1000.0
    said = " ".join(
        re.sub(r"<[^>]+>", " ", conclusion_body([postgres_run], ["L"], None, {})).split()
    )
    assert "up to the highest load (5,607 TPS at 8 instances)" in said
    postgres_run.points[-1].tps = 5000.0  # the most within the limit now at 4 instances
    said = " ".join(
        re.sub(r"<[^>]+>", " ", conclusion_body([postgres_run], ["L"], None, {})).split()
    )
    assert (
        "at every load up to the highest (8 instances × 4 users each), carrying at most 5,282 TPS "
        "(at 4 instances)" in said
    )
    postgres_run.points = postgres_run.points[:1]
    said = " ".join(
        re.sub(r"<[^>]+>", " ", conclusion_body([postgres_run], ["L"], None, {})).split()
    )
    assert "(1,853 TPS at 1 instance)" in said


def test_a_comparison_row_on_a_knee_the_document_refuses(fc: Run, iscsi: Run, comparison):
    """FC's knee is refused (QD32 flagged not steady); the comparison still stands on it,
    as its factors do with the flag: its row says so, and a row without a word is caught."""
    html = render_report([fc, iscsi], comparison=comparison)
    assert "FC: the knee could not be stated (QD32 flagged not steady)" in html
    row = "<td>knee (not stated alone: QD32 flagged not steady)</td>"
    assert row in html
    assert document_problems(html, [fc, iscsi]) == []
    bare = html.replace(row, "<td>knee</td>")
    (problem,) = document_problems(bare, [fc, iscsi])
    assert "FC: its knee is refused and a comparison stands on it without a word" in problem
