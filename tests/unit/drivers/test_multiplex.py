"""Users whose sessions submit and collect apart are driven by one loop thread
(drivers/multiplex.py). The sessions here answer through a socket pair at once, so the
loop's bookkeeping is what is tested: counts, rollbacks, retries, errors, a fatal error,
and the end of the window."""

import socket
import sqlite3
import threading
import time
from typing import ClassVar

import pytest

from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.base import LoadReport, Session, Workload


class _Submitting(Session):
    can_submit = True

    def __init__(self, fail, log=None):
        self.fail = fail
        self.log = log if log is not None else []  # ("submit" | "collect", session), shared
        self.ours, self.theirs = socket.socketpair()
        self.pending: str | None = None
        self.calls = 0
        self.threads: set[str] = set()

    def run(self, transaction):
        raise AssertionError("a submitting session is never run() by the loop")

    def submit(self, transaction):
        assert self.pending is None, "two transactions in flight on one user"
        self.threads.add(threading.current_thread().name)
        self.pending, self.calls = transaction, self.calls + 1
        self.log.append(("submit", id(self)))
        self.theirs.send(b"x")  # the "server" answers at once
        return self.ours.fileno()

    def collect(self):
        self.ours.recv(1)
        self.log.append(("collect", id(self)))
        txn, self.pending = self.pending, None
        if txn == "write":
            if self.fail == "busy" and self.calls % 2:
                raise sqlite3.OperationalError("database is locked")
            if self.fail == "error":
                raise sqlite3.IntegrityError("UNIQUE constraint failed: t.k")
            if self.fail == "fatal":
                raise sqlite3.DatabaseError("disk I/O error")
            if self.fail == "rollback":
                return False
        return True

    def close(self):
        self.ours.close()
        self.theirs.close()


class Echo(Workload):
    name = "echo"
    title = "echo"
    description = "answers at once"
    source = "tests"
    mix: ClassVar[dict[str, float]] = {"read": 50.0, "write": 50.0}
    dialects = ("sqlite",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sessions: list[_Submitting] = []

    def create(self, engine, say):
        return LoadReport(rows=0, seconds=0.0)

    def session(self, engine, connection, user):
        self.sessions.append(_Submitting(self.options.get("fail"), self.options.get("log")))
        return self.sessions[-1]


@pytest.fixture
def engine(tmp_path):
    engine = SQLiteEngine(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    yield engine
    engine.stop()


def drive(engine, fail=None, users=3, think_time_ms=0.0):
    workload = Echo(1, options={"fail": fail})
    driver = VirtualUsers([Instance(engine, workload)], users, think_time_ms=think_time_ms)
    started = time.monotonic()
    result = driver.run(warmup_s=0.2, duration_s=0.8)
    return result, workload.sessions, time.monotonic() - started


def test_one_thread_drives_every_user_and_counts_what_finished(engine):
    result, sessions, took = drive(engine)
    assert result.fatal is None and result.errors == 0
    assert 0.9 < took < 5
    assert {name for s in sessions for name in s.threads} == {"dbstor-users"}
    assert all(s.pending is None for s in sessions)  # each finished what it sent
    assert result.commits == sum(h.count for h in result.per_type.values()) > 100
    assert set(result.per_type) == {"read", "write"}
    assert sum(s.calls for s in sessions) > result.commits  # the warm-up is not counted


def test_think_time_keeps_a_thread_per_user(engine):
    result, sessions, _ = drive(engine, think_time_ms=5.0)
    assert all(s.calls == 0 for s in sessions)  # never submitted: each user ran run()
    assert result.errors > 0  # which raises here, and is counted


def test_rollbacks_by_design_count_as_done(engine):
    result, _, _ = drive(engine, fail="rollback")
    assert result.errors == 0
    # rollbacks are counted from the start, as users.py counts them; finished ones after
    # the warm-up
    assert result.rollbacks["write"] == result.per_type["write"].count > 0


def test_retryable_errors_are_retried_and_others_counted(engine):
    busy, _, _ = drive(engine, fail="busy")
    assert busy.errors == 0 and busy.retries > 0 and busy.per_type["write"].count > 0
    failing, _, _ = drive(engine, fail="error")
    assert failing.errors > 0 and failing.per_type["write"].count == 0
    assert failing.messages and "UNIQUE" in failing.messages[0]


def test_a_fatal_error_stops_every_user(engine):
    result, _, took = drive(engine, fail="fatal")
    assert result.fatal is not None and "disk I/O error" in result.fatal
    assert took < 5


def test_multiplexed_users_record_in_one_tally_read_live_and_merged(engine):
    workload = Echo(1)
    driver = VirtualUsers([Instance(engine, workload)], 40)
    seen: list[dict] = []
    driver.on_running = seen.append
    result = driver.run(warmup_s=0.2, duration_s=1.6)
    assert result.fatal is None and result.errors == 0
    # forty users, one tally: the live figures each second merge one, not forty
    assert driver.tallies() == [driver.shared]
    assert result.commits == sum(sum(b.values()) for b in driver.shared.bins.values()) > 100
    assert seen and 0 < seen[-1]["ops"] <= result.commits


def test_every_reply_in_is_read_before_the_next_transactions_are_sent(engine):
    # the sessions answer at once, so every wake finds all three replies in: the loop
    # reads them all, then sends all three users' next transactions (a send between two
    # reads would let a woken server take the core from the reads still to do)
    log: list[tuple[str, int]] = []
    workload = Echo(1, options={"log": log})
    driver = VirtualUsers([Instance(engine, workload)], 3)
    result = driver.run(warmup_s=0.1, duration_s=0.4)
    assert result.fatal is None and result.commits > 30
    kinds = "".join("s" if kind == "submit" else "c" for kind, _ in log)
    assert kinds.startswith("sss") and "csc" not in kinds and "scs" not in kinds[3:]
    # each user still has one transaction in flight at a time, and gets its reply read
    for session in workload.sessions:
        own = [kind for kind, who in log if who == id(session)]
        assert own[0::2] == ["submit"] * len(own[0::2])
        assert own[1::2] == ["collect"] * len(own[1::2])
