"""Virtual users against a real SQLite engine with a tiny workload defined here."""

import sqlite3
import time
from typing import ClassVar

import pytest

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
        if transaction == "write":
            if self.fail == "busy" and self.calls % 2:
                raise sqlite3.OperationalError("database is locked")
            if self.fail == "fatal":
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
        return _Session(connection, self.options.get("fail"))


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
    assert errors.messages == ["IntegrityError: UNIQUE constraint failed: t.k"]


def test_fatal_stops_every_user(tmp_path):
    started = time.monotonic()
    result = VirtualUsers([instance(tmp_path, "fatal")], 4).run(0, 30)
    assert time.monotonic() - started < 5
    assert result.fatal == "DatabaseError: disk I/O error"
