"""A point's own spread and the interval a factor carries (analysis/interval.py,
analysis/factor_interval.py, through compare_runs)."""

import math
import random
import re

import pytest

from dbstor.analysis.compare import compare_runs
from dbstor.analysis.interval import (
    Estimate,
    factor_interval,
    from_repeats,
    from_seconds,
    lag1,
    t95,
)
from dbstor.results.model import LatencyStats, Load, Point, Run


def test_independent_seconds_give_the_textbook_standard_error():
    values = [100.0, 104.0, 96.0, 102.0, 98.0, 101.0, 99.0, 103.0, 97.0, 100.0]
    est = from_seconds(values)
    assert lag1(values) < 0  # alternating: taken as 0, never as more than n seconds
    assert est.se == pytest.approx(math.sqrt(sum((v - 100) ** 2 for v in values) / 9 / 10))
    assert est.df == pytest.approx(9)


def test_correlated_seconds_count_as_fewer_than_their_number():
    """A slow wander (each second near the one before) is not n independent seconds: the
    standard error is wider than sd / sqrt(n) and the degrees of freedom fewer."""
    rng = random.Random(3)
    values, level = [], 1000.0
    for _ in range(30):
        level += rng.gauss(0, 20)
        values.append(level)
    est = from_seconds(values)
    naive = (sum((v - est.mean) ** 2 for v in values) / 29) ** 0.5 / math.sqrt(30)
    assert lag1(values) > 0.5
    assert est.se > 1.5 * naive and est.df < 15


def test_too_few_seconds_or_nothing_measured_gives_no_estimate():
    assert from_seconds([10.0, 11.0]) is None
    assert from_seconds([0.0, 0.0, 0.0]) is None
    assert from_repeats([5.0]) is None
    assert from_repeats([10.0, 12.0, 11.0]).df == 2


def test_a_factor_interval_widens_with_either_sides_spread_and_few_degrees_of_freedom():
    sure = Estimate(1000.0, 10.0, 20, "")
    loose = Estimate(1000.0, 50.0, 20, "")
    few = Estimate(1000.0, 10.0, 2, "")
    tight = factor_interval(sure, sure)
    assert tight[0] < 1 < tight[1]
    assert factor_interval(loose, sure)[1] > tight[1]
    assert factor_interval(few, few)[1] > tight[1]
    assert factor_interval(None, sure) is None
    assert t95(1) == pytest.approx(12.706) and t95(500) == pytest.approx(1.96)


def users_point(users, tps, per_second, read_ms=2.0):
    point = Point(
        load=Load("users", users),
        duration_s=10,
        tps=tps,
        read_iops=tps * 3,
        write_iops=0.0,
        read_lat_ms=LatencyStats(mean=read_ms, p99=read_ms, count=10_000),
    )
    point.engine_io = {"device_reads_per_txn": 3.0}
    est = from_seconds(per_second)
    lat = from_seconds([read_ms * v / tps for v in per_second])
    point.uncertainty = {
        "tps": est.to_dict(),
        "iops": est.to_dict(),
        "read_lat_mean_ms": lat.to_dict(),
    }
    return point


def db_run(label, points):
    return Run(
        run_id=f"r-{label}",
        tool_version="0",
        study={"duration_s": 10},
        target={"label": label, "facts": {}},
        engine={"name": "postgres"},
        workload={"name": "brokerage"},
        host={},
        slo={"metric": "read_lat_mean_ms", "limit_ms": 20.0},
        created_at="",
        points=points,
    )


STEADY = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0, 998.0, 1001.0]


def test_a_clear_difference_states_its_factor_with_its_interval():
    base = db_run("SLOW", [users_point(4, 1000.0, STEADY)])
    fast = db_run("FAST", [users_point(4, 4000.0, [4 * v for v in STEADY])])
    c = compare_runs([base, fast], "SLOW")
    factor = c["factors"][0]
    low, high = factor["intervals"]["tps"]
    assert low < 4.0 < high and high - low < 0.2
    assert f"transactions x4 ({low:.3g}-{high:.3g})" in factor["text"]
    assert c["runs"][1]["normalised"]["tps"] == pytest.approx(400.0)


def test_a_factor_whose_interval_includes_1_is_withheld_with_the_interval_shown():
    noisy = [1000.0, 700.0, 1300.0, 800.0, 1200.0, 900.0, 1100.0, 1000.0]
    base = db_run("A", [users_point(4, 1000.0, noisy)])
    other = db_run("B", [users_point(4, 1050.0, [v * 1.05 for v in noisy])])
    c = compare_runs([base, other], "A")
    held = c["runs"][1]["withheld"]["tps"]
    assert "x1.05 with an interval of" in held and "includes 1" in held
    assert c["runs"][1]["normalised"]["tps"] is None
    low, high = c["runs"][1]["intervals"]["tps"]
    assert low < 1 < high
    assert "transactions not computed: x1.05 with an interval of" in c["factors"][0]["text"]


def test_a_point_not_steady_keeps_its_factor_and_says_so_beside_it():
    base = db_run("SLOW", [users_point(4, 1000.0, STEADY)])
    drifting = users_point(4, 4000.0, [4 * v for v in STEADY])
    drifting.trust.steady = False
    c = compare_runs([base, db_run("FAST", [drifting])], "SLOW")
    text = c["factors"][0]["text"]
    assert "transactions x4 (" in text
    assert "(flagged: FAST's point at 4 users: not steady)" in text
    assert c["factors"][0]["flags"] == ["FAST's point at 4 users: not steady"]
    # the same at the same load, where the headline is read
    same = c["same_load"]["factors"][0]
    assert "transactions x4 (" in same["text"] and "not steady" in same["text"]


def test_a_point_read_from_memory_still_withholds_the_whole_factor():
    base = db_run("SLOW", [users_point(4, 1000.0, STEADY)])
    memory = users_point(4, 4000.0, [4 * v for v in STEADY])
    memory.engine_io = {"device_reads_per_txn": 0.001}
    c = compare_runs([base, db_run("FAST", [memory])], "SLOW")
    assert c["factors"][0]["text"].startswith("not computed: FAST's point at 4 users: its reads")


def test_read_latency_carries_its_interval_as_a_change_in_percent():
    base = db_run("SLOW", [users_point(4, 1000.0, STEADY, read_ms=2.0)])
    fast = db_run("FAST", [users_point(4, 4000.0, [4 * v for v in STEADY], read_ms=0.5)])
    factor = compare_runs([base, fast], "SLOW")["factors"][0]
    low, high = factor["intervals"]["read_lat_ms"]
    assert low < 0.25 < high
    assert re.search(r"mean device read latency -75% \(-7\d% to -7\d%\)", factor["text"])
