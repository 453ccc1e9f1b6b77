"""The five transactions as client-side statements, on any dialect.

Each function runs one transaction's statements on a cursor inside a transaction the
session opened, and returns False when the transaction must roll back (New-Order's unused
item), else True; the session commits or rolls back. Rows that TPC-C updates after reading
them are read with FOR UPDATE (the district's next order id, stock, the paying customer,
the oldest new order), so concurrent transactions at PostgreSQL's read committed and
InnoDB's repeatable read do not lose updates. New-Order reads its items in one IN list
and locks its stock rows in (warehouse, item) order, then writes stock and lines in
batches: what a careful client does to keep round trips down.

Money is a Decimal to the cent and every time a datetime (TPC-C's DECIMAL and date and
time); prices and sums read back are taken to the cent (SQLite gives binary REALs), and the
dialect binds both as its driver takes them (dialect.bind).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.orders.inputs import (
    Customer,
    Delivery,
    Inputs,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
)
from dbstor.workloads.orders.sql import statement
from dbstor.workloads.orders.tpcc import DISTRICTS, money

C_DATA_LENGTH = 500
CREDIT, DATA = 10, 14  # c_credit and c_data in pay_customer's row


class Client:
    """Runs transactions as statements on one cursor of one dialect."""

    def __init__(self, cursor: Any, dialect: str):
        self.cur, self.dialect = cursor, dialect
        self.bind = registry.get(dialect).bind  # a Decimal or datetime as the driver takes it

    def run(self, inputs: Inputs) -> bool:
        return _RUN[type(inputs)](self, inputs)

    # --- helpers ----------------------------------------------------------------------

    def q(self, name: str, params: tuple, count: int = 0, district: int = 1) -> Any:
        self.cur.execute(statement(self.dialect, name, count, district), params)
        return self.cur

    def one(self, name: str, params: tuple) -> tuple | None:
        return self.q(name, params).fetchone()

    def many(self, name: str, rows: list[tuple]) -> None:
        if rows:
            self.cur.executemany(statement(self.dialect, name), rows)

    def customer_id(self, who: Customer) -> int:
        """The customer's id; by last name, the middle one of those ordered by first name
        (position n/2 rounded up, clause 2.5.2.2)."""
        if who.c_last is None:
            return who.c_id
        ids = [row[0] for row in self.q("by_name", (who.w_id, who.d_id, who.c_last)).fetchall()]
        if not ids:
            raise LookupError(f"no customer named {who.c_last} in district {who.w_id}/{who.d_id}")
        return ids[(len(ids) - 1) // 2]

    # --- the transactions ---------------------------------------------------------------

    def new_order(self, t: NewOrder) -> bool:
        w, d = t.w_id, t.d_id
        self.one("no_warehouse", (w,))
        o_id = self.one("no_district", (w, d))[1]  # type: ignore[index]
        self.q("no_next_order", (w, d))
        self.one("no_customer", (w, d, t.c_id))
        entry = self.bind(t.entry_d)
        self.q("no_order", (o_id, d, w, t.c_id, entry, len(t.lines), t.all_local))
        self.q("no_new_order", (o_id, d, w))
        wanted = sorted({item for item, _, _ in t.lines})
        found = self.q("no_items", tuple(wanted), len(wanted)).fetchall()
        prices = {row[0]: money(row[1]) for row in found}
        if len(prices) < len(wanted):
            return False  # an unused item: TPC-C's 1% of New-Orders that roll back
        stock: dict[tuple[int, int], list] = {}
        for supply in sorted({s for _, s, _ in t.lines}):
            items = sorted({i for i, s, _ in t.lines if s == supply})
            rows = self.q("no_stock", (supply, *items), len(items), d).fetchall()
            stock.update({(supply, row[0]): [row[1], row[2]] for row in rows})
        updates, lines = [], []
        for number, (item, supply, qty) in enumerate(t.lines, 1):
            held = stock[(supply, item)]
            left = held[0] - qty
            held[0] = left if left >= 10 else left + 91
            updates.append((held[0], qty, int(supply != w), supply, item))
            amount = self.bind(qty * prices[item])
            lines.append((o_id, d, w, number, item, supply, None, qty, amount, held[1]))
        self.many("no_stock_update", updates)
        self.many("no_line", lines)
        return True

    def payment(self, t: Payment) -> bool:
        w, d, who = t.w_id, t.d_id, t.customer
        amount = self.bind(t.amount)
        self.q("pay_warehouse", (amount, w))
        w_name = self.one("pay_warehouse_read", (w,))[0]  # type: ignore[index]
        self.q("pay_district", (amount, w, d))
        d_name = self.one("pay_district_read", (w, d))[0]  # type: ignore[index]
        c_id = self.customer_id(who)
        row = self.one("pay_customer", (who.w_id, who.d_id, c_id))
        key = (who.w_id, who.d_id, c_id)
        if row[CREDIT] == "BC":  # type: ignore[index]  # bad credit: note it in c_data
            note = f"{c_id} {who.d_id} {who.w_id} {d} {w} {t.amount} "
            data = (note + row[DATA])[:C_DATA_LENGTH]  # type: ignore[index]
            self.q("pay_customer_update_bc", (amount, amount, data, *key))
        else:
            self.q("pay_customer_update", (amount, amount, *key))
        h_data = f"{w_name}    {d_name}"
        paid = (c_id, who.d_id, who.w_id, d, w, self.bind(t.date), amount, h_data)
        self.q("pay_history", paid)
        return True

    def order_status(self, t: OrderStatus) -> bool:
        who = t.customer
        c_id = self.customer_id(who)
        self.one("os_customer", (who.w_id, who.d_id, c_id))
        order = self.one("os_order", (who.w_id, who.d_id, c_id))
        if order is not None:
            self.q("os_lines", (who.w_id, who.d_id, order[0])).fetchall()
        return True

    def delivery(self, t: Delivery) -> bool:
        w, date = t.w_id, self.bind(t.date)
        for d in range(1, DISTRICTS + 1):
            oldest = self.one("dl_oldest", (w, d))
            if oldest is None:
                continue  # no undelivered order in this district: skipped (clause 2.7.4.2)
            o_id = oldest[0]
            self.q("dl_delete", (w, d, o_id))
            c_id = self.one("dl_owner", (w, d, o_id))[0]  # type: ignore[index]
            self.q("dl_carrier", (t.carrier_id, w, d, o_id))
            self.q("dl_lines", (date, w, d, o_id))
            amount = money(self.one("dl_amount", (w, d, o_id))[0])  # type: ignore[index]
            self.q("dl_customer", (self.bind(amount), w, d, c_id))
        return True

    def stock_level(self, t: StockLevel) -> bool:
        w, d = t.w_id, t.d_id
        next_o = self.one("sl_next_order", (w, d))[0]  # type: ignore[index]
        self.one("sl_low_stock", (w, d, next_o, next_o - 20, t.threshold))
        return True


_RUN: dict[type, Callable[[Client, Any], bool]] = {
    NewOrder: Client.new_order,
    Payment: Client.payment,
    OrderStatus: Client.order_status,
    Delivery: Client.delivery,
    StockLevel: Client.stock_level,
}
