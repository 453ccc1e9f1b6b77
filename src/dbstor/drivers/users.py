"""Virtual users: closed-loop clients that run a workload's transaction mix.

Each user is a thread with its own connection and session. Users pick transaction types
by the workload's mix, retry what the engine calls retryable (serialisation failures,
deadlocks, busy), count other errors, and stop everything when the engine calls an error
fatal (the server is gone). Latencies after the warm-up go into per-type histograms with
2%-wide bins, merged exactly across users like fio's.
"""

from __future__ import annotations

import contextlib
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dbstor.analysis.histogram import LatencyHistogram, merge_all
from dbstor.engines.base import Engine, ErrorKind, mask_dsn
from dbstor.workloads.base import Workload

BIN_GROWTH = 1.02  # each latency bin is 2% wider than the one below
MAX_ATTEMPTS = 10
MAX_ERROR_MESSAGES = 5


def bin_ns(ns: float) -> int:
    """The representative value of the 2%-wide bin holding a latency in ns."""
    if ns < 1000:
        return max(1, int(ns))
    return int(BIN_GROWTH ** math.floor(math.log(ns, BIN_GROWTH)))


@dataclass
class _Tally:
    """What one user saw; merged after the point, so users never share a lock."""

    bins: dict[str, Counter[int]] = field(default_factory=dict)
    total_ns: Counter[str] = field(default_factory=Counter)
    max_ns: dict[str, float] = field(default_factory=dict)
    per_second: Counter[int] = field(default_factory=Counter)
    errors: int = 0
    retries: int = 0
    messages: list[str] = field(default_factory=list)

    def record(self, txn: str, ns: float, second: int) -> None:
        self.bins.setdefault(txn, Counter())[bin_ns(ns)] += 1
        self.total_ns[txn] += ns
        self.max_ns[txn] = max(ns, self.max_ns.get(txn, 0.0))
        self.per_second[second] += 1

    def note(self, exc: BaseException) -> None:
        text = mask_dsn(f"{type(exc).__name__}: {exc}".strip().splitlines()[0])[:200]
        if text not in self.messages and len(self.messages) < MAX_ERROR_MESSAGES:
            self.messages.append(text)


@dataclass
class DriveResult:
    per_type: dict[str, LatencyHistogram]
    overall: LatencyHistogram
    commits: int
    measured_s: float
    per_second: list[float]
    errors: int
    retries: int
    messages: list[str]
    fatal: str | None

    @property
    def tps(self) -> float:
        return self.commits / self.measured_s if self.measured_s > 0 else 0.0


@dataclass(frozen=True)
class Instance:
    engine: Engine
    workload: Workload


class _User(threading.Thread):
    def __init__(self, driver: VirtualUsers, instance: Instance, user: int, seed: int):
        super().__init__(name=f"dbstor-user-{user}", daemon=True)
        self.driver, self.instance, self.user = driver, instance, user
        self.rng = random.Random(seed)
        self.tally = _Tally()

    def run(self) -> None:
        d = self.driver
        try:
            connection = self.instance.engine.connect()
            session = self.instance.workload.session(self.instance.engine, connection, self.user)
        except Exception as exc:  # cannot even connect: the point cannot run
            d.fail(exc)
            return
        try:
            d.ready()
            if not d.go.wait(timeout=600) or d.stop.is_set():
                return
            names, weights = list(d.mix), list(d.mix.values())
            while not d.stop.is_set() and time.monotonic() < d.end:
                txn = self.rng.choices(names, weights)[0]
                started = time.monotonic()
                if not self._attempt(session, txn):
                    break
                done = time.monotonic()
                if started >= d.measure_start:
                    self.tally.record(txn, (done - started) * 1e9, int(done - d.measure_start))
                if d.think_s:
                    d.stop.wait(self.rng.expovariate(1.0 / d.think_s))
        finally:
            session.close()
            with contextlib.suppress(Exception):  # a broken connection may not close cleanly
                connection.close()

    def _attempt(self, session: object, txn: str) -> bool:
        """Run one transaction with retries; False when the point must stop."""
        engine = self.instance.engine
        for attempt in range(MAX_ATTEMPTS):
            try:
                session.run(txn)
                return True
            except Exception as exc:
                kind = engine.classify(exc)
                if kind == ErrorKind.FATAL:
                    self.driver.fail(exc)
                    return False
                if kind == ErrorKind.RETRY and attempt + 1 < MAX_ATTEMPTS:
                    self.tally.retries += 1
                    time.sleep(self.rng.uniform(0.001, 0.005 * (attempt + 1)))
                    continue
                self.tally.errors += 1
                self.tally.note(exc)
                return True
        return True


