"""The brokerage workload on managed PostgreSQL and MariaDB servers: build at scale 100 over
two data paths, every transaction from three threads, the data's invariants."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import brokerage_checks as checks
import pytest
from needs import engine_settings, engine_targets, speaks, usable

from dbstor.engines.base import Engine
from dbstor.workloads.brokerage import MIX, BrokerageWorkload
from dbstor.workloads.brokerage.schema import TABLES

pytestmark = pytest.mark.integration
SCALE = 100
BUFFER = 16 << 20


@pytest.fixture(scope="module", params=engine_targets(BrokerageWorkload.dialects, servers=True))
def built(request: pytest.FixtureRequest) -> Iterator[tuple[Engine, BrokerageWorkload, Any, Path]]:
    cls = usable(request.param.engine, request.param.dsn)
    base = Path(tempfile.mkdtemp(prefix="dbstor-brokerage-"))
    base.chmod(0o711)  # the server's account must reach its directories
    data = [base / "d1", base / "d2"]
    for d in data:
        d.mkdir()
    engine = cls(engine_settings(request.param, {"data": data}, buffer_bytes=BUFFER))
    try:
        engine.start()
        workload = BrokerageWorkload(SCALE, seed=2)
        report = workload.create(engine, lambda m: None)
        yield engine, workload, report, base
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_build(built):
    engine, workload, report, base = built
    expected = workload.volumes.expected()
    for table in TABLES:
        assert report.tables[table.name] == pytest.approx(expected[table.name], rel=0.1, abs=60)
    conn = engine.connect()
    try:
        for table in TABLES:
            rows = checks.query(conn, engine.dialect, f"SELECT COUNT(*) FROM {table.name}")
            assert rows[0][0] == report.tables[table.name], table.name
        if engine.managed and speaks(engine, "postgres"):  # placed on the second path
            spaces = dict(
                checks.query(
                    conn,
                    "postgres",
                    "SELECT tablename, tablespace FROM pg_tables WHERE tablename IN ('trade', 'trade_history')",
                )
            )
            assert spaces == {"trade": None, "trade_history": "dbstor_d1"}
    finally:
        conn.close()
    if engine.managed and speaks(engine, "mysql"):
        assert list((base / "d2").rglob("trade_history.ibd")), (
            "trade_history not on the second path"
        )


def test_every_transaction_from_three_threads(built):
    engine, workload, _, _ = built
    conn = engine.connect()
    try:
        before = checks.totals(conn, engine.dialect)
        run = checks.drive(engine, workload, per_type=20, threads=3)
        assert not run.errors, run.errors[:5]
        done = sum((s.outcomes for s in run.sessions), start=type(run.sessions[0].outcomes)())
        for txn in MIX:
            assert done[txn] >= 3 * 20 - (6 if txn == "Trade-Order" else 0), (txn, done)
        checks.check_invariants(conn, engine.dialect, before, run)
    finally:
        conn.close()
