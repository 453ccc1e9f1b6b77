"""Server-side transactions: which dialects have them, their DDL, and calling them
(each dialect's procedures and caller: dbstor.dialects.<dialect>.orders).

On PostgreSQL (PL/pgSQL procedures) and MariaDB/MySQL (stored procedures) one CALL on an
autocommit connection is one whole transaction: one round trip, so the client stays cheap
and the load point measures the database rather than the driver. SQLite has no stored
procedures: its sessions always run the client-side statements.
"""

from __future__ import annotations

from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.orders.inputs import (
    Delivery,
    Inputs,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
)


def ddl(dialect: str) -> list[str]:
    """Statements creating the procedures on a dialect (none where there are none)."""
    part = registry.get(dialect).part("orders")
    return list(part.DDL) if part else []


def calls(dialect: str) -> dict[str, str]:
    """Transaction -> the CALL its Caller runs (the dialect part's CALLS; none without)."""
    part = registry.get(dialect).part("orders")
    return dict(part.CALLS) if part else {}


def procedural(dialect: str) -> bool:
    """Whether the dialect has the orders procedures (its orders part)."""
    return registry.get(dialect).part("orders") is not None


class Procedures:
    """Runs transactions as one CALL each on one autocommit connection, through the
    dialect's own caller (dbstor.dialects.<dialect>.orders)."""

    def __init__(self, connection: Any, dialect: str):
        part = registry.get(dialect).part("orders")
        if part is None:
            raise ValueError(f"no stored procedures on {dialect!r}")
        self.part = part
        self.caller = part.Caller(connection)
        self.can_submit: bool = part.Caller.can_submit

    def run(self, inputs: Inputs) -> bool:
        """CALL the transaction; False when New-Order rolled back (its unused item)."""
        return bool(self.caller.run(*self._call(inputs)))

    def send(self, inputs: Inputs) -> int:
        """Send the CALL without waiting (where can_submit); the socket its reply comes on."""
        return int(self.caller.send(*self._call(inputs)))

    def receive(self) -> bool | None:
        """None while the sent CALL's reply is incomplete, else as run()."""
        return self.caller.receive()

    def _call(self, t: Inputs) -> tuple[str, tuple]:
        if isinstance(t, NewOrder):
            # the lines as three lists in the text the dialect's procedure reads
            items, supply, qty = map(self.part.item_lines, zip(*t.lines, strict=True))
            return "New-Order", (t.w_id, t.d_id, t.c_id, t.entry_d, items, supply, qty)
        if isinstance(t, Payment):
            c = t.customer
            return "Payment", (t.w_id, t.d_id, c.w_id, c.d_id, c.c_id, c.c_last, t.amount, t.date)
        if isinstance(t, OrderStatus):
            c = t.customer
            return "Order-Status", (c.w_id, c.d_id, c.c_id, c.c_last)
        if isinstance(t, Delivery):
            return "Delivery", (t.w_id, t.carrier_id, t.date)
        if isinstance(t, StockLevel):
            return "Stock-Level", (t.w_id, t.d_id, t.threshold)
        raise TypeError(f"not an orders transaction: {t!r}")
