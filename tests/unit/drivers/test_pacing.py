"""Open-loop arrivals on an injected clock: what is released, when, and what counts in the
measured window, without wall-clock bounds or sleeps."""

from __future__ import annotations

import random
import threading

from dbstor.drivers.pacing import Arrivals


class StepClock:
    """A clock that stands where the test puts it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _expected(rate: float, start: float, end: float, seed: int) -> list[float]:
    rng, out = random.Random(seed), []
    t = start + rng.expovariate(rate)
    while t < end:
        out.append(t)
        t += rng.expovariate(rate)
    return out


def _drain(arrivals: Arrivals) -> list[float]:
    out = []
    while (t := arrivals.take(timeout=0)) is not None:
        out.append(t)
    return out


def test_a_clock_past_the_end_releases_every_arrival_at_once_in_order():
    stop = threading.Event()
    clock = StepClock(1000.0)  # long after the point: everything is due
    arrivals = Arrivals(500.0, 10.0, 11.0, 12.0, stop, seed=7, clock=clock)
    arrivals.run()  # in this thread: no wait, since every arrival is already due
    released = _drain(arrivals)
    assert released == _expected(500.0, 10.0, 12.0, seed=7)
    assert arrivals.in_window == sum(1 for t in released if t >= 11.0)
    assert 400 < arrivals.in_window < 600  # 500 expected over the one measured second


def test_nothing_is_released_before_its_time_on_the_clock():
    """The clock stands before the first arrival: the thread waits (on the stop event) and
    releases nothing; stopping ends it at once."""
    stop = threading.Event()
    clock = StepClock(0.0)
    arrivals = Arrivals(10.0, 100.0, 100.0, 200.0, stop, seed=3, clock=clock)
    arrivals.start()
    assert arrivals.take(timeout=0.2) is None
    stop.set()
    arrivals.join(timeout=10)
    assert not arrivals.is_alive()
    assert _drain(arrivals) == [] and arrivals.in_window == 0


def test_the_backlog_is_what_no_user_took_inside_the_window():
    stop = threading.Event()
    arrivals = Arrivals(100.0, 0.0, 1.0, 3.0, stop, seed=11, clock=StepClock(10.0))
    arrivals.run()
    first = arrivals.take(timeout=0)  # a user took one (during the warm-up)
    left = arrivals.left_in_window()
    expected = [t for t in _expected(100.0, 0.0, 3.0, seed=11) if t >= 1.0]
    assert first is not None and first < 1.0
    assert left == expected
