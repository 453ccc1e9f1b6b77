"""BrokerageWorkload: the TPC-E-like brokerage database and its transaction mix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.errors import UserError
from dbstor.units import MAX_LATENCY_MS
from dbstor.workloads.base import LoadReport, Workload
from dbstor.workloads.brokerage import load, sql
from dbstor.workloads.brokerage.keys import Keys
from dbstor.workloads.brokerage.market import Market
from dbstor.workloads.brokerage.schema import TABLES
from dbstor.workloads.brokerage.session import BrokerageSession
from dbstor.workloads.brokerage.volumes import DEFAULT_TRADE_DAYS, Volumes
from dbstor.workloads.sample_values import column_types, with_samples
from dbstor.workloads.script import Section, bulk_sections, statement_section

# TPC-E's transaction mix (clause 6.2.2.1 of the specification), in percent.
MIX: dict[str, float] = {
    "Trade-Status": 19.0,
    "Market-Watch": 18.0,
    "Security-Detail": 14.0,
    "Customer-Position": 13.0,
    "Trade-Order": 10.1,
    "Trade-Result": 10.0,
    "Trade-Lookup": 8.0,
    "Broker-Volume": 4.9,
    "Trade-Update": 2.0,
    "Market-Feed": 1.0,
}
MAX_TRADE_DAYS = 3650  # ten years of trades: beyond it the load would never end

OPTIONS = {
    "trade_days": f"days of initial trade history, 57.6 trades per customer a day (default {DEFAULT_TRADE_DAYS}; TPC-E: 300)",
    "think_time_ms": "mean pause between a user's transactions, applied by the driver (default 0)",
    "seed": "random seed for data and sessions (default: the study's seed)",
}


def _number(
    options: dict[str, Any], name: str, default: float, minimum: float, kind: type, maximum: float
) -> Any:
    value = options.get(name, default)
    try:
        number = kind(value)
        if isinstance(value, bool) or number != float(value):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise UserError(
            f"brokerage option {name} must be a {kind.__name__} number, not {value!r}"
        ) from None
    if not minimum <= number <= maximum:  # NaN and infinity too
        raise UserError(
            f"brokerage option {name} must be from {minimum:,.0f} to {maximum:,.0f}, not {value!r}"
        )
    return number


class BrokerageWorkload(Workload):
    name: ClassVar[str] = "brokerage"
    title: ClassVar[str] = "Brokerage (TPC-E-like OLTP)"
    description: ClassVar[str] = (
        "A brokerage firm's trading database (customers, accounts, brokers, securities, "
        "companies, trades, trade history, holdings, market data) driven by TPC-E's ten "
        "transactions in TPC-E's mix: mostly reads of scattered rows, about one statement "
        "in ten writing. At the storage: random 8K reads with a minority of writes."
    )
    source: ClassVar[str] = (
        "TPC-E (brokerage OLTP), as run at the storage in NetApp TR-4403 and TR-4367 "
        "(TPC-E-like SQL Server workload: random 8K I/O, about 90% reads)"
    )
    mix: ClassVar[dict[str, float]] = MIX
    dialects: ClassVar[tuple[str, ...]] = registry.running("brokerage")
    declared_tables = TABLES
    options_help: ClassVar[dict[str, str]] = OPTIONS

    def __init__(self, scale: int, seed: int = 1, options: dict[str, Any] | None = None):
        super().__init__(scale, seed, options)
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise UserError(
                f"unknown brokerage option(s) {', '.join(unknown)}; known: {', '.join(OPTIONS)}"
            )
        if scale < 1:
            raise UserError("brokerage scale (customers) must be at least 1")
        self.seed = _number(self.options, "seed", seed, -(2**63), int, 2**63 - 1)
        self.trade_days = _number(
            self.options, "trade_days", DEFAULT_TRADE_DAYS, 1, int, MAX_TRADE_DAYS
        )
        self.think_time_ms = _number(self.options, "think_time_ms", 0.0, 0, float, MAX_LATENCY_MS)
        self.volumes = Volumes(scale, self.trade_days)
        self._keys: Keys | None = None
        self.market = Market()

    @property
    def keys(self) -> Keys:
        if self._keys is None:
            self._keys = Keys(self.volumes, self.seed)
        return self._keys

    def create(self, engine: Engine, say: Callable[[str], None]) -> LoadReport:
        if engine.dialect not in self.dialects:
            raise UserError(
                f"the brokerage workload has no SQL for {engine.title} ({engine.dialect})"
            )
        return load.build(engine, self.keys, say)

    def script(self, dialect: str) -> list[Section]:
        """Tables, keys and statistics as create() runs them; the transactions' statements."""
        types = column_types(TABLES)
        render = lambda name, n: with_samples(sql.statement(dialect, name, n), types)  # noqa: E731
        note = "sample values where the driver binds parameters"
        statements = statement_section("transactions' statements", sql.STATEMENTS, render, note)
        return [*bulk_sections(TABLES, dialect), statements]

    def session(self, engine: Engine, connection: Any, user: int) -> BrokerageSession:
        return BrokerageSession(self.keys, self.market, self.seed, engine.dialect, connection, user)

    def submits(self, dialect: str) -> bool:
        # libpq's asynchronous calls and greenlet (dialects/postgres/brokerage.py)
        return registry.get(dialect).statements_without_thread

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["options"] = {
            "trade_days": self.trade_days,
            "think_time_ms": self.think_time_ms,
        }
        info["volumes"] = self.volumes.describe()
        return info
