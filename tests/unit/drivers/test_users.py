"""Virtual users against a real SQLite engine with a tiny workload defined here."""

import sqlite3
import threading
import time
from typing import ClassVar

import pytest

from dbstor.drivers.processes import Hooks, UserLoad, run_in_processes
from dbstor.drivers.users import BIN_GROWTH, Instance, VirtualUsers, bin_ns
from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.base import LoadReport, Session, Workload


class _Session(Session):
    def __init__(self, conn, fail):
        self.conn, self.fail = conn, fail
        self.calls = 0

    def run(self, transaction):
        self.calls += 1
        if self.fail == "slow":
            time.sleep(0.02)
        if self.fail == "spin":  # 5 ms of this thread's own CPU a transaction
            until = time.thread_time() + 0.005
            while time.thread_time() < until:
                pass
        if self.fail == "rollback" and transaction == "write":
            self.conn.rollback()
            return False
        if transaction == "write":
            if self.fail == "busy" and self.calls % 2:
                raise sqlite3.OperationalError("database is locked")
            if self.fail == "fatal":
                raise sqlite3.DatabaseError("disk I/O error")
            if self.fail == "lost-once":  # this session's first write
                self.fail = None
                raise sqlite3.DatabaseError("disk I/O error")
            if self.fail == "error":
                raise sqlite3.IntegrityError("UNIQUE constraint failed: t.k")
            self.conn.execute("UPDATE c SET n = n + 1")
        else:
            self.conn.execute("SELECT n FROM c").fetchone()
        self.conn.commit()


class Tiny(Workload):
    name = "tiny"
    title = "tiny"
    description = "one counter"
    source = "tests"
    mix: ClassVar[dict[str, float]] = {"read": 50.0, "write": 50.0}
    dialects = ("sqlite",)

    def create(self, engine, say):
        conn = engine.connect()
        conn.execute("CREATE TABLE c (n INTEGER)")
        conn.execute("INSERT INTO c VALUES (0)")
        conn.commit()
        conn.close()
        return LoadReport(rows=1, seconds=0.0)

    def session(self, engine, connection, user):
        fail = self.options.get("fail")
        if fail == "lost-once":  # each user loses its first connection only
            lost = self.options.setdefault("lost", set())
            fail = None if user in lost else fail
            lost.add(user)
        return _Session(connection, fail)


def instance(directory, fail=None):
    directory.mkdir(exist_ok=True)
    engine = SQLiteEngine(EngineSettings(paths={"data": [directory]}))
    engine.start()
    workload = Tiny(1, options={"fail": fail})
    workload.create(engine, print)
    return Instance(engine, workload)


def test_bins_are_two_percent_wide():
    assert bin_ns(500) == 500
    v = bin_ns(1_234_567)
    assert v <= 1_234_567 < v * BIN_GROWTH + 1


def test_closed_loop_counts_commits_after_warmup(tmp_path):
    inst = instance(tmp_path)
    started = time.monotonic()
    result = VirtualUsers([inst], 3).run(warmup_s=0.5, duration_s=1.5)
    assert 1.9 < time.monotonic() - started < 5
    assert result.fatal is None and result.errors == 0
    assert result.commits == sum(h.count for h in result.per_type.values()) > 50
    assert set(result.per_type) == {"read", "write"}
    writes = inst.engine.connect().execute("SELECT n FROM c").fetchone()[0]
    assert writes >= result.per_type["write"].count  # warm-up writes are not counted
    assert result.tps == pytest.approx(result.commits / result.measured_s)
    assert 1 <= len(result.per_second) <= 2
    inst.engine.stop()


def test_busy_is_retried_and_other_errors_counted(tmp_path):
    busy = VirtualUsers([instance(tmp_path / "busy", "busy")], 2).run(0, 1)
    assert busy.retries > 0 and busy.errors == 0 and busy.fatal is None
    errors = VirtualUsers([instance(tmp_path / "error", "error")], 2).run(0, 1)
    assert errors.errors > 0 and errors.fatal is None
    assert errors.per_type["write"].count == 0  # a failed transaction is not a finished one
    assert errors.messages == ["IntegrityError: UNIQUE constraint failed: t.k"]


