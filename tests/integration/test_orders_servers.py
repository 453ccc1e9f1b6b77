"""The orders workload on managed PostgreSQL and MariaDB servers at two warehouses: build,
the stored procedures and the client-side statements have the same effects on the same
requests, every transaction from four virtual users at once (two on each path), TPC-C's
consistency conditions, and sessions in a forked child process."""

from __future__ import annotations

import hashlib
import multiprocessing
import random
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from needs import by_dialect, engine_settings, engine_targets, speaks, usable
from tpcc_types import server_mismatches

from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import Engine
from dbstor.workloads.base import LoadReport
from dbstor.workloads.orders import MIX, OrdersWorkload
from dbstor.workloads.orders.consistency import broken
from dbstor.workloads.orders.inputs import Customer, NewOrder, Payment
from dbstor.workloads.orders.schema import TABLES
from dbstor.workloads.orders.tpcc import LOAD_STAMP, LOAD_TIME, UNUSED_ITEM

pytestmark = pytest.mark.integration
WAREHOUSES = 2
SEED = 6
# InnoDB builds far faster when the data fits its pool; PostgreSQL COPYs through a small
# ring either way, and a big pool only makes its shutdown checkpoint longer
BUFFER = {"postgres": 64 << 20, "mysql": 256 << 20}  # by dialect: MariaDB and MySQL are InnoDB
# the rows a run can change, in a fixed order, and every table's row count
CHANGED = {
    "warehouse": "SELECT * FROM warehouse ORDER BY w_id",
    "district": "SELECT * FROM district ORDER BY d_w_id, d_id",
    "customer": "SELECT * FROM customer WHERE c_payment_cnt > 1 OR c_delivery_cnt > 0"
    " ORDER BY c_w_id, c_d_id, c_id",
    "history": f"SELECT * FROM history WHERE h_date > '{LOAD_STAMP}'"
    " ORDER BY h_w_id, h_d_id, h_c_w_id, h_c_d_id, h_c_id, h_date, h_amount, h_data",
    "orders": "SELECT * FROM orders WHERE o_carrier_id IS NULL OR o_id > 2100"
    " ORDER BY o_w_id, o_d_id, o_id",
    "new_order": "SELECT * FROM new_order ORDER BY no_w_id, no_d_id, no_o_id",
    "order_line": "SELECT * FROM order_line"
    f" WHERE ol_o_id > 3000 OR ol_delivery_d > '{LOAD_STAMP}'"
    " ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number",
    "stock": "SELECT * FROM stock WHERE s_order_cnt > 0 ORDER BY s_w_id, s_i_id",
    "counts": "SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {t.name})" for t in TABLES),
}
COUNTS = (
    "SELECT (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM new_order),"
    " (SELECT SUM(c_delivery_cnt) FROM customer), (SELECT COUNT(*) FROM history)"
)


@dataclass
class Pair:
    """Two servers built from the same seed: `a` runs stored procedures, `b` statements."""

    a: Engine
    b: Engine
    report: LoadReport
    procedures: OrdersWorkload
    statements: OrdersWorkload


@pytest.fixture(scope="module", params=engine_targets(OrdersWorkload.dialects, servers=True))
def pair(request: pytest.FixtureRequest) -> Iterator[Pair]:
    target = request.param
    cls = usable(target.engine, target.dsn)
    base = Path(tempfile.mkdtemp(prefix="dbstor-orders-"))
    base.chmod(0o711)  # the server's account must reach its directories
    engines = []
    try:
        for n in range(2):
            data = [base / f"i{n}d1", base / f"i{n}d2"]
            for d in data:
                d.mkdir()
            settings = engine_settings(target, {"data": data}, n, by_dialect(BUFFER, cls))
            engines.append(cls(settings))
            engines[-1].start()
        procedures = OrdersWorkload(WAREHOUSES, seed=SEED)
        statements = OrdersWorkload(WAREHOUSES, seed=SEED, options={"procedures": False})
        report = procedures.create(engines[0], lambda m: None)
        statements.create(engines[1], lambda m: None)
        yield Pair(engines[0], engines[1], report, procedures, statements)
    finally:
        for engine in engines:
            engine.stop()
        shutil.rmtree(base, ignore_errors=True)


