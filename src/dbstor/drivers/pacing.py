"""Open-loop pacing: transactions arrive at a set rate whether or not the database keeps up.

A dispatcher thread draws Poisson arrivals (exponential gaps) at the asked rate and puts
each arrival's intended start time on a queue; the virtual users take arrivals off the
queue and run them. When every user is busy, arrivals wait in the queue and their wait
counts in their latency: a slow storage shows up in the percentiles instead of quietly
lowering the rate (the "coordinated omission" a closed loop suffers from).
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable, Sequence

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.drivers.load_cpu import LoadCpu
from dbstor.drivers.tally import ages_histogram
from dbstor.drivers.window import Window

ARRIVAL_BATCH_S = 0.0005  # arrivals due within this much of now are released together


class Arrivals(threading.Thread):
    """Releases intended start times (on `clock`, time.monotonic unless a test gives its
    own) at `rate` per second, from `start` until `end`, onto `due`; counts those falling
    in the measured window."""

    def __init__(
        self,
        rate: float,
        start: float,
        measure_start: float,
        end: float,
        stop: threading.Event,
        seed: int,
        clock: Callable[[], float] = time.monotonic,
        cpu: LoadCpu | None = None,
    ):
        super().__init__(name="dbstor-arrivals", daemon=True)
        self.cpu = cpu or LoadCpu()  # whose CPU this thread counts on
        if rate <= 0:
            raise ValueError("rate must be above zero")
        self.rate, self.start_at, self.measure_start, self.end = rate, start, measure_start, end
        self.stop_event = stop
        self.rng = random.Random(seed)
        self.clock = clock
        self.due: queue.SimpleQueue[float] = queue.SimpleQueue()
        self.in_window = 0  # arrivals with measure_start <= intended < end

    def run(self) -> None:
        with self.cpu.counting():
            self._release()

    def _release(self) -> None:
        t = self.start_at + self.rng.expovariate(self.rate)
        while t < self.end and not self.stop_event.is_set():
            wait = t - self.clock()
            if wait > ARRIVAL_BATCH_S and self.stop_event.wait(wait):
                return
            self.due.put(t)
            if t >= self.measure_start:
                self.in_window += 1
            t += self.rng.expovariate(self.rate)

    def take(self, timeout: float) -> float | None:
        """The next intended start time, or None when none arrived within `timeout`."""
        try:
            return self.due.get(timeout=timeout)
        except queue.Empty:
            return None

    def left_in_window(self) -> list[float]:
        """Intended start times of the arrivals due in the measured window that no user
        started: the backlog."""
        left = []
        while True:
            try:
                intended = self.due.get_nowait()
            except queue.Empty:
                return left
            if self.measure_start <= intended < self.end:
                left.append(intended)


def open_loop_counts(arrivals: list[Arrivals], end: float) -> tuple[int, LatencyHistogram]:
    """Arrivals due in the measured window, and the ages at `end` of those never started."""
    for each in arrivals:
        each.join(timeout=5)
    due = sum(a.in_window for a in arrivals)
    return due, ages_histogram([t for a in arrivals for t in a.left_in_window()], end)


def start_arrivals(
    rate: float,
    slots: Sequence[tuple[int, int]],
    total_users: int,
    window: Window,
    *,
    stop: threading.Event,
    seed: int,
    clock: Callable[[], float],
    cpu: LoadCpu,
) -> dict[int, Arrivals]:
    """One arrivals thread per instance these slots use, started, its share of `rate` (per
    user, over every client process's `total_users`), counted on `cpu`."""
    per_user, arrivals = rate / total_users, {}
    for i in {i for i, _ in slots}:
        users_here = sum(1 for j, _ in slots if j == i)
        arrivals[i] = Arrivals(
            per_user * users_here,
            window.start,
            window.measure_start,
            window.end,
            stop,
            seed=seed * 7919 + i * 104_729 + slots[0][1],
            clock=clock,
            cpu=cpu,
        )
        arrivals[i].start()
    return arrivals