def test_fatal_stops_every_user(tmp_path):
    started = time.monotonic()
    result = VirtualUsers([instance(tmp_path, "fatal")], 4).run(0, 30)
    assert time.monotonic() - started < 5
    assert result.fatal == "DatabaseError: disk I/O error"


def test_rollbacks_by_design_count_as_done(tmp_path):
    result = VirtualUsers([instance(tmp_path, "rollback")], 2).run(0, 0.5)
    assert result.errors == 0 and result.fatal is None
    assert result.rollbacks["write"] == result.per_type["write"].count > 0


def test_open_loop_holds_the_rate_and_measures_from_arrival(tmp_path):
    inst = instance(tmp_path)
    result = VirtualUsers([inst], 4, rate=300.0).run(warmup_s=0.3, duration_s=2.0)
    assert result.fatal is None
    # Poisson arrivals: 600 expected, five standard deviations either way
    assert 600 - 5 * 600**0.5 < result.arrivals < 600 + 5 * 600**0.5
    # every arrival is accounted for: served, or still waiting when the point ended (how
    # many wait is the machine's speed: a benchmark's business, not this test's)
    assert result.backlog is not None and result.unfinished.count == result.backlog
    assert result.commits + result.errors + result.backlog >= result.arrivals - 4  # 4 in flight
    assert result.overall.percentile_ns(1) >= 1000, "never started ahead of its arrival"
    assert result.service is not None and result.service.count == result.commits
    assert result.service.stats().mean <= result.overall.stats().mean


def test_open_loop_shows_queueing_when_the_database_falls_behind(tmp_path):
    # one user, 20 ms per transaction (50/s at best), asked for 150/s: arrivals queue up
    inst = instance(tmp_path, "slow")
    result = VirtualUsers([inst], 1, rate=150.0).run(warmup_s=0, duration_s=1.5)
    assert result.tps < 60
    assert result.backlog > 50
    assert result.overall.stats().mean > 5 * result.service.stats().mean


def test_users_in_two_processes_add_up(tmp_path):
    inst = instance(tmp_path)
    result = run_in_processes(UserLoad.of([inst], 4, 0.3, 1.0), processes=2)
    assert result.processes == 2 and result.fatal is None
    assert result.commits > 50
    assert result.client_cpu_s is not None and result.client_cpu_s > 0
    writes = inst.engine.connect().execute("SELECT n FROM c").fetchone()[0]
    assert writes >= result.per_type["write"].count


def test_a_fatal_error_in_one_process_stops_all(tmp_path):
    started = time.monotonic()
    result = run_in_processes(UserLoad.of([instance(tmp_path, "fatal")], 4, 0, 30), 2)
    assert time.monotonic() - started < 10
    assert result.fatal == "DatabaseError: disk I/O error"


@pytest.mark.parametrize("processes", [1, 2])
def test_rollbacks_are_counted_over_the_measured_window_only(tmp_path, processes):
    """NOPM subtracts New-Order rollbacks: they must come from the same window as the
    New-Orders, not from the warm-up as well (warm-up four times the measured window)."""
    inst = instance(tmp_path, "rollback")
    result = run_in_processes(UserLoad.of([inst], 2, 0.8, 0.2), processes)
    assert result.rollbacks["write"] == result.per_type["write"].count > 0


@pytest.mark.parametrize("processes", [1, 2])
def test_window_marks_come_at_the_measured_windows_start_and_end(tmp_path, processes):
    marks: list[tuple[str, float]] = []
    started = time.monotonic()
    run_in_processes(
        UserLoad.of([instance(tmp_path)], 2, 0.6, 0.4),
        processes,
        Hooks(on_mark=lambda name: marks.append((name, time.monotonic() - started))),
    )
    assert [name for name, _ in marks] == ["measure_start", "end"]
    (_, start), (_, end) = marks
    # never before the moments they mark (a mark may arrive late on a busy machine)
    assert start >= 0.6 and end >= start and end >= 0.6 + 0.4 - 0.01


