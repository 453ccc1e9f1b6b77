"""Clock offsets from round trips, start instants and start skew."""

import pytest

from dbstor.cluster.clock import (
    ClockOffset,
    measure_offset,
    offset_from_samples,
    skew_limit_s,
    start_instants,
    start_skew,
)


def test_offset_is_the_remote_reading_minus_the_round_trips_midpoint():
    # the host's clock runs 2 s ahead; the host reads it in the middle of a 10 ms trip
    samples = [(100.0 + i, 102.0 + i + 0.005, 100.0 + i + 0.010) for i in range(20)]
    got = offset_from_samples(samples)
    assert got.offset_s == pytest.approx(2.0)
    assert got.bound_s == pytest.approx(0.005)
    assert got.round_trips == 20


def test_a_few_slow_round_trips_do_not_move_the_median():
    fast = [(10.0, 11.0005, 10.001)] * 17
    slow = [(10.0, 11.4, 10.8)] * 3  # a scheduler hiccup: the reading lands late
    got = offset_from_samples(fast + slow)
    assert got.offset_s == pytest.approx(1.0)
    assert got.bound_s == pytest.approx(0.0005)


def test_no_round_trips_is_an_error():
    with pytest.raises(ValueError):
        offset_from_samples([])


def test_measure_offset_reads_the_remote_clock_once_per_round_trip():
    ticks = iter(float(t) for t in range(100))
    reads = []

    def remote() -> float:
        reads.append(1)
        return 1000.0

    got = measure_offset(remote, lambda: next(ticks), round_trips=5)
    assert len(reads) == 5 and got.round_trips == 5


def test_skew_limit_is_50_ms_or_one_percent_of_the_point():
    assert skew_limit_s(1) == 0.05
    assert skew_limit_s(5) == 0.05
    assert skew_limit_s(60) == pytest.approx(0.6)


def test_start_instants_and_skew_are_on_the_coordinators_clock():
    offsets = {"a": ClockOffset(0.0, 0.001, 20), "b": ClockOffset(-3.0, 0.001, 20)}
    instants = start_instants(500.0, offsets)
    assert instants == {"a": 500.0, "b": 497.0}
    skew, starts = start_skew({"a": 500.010, "b": 497.030}, offsets)
    assert starts == {"a": pytest.approx(500.010), "b": pytest.approx(500.030)}
    assert skew == pytest.approx(0.020)
