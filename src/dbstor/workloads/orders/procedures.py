"""Server-side transactions: which dialects have them, their DDL, and calling them.

On PostgreSQL (PL/pgSQL procedures) and MariaDB/MySQL (stored procedures) one CALL on an
autocommit connection is one whole transaction: one round trip, so the client stays cheap
and the load point measures the database rather than the driver. SQLite has no stored
procedures: its sessions always run the client-side statements.
"""

from __future__ import annotations

from typing import Any

from dbstor.engines.pg_prepared import PreparedStatements
from dbstor.workloads.orders import mysql_procedures, plpgsql
from dbstor.workloads.orders.inputs import (
    Delivery,
    Inputs,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
)

DIALECTS = ("postgres", "mysql")


def ddl(dialect: str) -> list[str]:
    """Statements creating the procedures on a dialect (none where there are none)."""
    if dialect == "postgres":
        return list(plpgsql.DDL)
    if dialect == "mysql":
        return list(mysql_procedures.DDL)
    return []


def set_autocommit(connection: Any, dialect: str) -> None:
    """Let every CALL be its own transaction (psycopg: attribute; PyMySQL: method)."""
    if dialect == "postgres":
        connection.autocommit = True
    else:
        connection.autocommit(True)


class Procedures:
    """Runs transactions as one CALL each on one autocommit connection."""

    def __init__(self, connection: Any, dialect: str):
        if dialect not in DIALECTS:
            raise ValueError(f"no stored procedures on {dialect!r}")
        set_autocommit(connection, dialect)
        self.dialect = dialect
        if dialect == "postgres":  # prepared once, run through libpq: the cheapest client path
            self.prepared = PreparedStatements(connection, plpgsql.CALLS)
        else:
            self.cur = connection.cursor()

    def run(self, inputs: Inputs) -> bool:
        """CALL the transaction; False when New-Order rolled back (its unused item)."""
        name, params = self._call(inputs)
        if self.dialect == "postgres":
            return _committed(name, self.prepared.run(name, params))
        self.cur.execute(mysql_procedures.CALLS[name], params)
        row = self.cur.fetchone()
        while self.cur.nextset():  # the CALL's own status result
            pass
        return not (name == "New-Order" and row is not None and row[0] != 0)

    def send(self, inputs: Inputs) -> int:
        """Send the CALL without waiting (PostgreSQL only); the socket its reply comes on."""
        self._sent, params = self._call(inputs)
        return self.prepared.send(self._sent, params)

    def receive(self) -> bool | None:
        """None while the sent CALL's reply is incomplete, else as run()."""
        result = self.prepared.receive()
        return None if result is None else _committed(self._sent, result)

    def _call(self, t: Inputs) -> tuple[str, tuple]:
        if isinstance(t, NewOrder):
            # the lines as three lists in text: {1,2,3} for int[] (PostgreSQL), 1,2,3 for
            # the procedure to split (MariaDB)
            form = "{%s}" if self.dialect == "postgres" else "%s"
            items, supply, qty = (form % ",".join(map(str, c)) for c in zip(*t.lines, strict=True))
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


def _committed(name: str, result: Any) -> bool:
    """False when a PostgreSQL New-Order CALL reports its rollback (status 1)."""
    status = result.get_value(0, 0) if result.ntuples else None
    return not (name == "New-Order" and status is not None and status != b"0")
