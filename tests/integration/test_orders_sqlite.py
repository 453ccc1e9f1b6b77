"""The orders workload on the real SQLite engine: build one warehouse over two data paths,
every transaction from three virtual users at once, TPC-C's consistency conditions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tpcc_types import sqlite_mismatches

from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.base import LoadReport
from dbstor.workloads.orders import MIX, OrdersWorkload
from dbstor.workloads.orders.consistency import broken
from dbstor.workloads.orders.schema import TABLES

pytestmark = pytest.mark.integration
COUNTS = (
    "SELECT (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM new_order),"
    " (SELECT SUM(c_delivery_cnt) FROM customer), (SELECT COUNT(*) FROM history)"
)


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SQLiteEngine, OrdersWorkload, LoadReport, list[str]]]:
    root = tmp_path_factory.mktemp("orders")
    dirs = [root / "d0", root / "d1"]
    for d in dirs:
        d.mkdir()
    engine = SQLiteEngine(EngineSettings(paths={"data": dirs}))
    engine.start()
    workload = OrdersWorkload(1, seed=4)
    lines: list[str] = []
    report = workload.create(engine, lines.append)
    yield engine, workload, report, lines
    engine.stop()


def test_build(built):
    engine, workload, report, lines = built
    expected = workload.expected_rows()
    assert set(report.tables) == {t.name for t in TABLES}
    for table, rows in report.tables.items():
        assert rows == pytest.approx(expected[table], rel=0.01), table
    assert report.rows == sum(report.tables.values()) > 590_000
    assert report.bytes and report.bytes > 50e6 and report.seconds > 0
    assert "rows/s" in lines[-1] and "MB/s" in lines[-1]
    conn = engine.connect()
    try:
        main = {r[0] for r in conn.execute("SELECT name FROM main.sqlite_master")}
        other = {r[0] for r in conn.execute("SELECT name FROM d1.sqlite_master")}
        assert {"order_line", "customer", "customer_name"} <= main  # placed round-robin
        assert {"stock", "orders", "orders_customer"} <= other
        counted = {
            t.name: conn.execute(f"SELECT COUNT(*) FROM {t.name}").fetchone()[0] for t in TABLES
        }
        assert counted == report.tables
        assert conn.execute("SELECT COUNT(*) FROM sqlite_stat1").fetchone()[0] > 0  # analyzed
        assert broken(conn, deep=True) == {}
        assert sqlite_mismatches(conn) == []  # DECIMAL and DATETIME declared, NUMERIC affinity
    finally:
        conn.close()


def test_every_transaction_from_three_users_keeps_the_data_consistent(built):
    engine, workload, _, _ = built
    conn = engine.connect()
    try:
        before = conn.execute(COUNTS).fetchone()
        conn.commit()
        users = VirtualUsers([Instance(engine, workload)], 3, seed=5)
        result = users.run(warmup_s=0.0, duration_s=3.0)
        assert result.fatal is None and result.errors == 0, result.messages
        done = {txn: h.count for txn, h in result.per_type.items()}
        assert all(done[txn] >= 3 for txn in MIX), done
        rolled_back = result.rollbacks.get("New-Order", 0)
        new_orders = done["New-Order"] - rolled_back
        orders, pending, delivered, paid = conn.execute(COUNTS).fetchone()
        conn.commit()
        assert orders - before[0] == new_orders  # every committed New-Order, once
        assert pending - before[1] == new_orders - (delivered - before[2])
        assert paid - before[3] == done["Payment"]
        assert broken(conn, deep=True) == {}
        assert sqlite_mismatches(conn) == []  # the run wrote REALs and ISO text, as the load
        metrics = workload.point_metrics(done, result.rollbacks, result.measured_s)
        assert metrics["nopm"] == pytest.approx(new_orders * 60 / result.measured_s)
        assert metrics["tpm"] > metrics["nopm"] > 0
    finally:
        conn.close()
