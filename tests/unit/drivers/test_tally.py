"""A user's tally holds its per-second figures in little memory: an hour-long point must
not grow the client by kilobytes a second (bench/bench_soak.py)."""

from __future__ import annotations

import tracemalloc

import pytest
from dbstor.hotpath import bin_ns

from dbstor.drivers.tally import Tally, merge


def test_an_hour_of_per_second_figures_is_held_in_little_memory():
    tally = Tally()
    tally.record("payment", 1e6, 0)  # the histogram's bins and the type's entries exist
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for second in range(1, 3600):
            for _ in range(6):
                tally.record("payment", 1e6, second)
        per_second = (tracemalloc.get_traced_memory()[0] - before) / 3599
    finally:
        tracemalloc.stop()
    assert per_second < 40  # bytes: a count and a latency sum, 8 bytes each (was ~100)
    result = merge([tally], ["payment"], 3600.0, open_loop=False)
    assert result.per_second == [1.0] + [6.0] * 3599
    assert result.per_second_mean_ms() == [1.0] * 3600


def test_record_counts_every_figure_exactly():
    """The compiled count (hotpath.count) against the figures worked out here."""
    import math
    import random
    from collections import Counter

    from dbstor.drivers.tally import BIN_GROWTH, bin_ns

    rng, tally = random.Random(5), Tally()
    expected_bins: dict[str, Counter[int]] = {}
    totals: Counter[str] = Counter()
    most: dict[str, float] = {}
    per_second, per_second_ns = [0] * 9, [0.0] * 9
    rollbacks: Counter[str] = Counter()
    for _ in range(3000):
        txn = rng.choice(["New-Order", "Payment", "Stock-Level"])
        ns, second = rng.lognormvariate(14, 1.5), rng.randrange(9)
        back = rng.random() < 0.05
        tally.record(txn, ns, second, rolled_back=back)
        bin_value = (
            max(1, int(ns))
            if ns < 1000
            else int(BIN_GROWTH ** math.floor(math.log(ns) / math.log(BIN_GROWTH)))
        )
        expected_bins.setdefault(txn, Counter())[bin_value] += 1
        totals[txn] += ns
        most[txn] = max(most.get(txn, 0.0), ns)
        per_second[second] += 1
        per_second_ns[second] += ns
        rollbacks[txn] += back
    assert tally.bins == expected_bins
    assert all(isinstance(c, Counter) for c in tally.bins.values())
    assert tally.total_ns == totals and tally.max_ns == most
    assert list(tally.per_second) == per_second and list(tally.per_second_ns) == per_second_ns
    assert tally.rollbacks == +rollbacks
    assert bin_ns(999.9) == 999 and bin_ns(0.2) == 1
    with pytest.raises(ValueError, match="finite"):
        bin_ns(float("nan"))
    with pytest.raises(ValueError, match="second below 0"):
        tally.record("Payment", 1e6, -1)


@pytest.mark.parametrize("second_bins", [None, []])
def test_the_loops_committer_counts_as_record_does(second_bins):
    """The loop thread's bound count (one compiled call) leaves a tally exactly as record()
    leaves it, per-second bins included when a point keeps them."""
    fast, slow = (
        Tally(second_bins=second_bins),
        Tally(second_bins=None if second_bins is None else []),
    )
    commit = fast.committer()
    for txn, ns, second in [("read", 1500.0, 0), ("update", 2.5e6, 3), ("read", 9e5, 3)]:
        commit(txn, ns, second)
        slow.record(txn, ns, second)
    assert fast == slow
    assert fast.per_second.tolist() == [1, 0, 0, 2] and not fast.rollbacks
    assert fast.bins["read"] == {1490: 1, bin_ns(9e5): 1}
