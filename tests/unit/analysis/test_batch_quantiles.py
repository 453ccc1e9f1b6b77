"""The interval of a window's p99 by batch quantiles (analysis/batch_quantiles.py)."""

import random
from collections import Counter

from dbstor.analysis.batch_quantiles import (
    batch_count,
    latency_uncertainty,
    mean_estimate,
    percentile_estimate,
)
from dbstor.analysis.interval import factor_interval


def second(rng, n, tail_ms):
    """One second of n reads: 98% near 0.1 ms, 2% near tail_ms (bins in ns)."""
    bins = Counter()
    for _ in range(n):
        ms = tail_ms if rng.random() < 0.02 else 0.1
        bins[int(ms * rng.uniform(0.9, 1.1) * 1e6) // 1000 * 1000] += 1
    return dict(bins)


def test_a_steady_tail_gives_a_narrow_interval_and_a_wandering_one_a_wide_one():
    rng = random.Random(7)
    steady = [second(rng, 3000, 2.0) for _ in range(10)]
    wander = [second(rng, 3000, 2.0 if i % 2 else 8.0) for i in range(10)]
    a, b = percentile_estimate(steady, "p99"), percentile_estimate(wander, "p99")
    assert a.df == 9 and "batch quantiles" in a.method
    assert 1.5 < a.mean < 2.5 and a.relative < 0.05
    assert b.relative > 5 * a.relative
    low, high = factor_interval(b, a)
    assert high / low > 2  # the wandering tail's factor cannot be stated within 2x


def test_batches_need_enough_reads_for_their_percentile_and_three_of_them():
    assert batch_count(10, 2_500, "p99") == 0  # two batches of 1,000: too few
    assert batch_count(10, 3_000, "p99") == 3
    assert batch_count(2, 100_000, "p99") == 0  # two seconds
    assert batch_count(60, 10**7, "p99") == 10
    rng = random.Random(1)
    thin = [second(rng, 200, 2.0) for _ in range(10)]
    assert percentile_estimate(thin, "p99") is None  # 2,000 reads: no p99 interval
    assert percentile_estimate(thin, "p95") is not None


def test_a_stalled_batch_withholds_the_interval_rather_than_guess():
    rng = random.Random(2)
    seconds = [second(rng, 3000, 2.0) for _ in range(8)] + [{}, {}, {}, {}]
    assert percentile_estimate(seconds, "p99") is None


def test_the_uncertainty_entries_name_each_statistic():
    rng = random.Random(3)
    seconds = [second(rng, 12_000, 2.0) for _ in range(6)]
    out = latency_uncertainty(seconds)
    assert set(out) == {
        "read_lat_p50_ms",
        "read_lat_p95_ms",
        "read_lat_p99_ms",
        "read_lat_p999_ms",
        "read_lat_mean_ms",
    }
    assert mean_estimate(seconds).mean < out["read_lat_p99_ms"]["mean"]
