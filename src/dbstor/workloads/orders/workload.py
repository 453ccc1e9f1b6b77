"""OrdersWorkload: the TPC-C-like order-entry database and its five-transaction mix."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any, ClassVar

from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.errors import UserError
from dbstor.workloads import bulk
from dbstor.workloads.base import LoadReport, Workload
from dbstor.workloads.options import option_flag, option_whole
from dbstor.workloads.orders import consistency, procedures, sample, sql
from dbstor.workloads.orders.generate import chunks, expected_rows, generate
from dbstor.workloads.orders.schema import TABLES
from dbstor.workloads.orders.session import OrdersSession
from dbstor.workloads.orders.tpcc import Constants
from dbstor.workloads.sample_values import column_types, with_samples
from dbstor.workloads.script import Section, bulk_sections, statement_section

# TPC-C's minimum mix (clause 5.2.3), as HammerDB runs it, in percent.
MIX: dict[str, float] = {
    "New-Order": 45.0,
    "Payment": 43.0,
    "Order-Status": 4.0,
    "Delivery": 4.0,
    "Stock-Level": 4.0,
}
OPTIONS = {
    "all_warehouses": "true: each transaction picks its warehouse uniformly over all of them "
    "(HammerDB's 'use all warehouses'), so the run leans on I/O rather than on each user's "
    "hot home warehouse (default false: home warehouse (user % W) + 1)",
    "procedures": "true: one stored-procedure CALL per transaction on PostgreSQL and "
    "MariaDB/MySQL; false: client-side statements (SQLite always runs those) (default true)",
    "seed": "random seed for data and sessions (default: the study's seed)",
}


class OrdersWorkload(Workload):
    name: ClassVar[str] = "orders"
    title: ClassVar[str] = "Orders (TPC-C-like OLTP)"
    description: ClassVar[str] = (
        "A wholesale supplier's order-entry database (warehouses, districts, customers, "
        "orders, order lines, items, stock) driven by TPC-C's five transactions in TPC-C's "
        "mix: New-Order 45%, Payment 43%, and 4% each Order-Status, Delivery, Stock-Level. "
        "About 92% of transactions write; at the storage, random 8K reads and writes with "
        "a steady stream of log writes."
    )
    source: ClassVar[str] = (
        "TPC-C (order-entry OLTP), as HammerDB's TPROC-C runs it; the OLTP load behind many "
        "storage vendors' database reports"
    )
    mix: ClassVar[dict[str, float]] = MIX
    dialects: ClassVar[tuple[str, ...]] = registry.running("orders")
    declared_tables = TABLES
    default_scale: ClassVar[int] = 1
    scale_unit: ClassVar[str] = "warehouses"
    options_help: ClassVar[dict[str, str]] = OPTIONS
    durable: ClassVar[tuple[str, str] | None] = ("New-Order", "orders")  # one order each

    def consistency(self, connection: Any) -> dict[str, int] | None:
        """TPC-C's consistency conditions (clause 3.3.2) that do not hold."""
        return consistency.broken(connection)

    def __init__(self, scale: int, seed: int = 1, options: dict[str, Any] | None = None):
        super().__init__(scale, seed, options)
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise UserError(
                f"unknown orders option(s) {', '.join(unknown)}; known: {', '.join(OPTIONS)}"
            )
        self.warehouses = int(self.scale)
        self.seed = option_whole("orders", "seed", self.options.get("seed", seed))
        self.all_warehouses = option_flag(
            "orders", "all_warehouses", self.options.get("all_warehouses", False)
        )
        self.procedures = option_flag("orders", "procedures", self.options.get("procedures", True))
        self.constants = Constants.from_seed(self.seed)
        self._streams = itertools.count()  # new session streams at every load point

    def create(self, engine: Engine, say: Callable[[str], None]) -> LoadReport:
        if engine.dialect not in self.dialects:
            raise UserError(f"the orders workload has no SQL for {engine.title} ({engine.dialect})")
        load = bulk.BulkLoad(
            label="orders",
            tables=TABLES,
            work=chunks(self.warehouses),
            generate=functools.partial(generate, seed=self.seed, constants=self.constants),
            after=procedures.ddl(engine.dialect),
        )
        return bulk.build(engine, load, say)

    def script(self, dialect: str) -> list[Section]:
        """Tables, keys, statistics and procedures as create() runs them; then each
        transaction's CALL, or the client-side statements where there are no procedures."""
        out = bulk_sections(TABLES, dialect, procedures.ddl(dialect))
        if self.procedures and procedures.procedural(dialect):
            calls = sample.named_calls(dialect)
            note = (
                "one call each, autocommit; named parameters, sample values for a loaded database"
            )
            return [*out, Section("transactions", named=calls, note=note)]
        own = sql.STATEMENTS
        types = column_types(TABLES)
        render = lambda name, n: with_samples(sql.statement(dialect, name, n), types, dialect)  # noqa: E731
        note = "sample values where the driver binds parameters"
        return [*out, statement_section("transactions' statements", own, render, note)]

    def session(self, engine: Engine, connection: Any, user: int) -> OrdersSession:
        return OrdersSession.create(
            engine.dialect,
            connection,
            user,
            self.warehouses,
            self.seed,
            next(self._streams),
            use_procedures=self.procedures,
            all_warehouses=self.all_warehouses,
        )

    def submits(self, dialect: str) -> bool:
        part = registry.get(dialect).part("orders") if self.procedures else None
        return bool(part is not None and part.Caller.can_submit)

    def point_metrics(
        self,
        commits: dict[str, int],
        rollbacks: dict[str, int],
        seconds: float,
        latency_ms: Any = None,
    ) -> dict[str, float]:
        """nopm: New-Orders committed per minute (New-Order rollbacks left out); tpm: every
        transaction the clients finished per minute, rollbacks included."""
        if seconds <= 0:
            return {"nopm": 0.0, "tpm": 0.0}
        new_orders = commits.get("New-Order", 0) - rollbacks.get("New-Order", 0)
        return {
            "nopm": max(0, new_orders) * 60.0 / seconds,
            "tpm": sum(commits.values()) * 60.0 / seconds,
        }

    def expected_rows(self) -> dict[str, int]:
        return expected_rows(self.warehouses)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["scale_unit"] = self.scale_unit
        info["options"] = {
            "all_warehouses": self.all_warehouses,
            "procedures": self.procedures,
        }
        info["rows"] = self.expected_rows()
        return info