def rows(conn: Any, sql: str) -> list[tuple]:
    cur = conn.cursor()
    cur.execute(sql)
    out = list(cur.fetchall())
    conn.commit()
    return out


def digests(engine: Engine, names: tuple[str, ...] = tuple(CHANGED)) -> dict[str, str]:
    conn = engine.connect()
    try:
        return {
            name: hashlib.sha256(repr(rows(conn, CHANGED[name])).encode()).hexdigest()
            for name in names
        }
    finally:
        conn.close()


def test_build(pair):
    expected = pair.procedures.expected_rows()
    assert set(pair.report.tables) == set(expected)
    for table, count in pair.report.tables.items():
        assert count == pytest.approx(expected[table], rel=0.01), table
    assert pair.report.tables["stock"] == 200_000 and pair.report.tables["customer"] == 60_000
    conn = pair.a.connect()
    try:
        counts = rows(conn, CHANGED["counts"])[0]
        assert dict(zip([t.name for t in TABLES], counts, strict=True)) == pair.report.tables
        assert broken(conn) == {}
        # TPC-C's types in the server's own catalog, and the values the driver hands back
        family = "postgres" if speaks(pair.a, "postgres") else pair.a.dialect  # kin too
        assert server_mismatches(conn, family) == []
        w_ytd, w_tax, since = rows(
            conn,
            "SELECT w_ytd, w_tax, c_since FROM warehouse JOIN customer ON c_w_id = w_id"
            " WHERE w_id = 1 AND c_d_id = 1 AND c_id = 1",
        )[0]
        assert w_ytd == Decimal("300000.00") and w_ytd.as_tuple().exponent == -2
        assert isinstance(w_tax, Decimal) and w_tax.as_tuple().exponent == -4
        assert since == LOAD_TIME
        if speaks(pair.a, "postgres"):
            indexes = {r[0] for r in rows(conn, "SELECT indexname FROM pg_indexes")}
            # New-Order a procedure (its ROLLBACK), the others functions
            procs = {r[0] for r in rows(conn, "SELECT proname FROM pg_proc WHERE prokind = 'p'")}
            functions = {
                r[0] for r in rows(conn, "SELECT proname FROM pg_proc WHERE prokind = 'f'")
            }
            assert "orders_new_order" in procs and "orders_payment" in functions
            procs |= functions
            spaces = dict(rows(conn, "SELECT tablename, tablespace FROM pg_tables"))
            if pair.a.managed:  # placed over its two data paths (an external server's: its own)
                assert spaces["order_line"] is None and spaces["stock"] == "dbstor_d1"
        else:
            indexes = {r[2] for r in rows(conn, "SHOW INDEX FROM customer")}
            indexes |= {r[2] for r in rows(conn, "SHOW INDEX FROM orders")}
            procs = {
                r[0]
                for r in rows(
                    conn,
                    "SELECT ROUTINE_NAME FROM information_schema.ROUTINES"
                    " WHERE ROUTINE_SCHEMA = DATABASE()",
                )
            }
        assert {"customer_name", "orders_customer"} <= indexes
        assert {f"orders_{n}" for n in ("new_order", "payment", "delivery")} <= procs
    finally:
        conn.close()