@pytest.mark.parametrize("processes", [1, 2])
def test_running_figures_come_once_a_second_and_only_grow(tmp_path, processes):
    seen = []
    result = run_in_processes(
        UserLoad.of([instance(tmp_path)], 4, 0.2, 2.6), processes, Hooks(on_running=seen.append)
    )
    assert result.fatal is None and len(seen) >= 2
    ops = [figures["ops"] for figures in seen]
    assert ops == sorted(ops) and 0 < ops[-1] <= result.commits
    for figures in seen:  # the running histogram holds every transaction counted
        assert sum(figures["histogram"]["bins"].values()) == figures["ops"]
        assert 0 <= figures["elapsed_s"] <= 2.6 + 0.5


class TickClock:
    """A clock that moves 1 ms each time it is read, whatever the wall clock does."""

    def __init__(self) -> None:
        self.now, self.lock = 100.0, threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            self.now += 0.001
            return self.now


def test_users_time_everything_on_the_clock_they_are_given(tmp_path):
    """Latency, the window and the measured time all come from the injected clock: a
    transaction between two reads of a clock that moves 1 ms a read takes 1 ms (or a
    whole number of them when the driver's own thread read it in between)."""
    inst = instance(tmp_path)
    result = VirtualUsers([inst], 1, clock=TickClock()).run(warmup_s=0, duration_s=0.3)
    assert result.fatal is None and 0 < result.commits <= 100  # 3 reads a transaction
    stats = result.overall.stats()
    assert stats.p50 == pytest.approx(1.0, rel=0.03)
    assert result.measured_s == pytest.approx(0.3, abs=0.01)
    inst.engine.stop()


@pytest.mark.parametrize("mode", ["slow", "spin"])
def test_client_cpu_is_the_users_threads_not_another_thread_of_this_process(tmp_path, mode):
    """A run's sampler shares dbstor's process when the users run in it: its CPU is not
    the client's. A thread beside the users spins for the whole point; the users either
    sleep through their transactions (their CPU next to nothing) or spend 5 ms of their own
    CPU on each (all of it counted)."""
    stop, spun = threading.Event(), []

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))
        spun.append(time.thread_time())

    busy = threading.Thread(target=spin, daemon=True)
    busy.start()
    try:
        result = VirtualUsers([instance(tmp_path, mode)], 1).run(warmup_s=0.2, duration_s=1.0)
    finally:
        stop.set()
        busy.join()
    assert result.fatal is None and result.commits > 0
    if mode == "slow":
        assert result.client_cpu_s < 0.25 * spun[0]
    else:  # the transactions' own CPU, less at most the one in flight at the window's end
        assert result.client_cpu_s >= (result.commits - 1) * 0.005


def test_users_that_lose_their_connection_come_back_when_told_to(tmp_path):
    """In a point with a crash event (survive_restarts) a fatal error is counted, the user
    connects again with a new session and goes on; every commit it was told of is counted
    (warm-up included), and each measured second keeps its latency bins."""
    lost = instance(tmp_path, "lost-once")
    driver = VirtualUsers([lost], 2, survive_restarts=True, second_bins=True)
    result = driver.run(0.2, 1.0)
    assert result.fatal is None and result.errors == result.reconnects == 2
    assert result.commits > 0 and sum(result.acknowledged.values()) >= result.commits
    assert result.second_bins is not None
    assert sum(sum(b.values()) for b in result.second_bins) == result.commits
    p99 = result.per_second_p99_ms()
    assert p99 and all(v is None or v > 0 for v in p99)
    told = VirtualUsers([instance(tmp_path / "b", "lost-once")], 2).run(0, 1.0)
    assert told.fatal == "DatabaseError: disk I/O error", "without it the point stops"
