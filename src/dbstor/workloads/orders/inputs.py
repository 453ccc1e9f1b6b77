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
from datetime import UTC, datetime
from decimal import Decimal
from operator import itemgetter
from typing import NamedTuple

from dbstor.workloads.orders.tpcc import (
    CUSTOMERS,
    DISTRICTS,
    ITEMS,
    LINES,
    LOAD_TIME,
    UNUSED_ITEM,
    Constants,
    cents,
    last_name,
    rand_int,
)

REMOTE_LINE_PCT = 1  # New-Order: a line's supplying warehouse is another one (W > 1)
ROLLBACK_PCT = 1  # New-Order: the last line asks for an unused item
BY_NAME_PCT = 60  # Payment and Order-Status: customer by last name
REMOTE_PAYMENT_PCT = 15  # Payment: the customer belongs to another warehouse (W > 1)
PAYMENT_CENTS = (100, 500_000)  # Payment: 1.00 to 5,000.00


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
    """Draws one virtual user's transaction inputs from its own random stream."""

    def __init__(
        self,
        warehouses: int,
        user: int,
        rng: random.Random,
        constants: Constants,
        all_warehouses: bool = False,
    ):
        self.warehouses, self.rng, self.c = warehouses, rng, constants
        self.home = user % warehouses + 1
        self.district = (user // warehouses) % DISTRICTS + 1
        self.all_warehouses = all_warehouses

    def draw(self, transaction: str) -> Inputs:
        drawer = _DRAW.get(transaction)
        if drawer is None:
            raise ValueError(f"unknown orders transaction {transaction!r}")
        return drawer(self)

    def warehouse(self) -> int:
        if self.all_warehouses:
            return rand_int(self.rng, 1, self.warehouses)
        return self.home

    def other_warehouse(self, w_id: int) -> int:
        """A warehouse other than w_id, uniformly (W > 1)."""
        other = rand_int(self.rng, 1, self.warehouses - 1)
        return other if other < w_id else other + 1

    def percent(self, pct: int) -> bool:
        return rand_int(self.rng, 1, 100) <= pct

    def customer_id(self) -> int:
        """NURand(1023, 1, 3000), nurand written out (a draw of most transactions)."""
        random = self.rng.random
        return ((int(random() * 1024) | 1 + int(random() * CUSTOMERS)) + self.c.c_id) % (
            CUSTOMERS
        ) + 1

    def customer(self, w_id: int, d_id: int) -> Customer:
        # percent() and nurand(255, 0, 999) written out: the same draws in the same order
        random = self.rng.random
        if 1 + int(random() * 100) <= BY_NAME_PCT:
            number = ((int(random() * 256) | int(random() * 1000)) + self.c.c_last_run) % 1000
            return Customer(w_id, d_id, 0, last_name(number))
        return Customer(w_id, d_id, self.customer_id(), None)

    def new_order(self) -> NewOrder:
        # rand_int and nurand written out: a New-Order draws some forty numbers, and the
        # calls were most of its cost; the same draws in the same order
        random, c_item = self.rng.random, self.c.item
        w_id = self.warehouse()
        d_id, c_id = 1 + int(random() * DISTRICTS), self.customer_id()
        count = LINES[0] + int(random() * (LINES[1] - LINES[0] + 1))
        rollback = 1 + int(random() * 100) <= ROLLBACK_PCT
        if self.warehouses > 1:
            lines = []
            for _ in range(count):
                item = ((int(random() * 8192) | 1 + int(random() * ITEMS)) + c_item) % ITEMS + 1
                supply = w_id
                if 1 + int(random() * 100) <= REMOTE_LINE_PCT:
                    supply = self.other_warehouse(w_id)
                lines.append((item, supply, 1 + int(random() * 10)))
        else:  # one warehouse: no remote lines, nothing drawn for them
            lines = [
                (
                    ((int(random() * 8192) | 1 + int(random() * ITEMS)) + c_item) % ITEMS + 1,
                    w_id,
                    1 + int(random() * 10),
                )
                for _ in range(count)
            ]
        if rollback:
            lines[-1] = (UNUSED_ITEM, *lines[-1][1:])
        # stock rows are locked in (warehouse, item) order, so New-Orders never deadlock
        lines.sort(key=itemgetter(1, 0))
        return NewOrder(w_id, d_id, c_id, tuple(lines), now())

    def payment(self) -> Payment:
        # rand_int and percent() written out, as in new_order: the same draws, same order
        random, w_id = self.rng.random, self.warehouse()
        d_id = 1 + int(random() * DISTRICTS)
        c_w_id, c_d_id = w_id, d_id
        if self.warehouses > 1 and 1 + int(random() * 100) <= REMOTE_PAYMENT_PCT:
            c_w_id, c_d_id = self.other_warehouse(w_id), 1 + int(random() * DISTRICTS)
        customer = self.customer(c_w_id, c_d_id)
        amount = cents(PAYMENT_CENTS[0] + int(random() * (PAYMENT_CENTS[1] - PAYMENT_CENTS[0] + 1)))
        return Payment(w_id, d_id, customer, amount, now())

    def order_status(self) -> OrderStatus:
        w_id = self.warehouse()
        return OrderStatus(self.customer(w_id, rand_int(self.rng, 1, DISTRICTS)))

    def delivery(self) -> Delivery:
        return Delivery(self.warehouse(), rand_int(self.rng, 1, 10), now())

    def stock_level(self) -> StockLevel:
        return StockLevel(self.warehouse(), self.district, rand_int(self.rng, 10, 20))


_DRAW = {
    "New-Order": Terminal.new_order,
    "Payment": Terminal.payment,
    "Order-Status": Terminal.order_status,
    "Delivery": Terminal.delivery,
    "Stock-Level": Terminal.stock_level,
}
TRANSACTIONS = tuple(_DRAW)
WRITERS = frozenset({"New-Order", "Payment", "Delivery"})
NAMES: dict[type, str] = {
    NewOrder: "New-Order",
    Payment: "Payment",
    OrderStatus: "Order-Status",
    Delivery: "Delivery",
    StockLevel: "Stock-Level",
}
