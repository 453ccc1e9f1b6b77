"""Server-side transactions: which dialects have them, their DDL, and calling them
(each dialect's procedures and caller: dbstor.dialects.<dialect>.orders).

On PostgreSQL (PL/pgSQL procedures) and MariaDB/MySQL (stored procedures) one CALL on an
autocommit connection is one whole transaction: one round trip, so the client stays cheap
and the load point measures the database rather than the driver. SQLite has no stored
procedures: its sessions always run the client-side statements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dbstor.dialects import registry
from dbstor.hotpath import Drawer, Submitter, call_args
from dbstor.workloads.orders.inputs import (
    LAST_NAMES,
    Delivery,
    Inputs,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
)

# call_args(inputs, item_lines, INPUT_TYPES) -> (transaction, its CALL's arguments):
# New-Order's (w_id, d_id, c_id, entry_d, items, supplying warehouses, quantities), the
# lists by the dialect's item_lines; Payment's (w_id, d_id, the customer's w_id, d_id, c_id
# and c_last, amount, date); Order-Status's customer; Delivery's and Stock-Level's fields
# as drawn. Compiled (src/hotpath/text.c), as the draws are.
INPUT_TYPES = (NewOrder, Payment, OrderStatus, Delivery, StockLevel)


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
        # New-Order's three line lists as the dialect's procedure reads them
        self.item_lines = part.item_lines
        self.caller = part.Caller(connection)
        self.can_submit: bool = part.Caller.can_submit

    def run(self, inputs: Inputs) -> bool:
        """CALL the transaction; False when New-Order rolled back (its unused item)."""
        return bool(self.caller.run(*call_args(inputs, self.item_lines, INPUT_TYPES)))

    def submitting(self, drawer: Drawer) -> tuple[Submitter, Callable[[], bool | None]]:
        """Where can_submit: the loop thread's Submitter (its submit(name) draws the
        transaction from `drawer` and sends its CALL in one compiled call; its `sent` is
        the name of the transaction sent) and receive() (None while the reply is
        incomplete, else as run()), both the dialect's Caller's own, so that no frame of
        this class runs per transaction."""
        return self.caller.submitting(drawer, LAST_NAMES), self.caller.receive
