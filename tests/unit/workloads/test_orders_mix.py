"""The orders workload's contract: TPC-C's mix, options, metrics and the terminal's draws."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from decimal import Decimal

import pytest

from dbstor.errors import UserError
from dbstor.workloads.orders import MIX, OrdersWorkload
from dbstor.workloads.orders.inputs import (
    TRANSACTIONS,
    WRITERS,
    Delivery,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
    Terminal,
)
from dbstor.workloads.orders.tpcc import ITEMS, LOAD_TIME, UNUSED_ITEM, Constants, last_name
from dbstor.workloads.registry import workload_class

TPC_C_MIX = {  # TPC-C clause 5.2.3 minimums, as HammerDB runs them
    "New-Order": 45.0,
    "Payment": 43.0,
    "Order-Status": 4.0,
    "Delivery": 4.0,
    "Stock-Level": 4.0,
}
DRAWS = 20_000


def terminal(warehouses: int, user: int = 0, all_warehouses: bool = False) -> Terminal:
    rng = random.Random(f"test:{warehouses}:{user}")
    return Terminal(warehouses, user, rng, Constants.from_seed(1), all_warehouses)


def test_mix_is_tpc_c_and_every_type_has_inputs():
    assert OrdersWorkload.mix == MIX == TPC_C_MIX
    assert sum(MIX.values()) == pytest.approx(100.0)
    assert set(TRANSACTIONS) == set(MIX)
    assert sum(MIX[t] for t in WRITERS) == 92.0


def test_registered_and_described():
    assert workload_class("orders") is OrdersWorkload
    assert (OrdersWorkload.default_scale, OrdersWorkload.scale_unit) == (1, "warehouses")
    w = OrdersWorkload(4, seed=7)
    assert set(w.dialects) >= {"sqlite", "postgres", "mysql", "oracle", "tsql"}
    info = w.describe()
    assert (info["scale"], info["seed"], info["mix"]) == (4, 7, MIX)
    assert info["options"] == {"all_warehouses": False, "procedures": True}
    assert info["rows"]["stock"] == 400_000 and info["rows"]["customer"] == 120_000
    assert set(OrdersWorkload.options_help) == {"all_warehouses", "procedures", "seed"}


def test_options_are_checked():
    w = OrdersWorkload(2, options={"all_warehouses": True, "procedures": "false", "seed": 11})
    assert (w.all_warehouses, w.procedures, w.seed) == (True, False, 11)
    assert w.constants == Constants.from_seed(11)
    for bad in ({"procedures": "maybe"}, {"all_warehouses": 2}, {"seed": "x"}, {"seed": 1.5}):
        with pytest.raises(UserError, match="orders option") as err:
            OrdersWorkload(1, options=bad)
        assert "\n" not in str(err.value)
    with pytest.raises(UserError, match=r"unknown orders option.*known: all_warehouses"):
        OrdersWorkload(1, options={"warehouses": 3})
    for scale in (0, -1, 1.5):
        with pytest.raises(UserError, match="warehouses"):
            OrdersWorkload(scale)


def test_point_metrics_count_committed_new_orders():
    w = OrdersWorkload(1)
    commits = {"New-Order": 450, "Payment": 430, "Order-Status": 40, "Delivery": 40}
    metrics = w.point_metrics(commits, {"New-Order": 5}, 30.0)
    assert metrics == {"nopm": pytest.approx(445 * 2), "tpm": pytest.approx(960 * 2)}
    assert w.point_metrics({}, {}, 10.0) == {"nopm": 0.0, "tpm": 0.0}
    assert w.point_metrics(commits, {}, 0.0) == {"nopm": 0.0, "tpm": 0.0}


def test_home_warehouse_as_hammerdb_assigns_it():
    assert [terminal(3, user).home for user in range(7)] == [1, 2, 3, 1, 2, 3, 1]
    assert {terminal(3, 4).new_order().w_id for _ in range(50)} == {2}
    t = terminal(4, 0, all_warehouses=True)
    spread = Counter(t.draw(txn).w_id for txn in ("New-Order", "Payment") for _ in range(2000))
    assert set(spread) == {1, 2, 3, 4} and min(spread.values()) > 800


def test_new_order_lines_rollbacks_and_remote_supply():
    t = terminal(5)
    orders = [t.new_order() for _ in range(DRAWS)]
    assert all(isinstance(o, NewOrder) and 5 <= len(o.lines) <= 15 for o in orders)
    assert all(list(o.lines) == sorted(o.lines, key=lambda x: (x[1], x[0])) for o in orders)
    rollbacks = sum(any(i == UNUSED_ITEM for i, _, _ in o.lines) for o in orders)
    assert rollbacks / DRAWS == pytest.approx(0.01, abs=0.003)
    lines = [line for o in orders for line in o.lines]
    remote = sum(supply != 1 for _, supply, _ in lines)
    assert remote / len(lines) == pytest.approx(0.01, abs=0.002)
    assert {supply for _, supply, _ in lines} == {1, 2, 3, 4, 5}
    assert all(1 <= qty <= 10 for _, _, qty in lines)
    assert all(1 <= i <= ITEMS or i == UNUSED_ITEM for i, _, _ in lines)
    local = sum(o.all_local for o in orders) / DRAWS
    assert local == pytest.approx(0.99**10, abs=0.02)  # about 10 lines, 1% remote each
    single = [terminal(1).new_order() for _ in range(500)]
    assert all(supply == 1 for o in single for _, supply, _ in o.lines)


def test_payment_by_name_and_remote_customers():
    t = terminal(3, user=1)
    payments = [t.payment() for _ in range(DRAWS)]
    assert all(isinstance(p, Payment) and p.w_id == 2 for p in payments)
    by_name = [p for p in payments if p.customer.c_last is not None]
    assert len(by_name) / DRAWS == pytest.approx(0.60, abs=0.015)
    assert all(p.customer.c_id == 0 for p in by_name)
    names = {last_name(n) for n in range(1000)}
    assert {p.customer.c_last for p in by_name} <= names
    remote = [p for p in payments if p.customer.w_id != p.w_id]
    assert len(remote) / DRAWS == pytest.approx(0.15, abs=0.01)
    assert all(p.customer.d_id == p.d_id for p in payments if p.customer.w_id == p.w_id)
    # TPC-C's H_AMOUNT: 1.00-5,000.00, exact to the cent
    assert all(Decimal("1.00") <= p.amount <= Decimal("5000.00") for p in payments)
    assert all(
        isinstance(p.amount, Decimal) and p.amount.as_tuple().exponent == -2 for p in payments
    )
    assert all(isinstance(p.date, datetime) and p.date > LOAD_TIME for p in payments)
    assert all(p.customer.w_id == 1 for p in (terminal(1).payment() for _ in range(300)))


def test_order_status_delivery_stock_level():
    t = terminal(2, user=5)
    statuses = [t.order_status() for _ in range(5000)]
    assert all(isinstance(s, OrderStatus) and s.customer.w_id == 2 for s in statuses)
    by_name = sum(s.customer.c_last is not None for s in statuses) / 5000
    assert by_name == pytest.approx(0.60, abs=0.03)
    deliveries = [t.delivery() for _ in range(500)]
    assert all(isinstance(d, Delivery) and d.w_id == 2 for d in deliveries)
    assert {d.carrier_id for d in deliveries} == set(range(1, 11))
    levels = [t.stock_level() for _ in range(500)]
    assert all(isinstance(s, StockLevel) for s in levels)
    assert {s.d_id for s in levels} == {3}  # a district of its own per terminal: (5 // 2) % 10 + 1
    assert {s.threshold for s in levels} == set(range(10, 21))


def test_customer_ids_are_nurand_and_draws_are_reproducible():
    t = terminal(1)
    ids = Counter(t.new_order().c_id for _ in range(DRAWS))
    assert min(ids) >= 1 and max(ids) <= 3000
    assert ids.most_common(1)[0][1] > 5 * DRAWS / 3000
    a = [terminal(2).draw(txn) for txn in TRANSACTIONS]
    b = [terminal(2).draw(txn) for txn in TRANSACTIONS]
    for x, y in zip(a, b, strict=True):
        if isinstance(x, NewOrder | Payment | Delivery):
            x, y = (v._asdict() | {"entry_d": 0, "date": 0} for v in (x, y))
        assert x == y
    with pytest.raises(ValueError, match="unknown orders transaction"):
        terminal(1).draw("Trade-Order")


def test_now_is_one_datetime_a_second_never_before_the_load(monkeypatch):
    from dbstor.workloads.orders import inputs

    clock = iter([2e9 + 0.2, 2e9 + 0.7, 2e9 + 1.1, 10.0])
    monkeypatch.setattr(inputs.time, "time", lambda: next(clock))
    first, second, third, early = (inputs.now() for _ in range(4))
    assert first is second and first == datetime(2033, 5, 18, 3, 33, 20)
    assert (third - first).total_seconds() == 1
    assert early > LOAD_TIME  # a clock behind the load's time still writes after it
