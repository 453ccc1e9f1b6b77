"""What each transaction asks for, drawn as TPC-C's terminal draws it (clauses 2.4.1, 2.5.1,
2.6.1, 2.7.1 and 2.8.1), apart from running it: the client-side statements and the stored
procedures execute the same inputs, so both paths can be compared on the same requests.

A terminal (virtual user) has a home warehouse, (user % W) + 1 as HammerDB assigns them,
or with all_warehouses a warehouse drawn uniformly for every transaction; and a district
of its own for Stock-Level ((user // W) % 10 + 1), TPC-C's fixed district per terminal.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import NamedTuple

from dbstor.hotpath import Drawer
from dbstor.workloads.orders.tpcc import (
    DISTRICTS,
    LOAD_TIME,
    UNUSED_ITEM,
    Constants,
    last_name,
)

REMOTE_LINE_PCT = 1  # New-Order: a line's supplying warehouse is another one (W > 1)
ROLLBACK_PCT = 1  # New-Order: the last line asks for an unused item
BY_NAME_PCT = 60  # Payment and Order-Status: customer by last name
REMOTE_PAYMENT_PCT = 15  # Payment: the customer belongs to another warehouse (W > 1)
PAYMENT_CENTS = (100, 500_000)  # Payment: 1.00 to 5,000.00
LAST_NAMES = tuple(last_name(number) for number in range(1000))  # C_LAST by its number


class Customer(NamedTuple):
    """A customer by id, or by last name (c_id 0): the one in the middle of those with the
    name, ordered by first name."""

    w_id: int
    d_id: int
    c_id: int
    c_last: str | None


class NewOrder(NamedTuple):
    w_id: int
    d_id: int
    c_id: int
    lines: tuple[tuple[int, int, int], ...]  # (item id, supplying warehouse, quantity)
    entry_d: datetime

    @property
    def all_local(self) -> int:
        return int(all(supply == self.w_id for _, supply, _ in self.lines))


class Payment(NamedTuple):
    w_id: int
    d_id: int
    customer: Customer
    amount: Decimal  # 1.00 to 5,000.00, to the cent
    date: datetime


class OrderStatus(NamedTuple):
    customer: Customer


class Delivery(NamedTuple):
    w_id: int
    carrier_id: int
    date: datetime


class StockLevel(NamedTuple):
    w_id: int
    d_id: int
    threshold: int


Inputs = NewOrder | Payment | OrderStatus | Delivery | StockLevel


_LATEST_AT_LOAD = LOAD_TIME.replace(tzinfo=UTC).timestamp()


class _Second(NamedTuple):
    second: int
    moment: datetime


_last = _Second(-1, LOAD_TIME)  # the last second now() made a datetime for


def now() -> datetime:
    """The time to the second, UTC without a zone, never at or before the load's. One
    datetime a second, shared by every draw in it (a third of a Payment's draw was
    making it anew; read and replaced whole, so any thread sees a matching pair)."""
    global _last
    seconds = int(time.time())
    last = _last
    if last.second != seconds:
        moment = datetime.fromtimestamp(max(_LATEST_AT_LOAD + 1, seconds), UTC)
        last = _last = _Second(seconds, moment.replace(tzinfo=None))
    return last.moment


class Terminal:
    """Draws one virtual user's transaction inputs from its own random stream: the draws
    are compiled (dbstor.hotpath.Drawer, xoshiro256** seeded from `rng`), one C call per
    transaction answering the NamedTuples above; this class holds the user's rules."""

    def __init__(
        self,
        warehouses: int,
        user: int,
        rng: random.Random,
        constants: Constants,
        all_warehouses: bool = False,
    ):
        self.warehouses, self.c = warehouses, constants
        self.home = user % warehouses + 1
        self.district = (user // warehouses) % DISTRICTS + 1
        self.all_warehouses = all_warehouses
        drawer = Drawer(
            seed=rng.getrandbits(64),
            warehouses=warehouses,
            home=self.home,
            district=self.district,
            all_warehouses=int(all_warehouses),
            constants=(constants.c_id, constants.c_last_run, constants.item),
            rules=(
                REMOTE_LINE_PCT,
                ROLLBACK_PCT,
                BY_NAME_PCT,
                REMOTE_PAYMENT_PCT,
                UNUSED_ITEM,
                *PAYMENT_CENTS,
            ),
            types=(NewOrder, Payment, OrderStatus, Delivery, StockLevel, Customer),
            names=LAST_NAMES,
            decimal=Decimal,  # the amount made from its text, 43.21: exact, two places
            now=now,
        )
        # the draws are the compiled ones, bound here: no Python frame per transaction;
        # the drawer itself for a session's Submitter (hotpath: drawn and sent in one call)
        self.drawer = drawer
        self.draw: Callable[[str], Inputs] = drawer.draw
        self.new_order: Callable[[], NewOrder] = drawer.new_order
        self.payment: Callable[[], Payment] = drawer.payment
        self.order_status: Callable[[], OrderStatus] = drawer.order_status
        self.delivery: Callable[[], Delivery] = drawer.delivery
        self.stock_level: Callable[[], StockLevel] = drawer.stock_level
        # the stream's own integers (tests check the distributions through them)
        self.uniform: Callable[[int, int], int] = drawer.uniform
        self.nurand: Callable[[int, int, int, int], int] = drawer.nurand


TRANSACTIONS = ("New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level")
WRITERS = frozenset({"New-Order", "Payment", "Delivery"})
NAMES: dict[type, str] = {
    NewOrder: "New-Order",
    Payment: "Payment",
    OrderStatus: "Order-Status",
    Delivery: "Delivery",
    StockLevel: "Stock-Level",
}