def test_procedures_and_statements_have_the_same_effects(pair):
    untouched = ("district", "new_order", "counts")  # cheap: neither has run anything yet
    assert digests(pair.a, untouched) == digests(pair.b, untouched), "a run came first"
    conn_a, conn_b = pair.a.connect(), pair.b.connect()
    try:
        on_a = pair.procedures.session(pair.a, conn_a, 1)
        on_b = pair.statements.session(pair.b, conn_b, 1)
        assert on_a.use_procedures and not on_b.use_procedures
        t, second = on_a.terminal, timedelta(seconds=1)
        # 100 of one item from one stock row on ten lines: its s_quantity (10..100) wraps
        wraps = ((7, 1, 10),) * 10 + ((7, 2, 10), (8, 1, 5))
        crafted = [  # a rollback, a remote line with a repeated item, a bad-credit payer
            NewOrder(2, 3, 17, ((5, 2, 3), (UNUSED_ITEM, 2, 1)), LOAD_TIME + second * 5),
            NewOrder(
                2, 3, 17, ((5, 1, 9), (5, 2, 3), (5, 2, 4), (99, 2, 1)), LOAD_TIME + second * 6
            ),
            NewOrder(1, 2, 5, wraps, LOAD_TIME + second * 8),
            # the unused item on the first line
            NewOrder(1, 2, 5, ((UNUSED_ITEM, 1, 1), (9, 1, 2)), LOAD_TIME + second * 9),
        ]
        bad_credit = rows(
            conn_a, "SELECT c_w_id, c_d_id, c_id FROM customer WHERE c_credit = 'BC' LIMIT 1"
        )[0]
        paid = Decimal("43.21")
        crafted.append(Payment(1, 4, Customer(*bad_credit, None), paid, LOAD_TIME + second * 7))
        order = [txn for txn in MIX for _ in range(int(MIX[txn] * 2))]
        random.Random(2).shuffle(order)
        requests = crafted + [t.draw(txn) for txn in order]
        outcomes = [(on_a.execute(r), on_b.execute(r)) for r in requests]
        assert all(a == b for a, b in outcomes), outcomes
        assert outcomes[0] == outcomes[3] == (False, False) and on_a.rolled_back >= 2
        assert outcomes[2] == (True, True)
        assert on_a.outcomes == on_b.outcomes and on_a.outcomes["Delivery"] >= 8
    finally:
        conn_a.close()
        conn_b.close()
    after_a, after_b = digests(pair.a), digests(pair.b)
    assert after_a == after_b, [name for name in after_a if after_a[name] != after_b[name]]


def test_four_users_on_both_paths_keep_the_data_consistent(pair):
    engine = pair.a
    conn = engine.connect()
    try:
        before = rows(conn, COUNTS)[0]
        instances = [Instance(engine, pair.procedures), Instance(engine, pair.statements)]
        result = VirtualUsers(instances, 2, seed=3).run(warmup_s=0.0, duration_s=4.0)
        assert result.fatal is None and result.errors == 0, result.messages
        done = {txn: h.count for txn, h in result.per_type.items()}
        assert all(done[txn] >= 3 for txn in MIX), done
        new_orders = done["New-Order"] - result.rollbacks.get("New-Order", 0)
        orders, pending, delivered, paid = rows(conn, COUNTS)[0]
        assert orders - before[0] == new_orders  # every committed New-Order, exactly once
        assert pending - before[1] == new_orders - (delivered - before[2])
        assert paid - before[3] == done["Payment"]
        assert broken(conn, deep=True) == {}
        remote = "SELECT COUNT(*) FROM history WHERE h_c_w_id <> h_w_id"
        assert rows(conn, remote)[0][0] > 0  # 15% of Payments pay at another warehouse
    finally:
        conn.close()


def _child(engine: Engine, workload: OrdersWorkload, pipe: Any) -> None:
    conn = engine.connect()
    try:
        session = workload.session(engine, conn, 3)
        rng = random.Random(1)
        for _ in range(40):
            session.run(rng.choices(list(MIX), list(MIX.values()))[0])
        pipe.send(dict(session.outcomes))
    except Exception as exc:
        pipe.send(f"{type(exc).__name__}: {exc}")
    finally:
        conn.close()


def test_sessions_run_in_a_forked_child(pair):
    """The driver may run users in forked processes: the workload holds no connection."""
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe()
    child = ctx.Process(target=_child, args=(pair.a, pair.procedures, there))
    child.start()
    try:
        assert here.poll(60), "the child sent nothing"
        outcome = here.recv()
    finally:
        child.join(timeout=30)
    assert isinstance(outcome, dict), outcome
    assert sum(outcome.values()) >= 39 and child.exitcode == 0
