"""Virtual users: clients that run a workload's transaction mix on their own connections.

Each user connects on a thread of its own (all at once) and opens its session. Closed loop
(the default): a user runs one transaction after another, with an optional think time.
Users whose sessions can send a transaction and read its reply apart (one stored-procedure
CALL) keep no thread: their thread ends once connected and one loop thread of the driver
runs them all (multiplex.py), each with one transaction in flight. Open loop (a rate):
transactions arrive at the asked rate (Poisson) and free users pick them up; latency runs
from each arrival (pacing.py). Users pick transaction types by the workload's mix, retry
what the engine calls retryable, count other errors, and stop everything when the engine
calls an error fatal; in a point whose server is crashed on purpose (`survive_restarts`),
a user that loses its connection counts the error, connects again until the server is
back, and goes on. Client processes (processes.py) each run a share with this class.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.drivers.client_watch import allow_open_files, longer_switch, rss_bytes
from dbstor.drivers.load_cpu import LoadCpu, counted
from dbstor.drivers.multiplex import run_multiplexed
from dbstor.drivers.pacing import Arrivals, open_loop_counts, start_arrivals
from dbstor.drivers.running import running_figures
from dbstor.drivers.tally import (
    BIN_GROWTH,
    DriveResult,
    Tally,
    bin_ns,
    error_line,
    merge,
)
from dbstor.drivers.user import Instance, VirtualUser
from dbstor.drivers.window import Window
from dbstor.engines.base import Engine

__all__ = ["BIN_GROWTH", "DriveResult", "Instance", "VirtualUsers", "bin_ns"]


class VirtualUsers:
    """Drives `users_per_instance` users on each instance for warm-up + duration seconds,
    closed loop or, with `rate` (transactions per second over all users), open loop.

    `slots` limits this driver to some (instance, user) pairs: a client process runs its
    share of the users; a user's random stream depends only on its pair."""

    def __init__(
        self,
        instances: Sequence[Instance],
        users_per_instance: int,
        think_time_ms: float = 0.0,
        seed: int = 1,
        rate: float | None = None,
        slots: Sequence[tuple[int, int]] | None = None,
        total_users: int | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        survive_restarts: bool = False,
        second_bins: bool = False,
    ):
        self.survive_restarts = survive_restarts  # a crash event: reconnect, count, go on
        self.second_bins = second_bins  # keep latency bins per measured second
        self.clock = clock  # every time read of the users, pacing and window (monotonic s)
        self.instances = list(instances)
        self.users_per_instance = users_per_instance
        self.think_s = think_time_ms / 1000.0
        self.seed = seed
        self.rate = rate
        self.slots = list(slots) if slots is not None else self.all_slots()
        self.total_users = total_users or len(self.slots)
        mix = self.instances[0].workload.mix
        self.names = list(mix)
        self.cum_weights = list(itertools.accumulate(mix.values()))
        self.total_weight, self.last = self.cum_weights[-1] + 0.0, len(self.names) - 1
        self.stop = threading.Event()
        self.go = threading.Event()
        self.window = Window(0.0, 0.0, 0.0)
        self.arrivals: dict[int, Arrivals] = {}
        self._lock = threading.Lock()
        self._ready = 0
        self._all_ready = threading.Event()
        self._users: list[VirtualUser] = []
        # the multiplexed users' one tally: merged per thread, not user
        self.shared = Tally(second_bins=[] if second_bins else None)
        self.cpu = LoadCpu()  # the user, loop and arrival threads' CPU: client.cpu_s
        self._loop: threading.Thread | None = None  # drives the multiplexed users
        self.fatal: str | None = None
        self.rss_per_user: float | None = None
        self.on_running: Callable[[dict[str, Any]], None] | None = None  # live figures
        self._published = 0.0

    def all_slots(self) -> list[tuple[int, int]]:
        return [(i, u) for i in range(len(self.instances)) for u in range(self.users_per_instance)]

    def ready(self) -> None:
        with self._lock:
            self._ready += 1
            if self._ready == len(self._users):
                self._all_ready.set()

    def fail(self, exc: BaseException, engine: Engine | None = None) -> None:
        """Stop every user: the point cannot go on. The first error is kept, after the
        external server it names when the connection to that server broke."""
        lost = engine.lost_server(exc) if engine is not None else None
        with self._lock:
            if self.fatal is None:
                self.fatal = f"{lost}: {error_line(exc, 300)}" if lost else error_line(exc, 300)
        self.stop.set()
        self._all_ready.set()

    def prepare(self) -> None:
        """Start every user (each connects and opens its session) and wait until all are
        ready or one failed; measures the memory the users took."""
        allow_open_files(len(self.slots))
        before = rss_bytes()
        self._users = [
            VirtualUser(self, i, u, self.seed * 100_003 + i * 10_007 + u) for i, u in self.slots
        ]
        for user in self._users:
            user.start()
        self._all_ready.wait()
        if self._users:
            self.rss_per_user = max(0, rss_bytes() - before) / len(self._users)

    def drive(
        self,
        window: Window,
        tick: Callable[[], None] | None = None,
        on_mark: Callable[[str], None] | None = None,
    ) -> tuple[list[Tally], float | None]:
        """Release the users at window.start; return their tallies and the CPU seconds the
        load threads (the users, their loop, the open loop's arrivals) used over the
        measured window: not the rest of this process (a run's sampler, live figures).
        `on_mark("measure_start")` and `on_mark("end")` are called at those moments (engine
        counters are read there)."""
        self.window = window
        if self.rate:
            self.arrivals = start_arrivals(
                self.rate, self.slots, self.total_users, window,
                stop=self.stop, seed=self.seed, clock=self.clock, cpu=self.cpu,
            )  # fmt: skip
        with longer_switch(any(not u.multiplexed for u in self._users)):
            return self._drive(window, tick, on_mark)

    def _drive(
        self,
        window: Window,
        tick: Callable[[], None] | None,
        on_mark: Callable[[str], None] | None,
    ) -> tuple[list[Tally], float | None]:
        self.go.set()
        together = [u for u in self._users if u.multiplexed]
        if together:
            self._loop = threading.Thread(
                target=counted(self.cpu, run_multiplexed),
                args=(self, together),
                name="dbstor-users",
                daemon=True,
            )
            self._loop.start()
        cpu_start = cpu_end = None
        try:
            cpu_start = self._wait_until(window.measure_start, tick)
            if on_mark and cpu_start is not None:
                on_mark("measure_start")
            cpu_end = self._wait_until(window.end, tick)
            if on_mark and cpu_end is not None:
                on_mark("end")
            for thread in [*self._users, *([self._loop] if self._loop else [])]:
                while thread.is_alive():
                    thread.join(timeout=0.5)
                    if tick:
                        tick()
        except BaseException:
            self.stop.set()
            for u in self._users:
                u.join(timeout=30)
            if self._loop is not None:
                self._loop.join(timeout=30)
            raise
        finally:
            self.close_multiplexed()
        cpu = None if cpu_start is None or cpu_end is None else cpu_end - cpu_start
        return self.tallies(), cpu

    def tallies(self) -> list[Tally]:
        """The users' tallies, the one the multiplexed users share once."""
        return list({id(u.tally): u.tally for u in self._users}.values())

    def close_multiplexed(self) -> None:
        """Close the sessions of the users the loop thread drove (they have no thread)."""
        for user in self._users:
            if user.multiplexed:
                with contextlib.suppress(Exception):
                    user.close()

    def _wait_until(self, moment: float, tick: Callable[[], None] | None) -> float | None:
        """Wait (ticking) until `moment`; the load threads' CPU then, None if stopped."""
        while (left := moment - self.clock()) > 0:
            if self.stop.wait(min(0.5, left)):
                return None
            if tick:
                tick()
            self.publish_running()
        return self.cpu.seconds()

    def publish_running(self) -> None:
        """Hand the users' running figures to on_running, once a second in the window."""
        now = self.clock()
        if self.on_running is None or now < self.window.measure_start or now < self._published:
            return
        self._published = now + 1.0
        self.on_running(running_figures(self.tallies(), now - self.window.measure_start))

    def open_loop_counts(self) -> tuple[int, LatencyHistogram]:
        """Arrivals due in the measured window, and the ages of those never started."""
        return open_loop_counts(list(self.arrivals.values()), self.window.end)

    def run(
        self,
        warmup_s: float,
        duration_s: float,
        tick: Callable[[], None] | None = None,
        on_mark: Callable[[str], None] | None = None,
    ) -> DriveResult:
        """Every user in this process: prepare, drive, merge."""
        try:
            self.prepare()
            now = self.clock()
            window = Window(now, now + warmup_s, now + warmup_s + duration_s)
            tallies, cpu = self.drive(window, tick, on_mark)
        except BaseException:
            self.stop.set()
            self.go.set()
            self.close_multiplexed()
            raise
        return self.result(tallies, cpu)

    def result(self, tallies: list[Tally], cpu: float | None) -> DriveResult:
        window = self.window
        measured = max(0.0, min(self.clock(), window.end) - window.measure_start)
        result = merge(tallies, self.names, measured, open_loop=bool(self.rate))
        result.fatal = self.fatal
        result.client_cpu_s = cpu
        result.client_rss_per_user_bytes = self.rss_per_user
        if self.rate:
            result.arrivals, result.unfinished = self.open_loop_counts()
            result.backlog = result.unfinished.count
        return result
