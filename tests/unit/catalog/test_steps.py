"""Step detection: a real shift is found where it happened; scatter and repeats' own
spread are not steps."""

from __future__ import annotations

import random

from dbstor.catalog.steps import find_steps


def test_a_clear_shift_is_one_step_at_the_right_run():
    rng = random.Random(1)
    values = [100 + rng.uniform(-1, 1) for _ in range(6)] + [
        80 + rng.uniform(-1, 1) for _ in range(6)
    ]
    [step] = find_steps(values)
    assert step.index == 6 and step.change_pct < -15 and step.before > step.after


def test_scatter_as_wide_as_the_change_is_not_a_step():
    values = [32_000, 13_000, 13_300, 20_500, 26_500, 26_400]  # a loaded machine's runs
    assert find_steps(values) == []


def test_identical_runs_and_too_few_runs_make_no_step():
    assert find_steps([100.0] * 8) == []
    assert find_steps([100.0, 50.0]) == []  # one run a side and no repeats: no noise known


def test_the_runs_own_spread_raises_the_bar():
    values = [100, 101, 99, 100, 110, 111, 109, 110]
    assert [s.index for s in find_steps(values)] == [4]
    spread = [15.0] * len(values)  # repeats differed by 15%: a 10% move is inside it
    assert find_steps(values, spread) == []


def test_with_repeats_one_run_a_side_can_show_a_step():
    [step] = find_steps([100.0, 60.0], [2.0, 2.0])
    assert step.index == 1 and step.threshold_pct == 2.0


def test_a_series_too_short_to_tell_says_so_rather_than_no_step():
    from dbstor.catalog.build import trends
    from dbstor.catalog.page import index_page
    from dbstor.catalog.steps import judgeable

    assert not judgeable([100.0, 50.0]) and not judgeable([100.0, 50.0, 52.0])
    assert judgeable([100.0, 50.0], [2.0, 2.0]) and judgeable([100.0, 99.0, 50.0, 51.0])
    rows = [
        {"kind": "run", "status": "complete", "key": "k", "folder": f"r{n}", "unit": "TPS",
         "created_at": f"2026-01-0{n}", "peak": peak, "knee": None, "latency_at_load": None}
        for n, peak in ((1, 100.0), (2, 50.0))
    ]  # fmt: skip
    index = {"entries": rows, "trends": trends(rows), "comparisons": []}
    page = index_page(index, "/results")
    assert "Too few runs to tell a step from noise in the peak" in page
    assert "No step: every change stays within" not in page
