"""One virtual user: its connection and session, its closed or open loop, its retries, and
(a crash event) its reconnection; VirtualUsers (users.py) starts and drives them."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from dbstor.drivers.pacing import Arrivals
from dbstor.drivers.tally import Tally
from dbstor.engines.base import Engine, ErrorKind
from dbstor.workloads.base import Workload

MAX_ATTEMPTS = 10
READY_TIMEOUT_S = 600


@dataclass(frozen=True)
class Instance:
    engine: Engine
    workload: Workload


class VirtualUser(threading.Thread):
    """One user on a thread of its own (or driven by the driver's loop thread); `driver`
    is the VirtualUsers (users.py) that starts it, not named here (users.py imports this)."""

    def __init__(self, driver: Any, instance: int, user: int, seed: int):
        super().__init__(name=f"dbstor-user-{instance}-{user}", daemon=True)
        self.driver, self.instance, self.user = driver, driver.instances[instance], user
        self.engine = self.instance.engine
        self.index = instance
        self.rng = random.Random(seed)
        self.tally = Tally(second_bins=[] if driver.second_bins else None)
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
        self.multiplexed = (
            session.can_submit and not d.rate and not d.think_s and not d.survive_restarts
        )
        if self.multiplexed:  # the driver's loop thread runs it and closes it: no thread
            self.tally = d.shared
            d.ready()
            return
        try:
            d.ready()
            if not d.go.wait(timeout=READY_TIMEOUT_S) or d.stop.is_set():
                return
            if d.rate:
                self._open_loop(d.arrivals[self.index])
            else:
                self._closed_loop()
        finally:
            self.close()

    def close(self) -> None:
        """Close the user's session and connection (once)."""
        session, self.session = self.session, None
        if session is not None:
            session.close()
            with contextlib.suppress(Exception):  # a broken connection may not close cleanly
                self.connection.close()

    def _closed_loop(self) -> None:
        d, window = self.driver, self.driver.window
        while not d.stop.is_set() and d.clock() < window.end and self.session is not None:
            txn = self.pick()
            started = d.clock()
            finished = self._attempt(self.session, txn)
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

    def _open_loop(self, arrivals: Arrivals) -> None:
        d, window = self.driver, self.driver.window
        while not d.stop.is_set() and self.session is not None:
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
            finished = self._attempt(self.session, txn)
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
                if not self.rolled_back:
                    self.tally.acknowledged[txn] += 1
                return True
            except Exception as exc:
                kind = engine.classify(exc)
                if kind == ErrorKind.FATAL and self.driver.survive_restarts:
                    self.tally.errors += 1
                    self.tally.note(exc)
                    return self._reconnect()
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

    def _reconnect(self) -> None:
        """After a lost connection: a new one and a new session, tried every 20 ms until
        the server answers again or the point ends (then the loop ends on no session)."""
        d = self.driver
        with contextlib.suppress(Exception):
            self.close()
        while not d.stop.is_set() and d.clock() < d.window.end:
            try:
                connection = self.engine.connect()
                self.session = self.instance.workload.session(self.engine, connection, self.user)
                self.connection = connection
                self.tally.reconnects += 1
                return None
            except Exception:  # the server is not back yet
                d.stop.wait(0.02)
        return None
