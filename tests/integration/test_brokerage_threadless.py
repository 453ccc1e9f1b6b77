"""Brokerage users on managed PostgreSQL without a thread each: 220 users on the driver's one
loop thread (their transactions in greenlets, session.submit/collect), the counts the
driver keeps equal to what the sessions committed, and the data's invariants after."""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

import brokerage_checks as checks
import pytest
from needs import usable

from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import EngineSettings
from dbstor.workloads.brokerage import MIX
from dbstor.workloads.brokerage.sql import statement

pytestmark = pytest.mark.integration
USERS = 220


def test_220_users_on_one_loop_thread_count_what_they_committed():
    cls = usable("postgres")
    base = Path(tempfile.mkdtemp(prefix="dbstor-brokerage-"))
    base.chmod(0o711)  # the server's account must reach its directories
    (base / "d").mkdir()
    engine = cls(EngineSettings(paths={"data": [base / "d"]}, buffer_bytes=16 << 20, users=USERS))
    try:
        engine.start()
        workload = checks.Recorded(100, seed=2)
        workload.create(engine, lambda m: None)
        conn = engine.connect()
        try:
            before = checks.totals(conn, "postgres")
            threads: dict[str, int] = {}
            marked = lambda moment: threads.setdefault(moment, threading.active_count())  # noqa: E731
            driver = VirtualUsers([Instance(engine, workload)], USERS, seed=5)
            result = driver.run(0.0, 4.0, on_mark=marked)
            assert result.fatal is None and result.errors == 0, result.messages
            sessions = workload.sessions
            assert len(sessions) == USERS
            assert all(s.wire is not None for s in sessions), "a user kept its thread"
            # the users' threads ended once connected: the loop thread runs them all
            assert threads["end"] <= threading.active_count() + 2 < USERS // 10, threads
            done = checks.committed_as_counted(result, sessions)
            for txn in MIX:
                if txn != "Trade-Order":
                    assert done[txn] > 0, (txn, done)
            checks.check_invariants(conn, "postgres", before, checks.Drive(sessions=sessions))
            # one user long enough to use statements past psycopg's threshold: those are
            # prepared on its connection, and the counts still match what it committed
            one = VirtualUsers([Instance(engine, workload)], 1, seed=9).run(0.0, 1.5)
            single = workload.sessions[-1]
            assert one.fatal is None and one.errors == 0, one.messages
            assert statement("postgres", "sd_security") in single.wire.prepared
            assert single.wire.uses, "rare statements still run unprepared"
            assert one.commits == sum(single.outcomes.values()) > 50
        finally:
            conn.close()
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
