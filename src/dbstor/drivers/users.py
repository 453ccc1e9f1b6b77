"""Virtual users: clients that run a workload's transaction mix on their own connections.

Each user connects on a thread of its own (all at once) and opens its session. Closed loop
(the default): a user runs one transaction after another, with an optional think time.
Users whose sessions can send a transaction and read its reply apart (one stored-procedure
CALL) keep no thread: their thread ends once connected and one loop thread of the driver
runs them all (multiplex.py), each with one transaction in flight. Open loop (a rate):
transactions arrive at the asked rate (Poisson) and free users pick them up; latency runs
from each arrival (pacing.py). Users pick transaction types by the workload's mix, retry
what the engine calls retryable, count other errors, and stop everything when the engine
calls an error fatal. Client processes (processes.py) each run a share with this class.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from dbstor.drivers.window import Window
from dbstor.engines.base import Engine, ErrorKind
from dbstor.workloads.base import Workload

__all__ = ["BIN_GROWTH", "DriveResult", "Instance", "VirtualUsers", "bin_ns"]

MAX_ATTEMPTS = 10
READY_TIMEOUT_S = 600


@dataclass(frozen=True)
class Instance:
    engine: Engine
    workload: Workload


class _User(threading.Thread):
    def __init__(self, driver: VirtualUsers, instance: int, user: int, seed: int):
        super().__init__(name=f"dbstor-user-{instance}-{user}", daemon=True)
        self.driver, self.instance, self.user = driver, driver.instances[instance], user
        self.engine = self.instance.engine
        self.index = instance
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.max_attempts = MAX_ATTEMPTS
        self.session: Any = None
        self.connection: Any = None
        self.multiplexed = False  # driven by the driver's one loop thread (multiplex.py)
        self.finished = threading.Event()  # set by that loop when it is done with this user
        self.rolled_back = False  # the last finished transaction rolled back by design

    def run(self) -> None:
        with self.driver.cpu.counting():
            self._run()

    def _run(self) -> None:
        d = self.driver
        try:
            connection = self.instance.engine.connect()
            session = self.instance.workload.session(self.instance.engine, connection, self.user)
        except Exception as exc:  # cannot even connect: the point cannot run
            d.fail(exc, self.engine)
            return
        self.session, self.connection = session, connection
        self.multiplexed = session.can_submit and not d.rate and not d.think_s
        if self.multiplexed:  # the driver's loop thread runs it and closes it: no thread
            self.tally = d.shared
            d.ready()
            return
        try:
            d.ready()
            if not d.go.wait(timeout=READY_TIMEOUT_S) or d.stop.is_set():
                return
            if d.rate:
                self._open_loop(session, d.arrivals[self.index])
            else:
                self._closed_loop(session)
        finally:
            self.close()

    def close(self) -> None:
        """Close the user's session and connection (once)."""
        session, self.session = self.session, None
        if session is not None:
            session.close()
            with contextlib.suppress(Exception):  # a broken connection may not close cleanly
                self.connection.close()

    def _closed_loop(self, session: Any) -> None:
        d, window = self.driver, self.driver.window
        while not d.stop.is_set() and d.clock() < window.end:
            txn = self.pick()
            started = d.clock()
            finished = self._attempt(session, txn)
            if finished is False:
                return
            done = d.clock()
            if finished and started >= window.measure_start:
                self.tally.record(
                    txn,
                    (done - started) * 1e9,
                    int(done - window.measure_start),
                    rolled_back=self.rolled_back,
                )
            if d.think_s:
                d.stop.wait(self.rng.expovariate(1.0 / d.think_s))

    def _open_loop(self, session: Any, arrivals: Arrivals) -> None:
        d, window = self.driver, self.driver.window
        while not d.stop.is_set():
            intended = arrivals.take(timeout=0.1)
            if intended is None:
                if d.clock() >= window.end or not arrivals.is_alive():
                    return
                continue
            if d.clock() >= window.end:
                arrivals.due.put(intended)  # not started: it is backlog
                return
            early = intended - d.clock()
            if early > 0:  # released a moment ahead of its time: keep to the schedule
                time.sleep(early)
            txn = self.pick()
            started = d.clock()
            finished = self._attempt(session, txn)
            if finished is False:
                return
            done = d.clock()
            if finished and intended >= window.measure_start:
                self.tally.record(
                    txn,
                    (done - intended) * 1e9,
                    int(done - window.measure_start),
                    service_ns=(done - started) * 1e9,
                    rolled_back=self.rolled_back,
                )

    def pick(self) -> str:
        d = self.driver
        # random.choices(names, cum_weights=...)[0] without its per-call set-up: the same
        # draw from the same stream
        return d.names[bisect_right(d.cum_weights, self.rng.random() * d.total_weight, 0, d.last)]

    def _attempt(self, session: Any, txn: str) -> bool | None:
        """Run one transaction with retries: True when it finished, None when it failed
        (counted as an error, its latency not recorded), False when the point must stop.
        `rolled_back` says whether the finished one rolled back by design (TPC-C's 1% of
        New-Orders); it is counted with the transaction, in the measured window only."""
        engine = self.instance.engine
        self.rolled_back = False
        for attempt in range(MAX_ATTEMPTS):
            try:
                self.rolled_back = session.run(txn) is False
                return True
            except Exception as exc:
                kind = engine.classify(exc)
                if kind == ErrorKind.FATAL:
                    self.driver.fail(exc, engine)
                    return False
                if kind == ErrorKind.RETRY and attempt + 1 < MAX_ATTEMPTS:
                    self.tally.retries += 1
                    time.sleep(self.rng.uniform(0.001, 0.005 * (attempt + 1)))
                    continue
                self.tally.errors += 1
                self.tally.note(exc)
                return None
        return None


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
    ):
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
        self._users: list[_User] = []
        self.shared = Tally()  # the multiplexed users' one tally: merged per thread, not user
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
            _User(self, i, u, self.seed * 100_003 + i * 10_007 + u) for i, u in self.slots
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
