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
