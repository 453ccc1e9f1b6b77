"""A user's tally holds its per-second figures in little memory: an hour-long point must
not grow the client by kilobytes a second (bench/bench_soak.py)."""

from __future__ import annotations

import tracemalloc

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