class VirtualUsers:
    """Drives `users_per_instance` users on each instance for warm-up + duration seconds."""

    def __init__(
        self,
        instances: Sequence[Instance],
        users_per_instance: int,
        think_time_ms: float = 0.0,
        seed: int = 1,
    ):
        self.instances = list(instances)
        self.users_per_instance = users_per_instance
        self.think_s = think_time_ms / 1000.0
        self.seed = seed
        self.mix = dict(self.instances[0].workload.mix)
        self.stop = threading.Event()
        self.go = threading.Event()
        self.end = 0.0
        self.measure_start = 0.0
        self._lock = threading.Lock()
        self._ready = 0
        self._all_ready = threading.Event()
        self.fatal: str | None = None

    def ready(self) -> None:
        with self._lock:
            self._ready += 1
            if self._ready == len(self.instances) * self.users_per_instance:
                self._all_ready.set()

    def fail(self, exc: BaseException) -> None:
        with self._lock:
            if self.fatal is None:
                self.fatal = mask_dsn(f"{type(exc).__name__}: {exc}".strip().splitlines()[0])[:300]
        self.stop.set()
        self._all_ready.set()

    def run(
        self, warmup_s: float, duration_s: float, tick: Callable[[], None] | None = None
    ) -> DriveResult:
        users = [
            _User(self, instance, u, self.seed * 100_003 + i * 10_007 + u)
            for i, instance in enumerate(self.instances)
            for u in range(self.users_per_instance)
        ]
        for user in users:
            user.start()
        try:
            self._all_ready.wait()
            now = time.monotonic()
            self.measure_start = now + warmup_s
            self.end = self.measure_start + duration_s
            self.go.set()
            for user in users:
                while user.is_alive():
                    user.join(timeout=0.5)
                    if tick:
                        tick()
        except BaseException:
            self.stop.set()
            self.go.set()
            for u in users:
                u.join(timeout=30)
            raise
        measured = max(0.0, min(time.monotonic(), self.end) - self.measure_start)
        return self._merge([u.tally for u in users], measured)

    def _merge(self, tallies: list[_Tally], measured_s: float) -> DriveResult:
        per_type: dict[str, LatencyHistogram] = {}
        for txn in self.mix:
            per_type[txn] = merge_all(
                LatencyHistogram(
                    bins=t.bins.get(txn, Counter()),
                    total_ns=t.total_ns[txn],
                    max_ns=t.max_ns.get(txn, 0.0),
                )
                for t in tallies
            )
        overall = merge_all(per_type.values())
        seconds = math.ceil(measured_s)
        per_second = [float(sum(t.per_second[s] for t in tallies)) for s in range(seconds)]
        messages: list[str] = []
        for t in tallies:
            messages += [m for m in t.messages if m not in messages]
        return DriveResult(
            per_type=per_type,
            overall=overall,
            commits=overall.count,
            measured_s=measured_s,
            per_second=per_second,
            errors=sum(t.errors for t in tallies),
            retries=sum(t.retries for t in tallies),
            messages=messages[:MAX_ERROR_MESSAGES],
            fatal=self.fatal,
        )
