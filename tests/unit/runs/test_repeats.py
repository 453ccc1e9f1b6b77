"""One point from its repeats: the median repeat's figures, merged histograms, the spread."""

from __future__ import annotations

from collections import Counter

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.results.model import Load, Point
from dbstor.runs.repeats import combine_repeats, median_repeat


def point(tps: float, reads: float | None = 100.0) -> Point:
    return Point(
        load=Load(kind="users", value=4), duration_s=10, tps=tps, read_iops=reads, wall_s=12
    )


def histogram(ms: float, count: int) -> LatencyHistogram:
    ns = int(ms * 1e6)
    return LatencyHistogram(bins=Counter({ns: count}), total_ns=ns * count, max_ns=ns)


def test_one_repeat_is_the_point_itself():
    only = point(10)
    assert combine_repeats([only]) is only and only.repeats == 1 and only.tps_spread is None


def test_the_median_repeat_carries_the_figures_and_the_spread_is_kept():
    points = [point(90, 10), point(100, 30), point(130, 20)]
    done = combine_repeats(points)
    assert done is points[1] and done.repeats == 3 and done.wall_s == 36
    assert (done.tps_spread.minimum, done.tps_spread.median, done.tps_spread.maximum) == (
        90,
        100,
        130,
    )
    assert (done.iops_spread.minimum, done.iops_spread.maximum) == (10, 30)
    assert done.trust.noisy and "noisy" in done.trust.notes[-1]


def test_quiet_repeats_are_not_noisy_and_an_even_count_takes_the_lower_middle():
    points = [point(100), point(104), point(102), point(101)]
    assert median_repeat(points) == 3
    done = combine_repeats(points)
    assert done.tps == 101 and not done.trust.noisy


def test_percentiles_come_from_every_repeats_transactions():
    fast, slow = histogram(1.0, 990), histogram(50.0, 30)
    done = combine_repeats(
        [point(10), point(11)], [fast, slow], [{"a": fast}, {"a": slow, "b": slow}]
    )
    assert done.txn_lat_ms.count == 1020
    assert done.txn_lat_ms.p99 > 40  # the slow repeat's tail is in the merged p99
    assert done.trust.p99_trusted and not done.trust.p999_trusted
    assert done.txn_types["a"].count == 1020 and done.txn_types["b"].count == 30


def test_no_device_figures_no_iops_spread():
    done = combine_repeats([point(10, None), point(11, None)])
    assert done.iops_spread is None and done.tps_spread is not None


def test_the_point_started_when_its_first_repeat_did():
    points = [point(90), point(100), point(130)]
    for n, p in enumerate(points):
        p.started_at = f"2026-11-26T10:0{n}:00+00:00"
    done = combine_repeats(points)
    assert done is points[1] and done.started_at == "2026-11-26T10:00:00+00:00"
