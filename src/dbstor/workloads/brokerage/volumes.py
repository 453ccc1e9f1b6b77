"""How much of everything there is at a scale (customers), after TPC-E's ratios.

TPC-E (clause 2 of its specification) sizes its database in load units of 1,000 customers:
5 accounts per customer on average, 10 brokers, 500 companies and 685 securities per load
unit, 1,305 daily-market rows per security (five years), a 100-security watch list per
customer, about 10 holding summaries per account, and 300 initial trade days of 17,280
trades per customer (57.6 per customer per trade day) with about 2.4 trade-history rows per
trade. dbstor keeps those ratios and makes the trade depth an option (trade_days).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TRADES_PER_CUSTOMER_DAY = 57.6  # TPC-E: 17,280 trades per customer over 300 trade days
TPC_E_TRADE_DAYS = 300
DEFAULT_TRADE_DAYS = 5
MARKET_DAYS = 1305  # TPC-E: five years of DAILY_MARKET rows per security
ACCOUNTS = (1, 9)  # per customer, uniform: 5 on average (TPC-E: 1-10, 5 on average)
ACCOUNT_SLOTS = 10  # ca_id = (c_id - 1) * 10 + k, k = 1..accounts
WATCH_ITEMS = (50, 150)  # per customer: 100 on average
HOLDINGS = (5, 15)  # securities held per account: 10 on average
LOTS = (1, 4)  # holding lots per held security: 2.5 on average
LOT_SLOTS = 64  # initial lot ids: lot_base + ca_id * 64 + j (j < 15 * 4)
PENDING_SHARE = 0.01  # the newest 1% of initial trades are not settled yet
LIMIT_SHARE = 0.4  # of trades: limit orders (TLB, TLS, TSL); the rest market orders
MIN_SECURITIES = 20  # Market-Feed's ticker batch needs 20 distinct symbols
MIN_COMPANIES = 15
SECTORS = 12  # TPC-E's SECTOR table
INDUSTRIES = 102  # TPC-E's INDUSTRY table
END_DAY = 20089  # 2025-01-01: the initial data ends here (days since 1970-01-01)
END_TS = END_DAY * 86400
TRADE_ID_BLOCK = 10_000  # new trade ids are claimed in blocks by each session


@dataclass(frozen=True)
class Volumes:
    """Row counts at a scale; counts that depend on random draws are averages."""

    customers: int
    trade_days: int = DEFAULT_TRADE_DAYS

    @property
    def brokers(self) -> int:
        return max(1, math.ceil(self.customers / 100))

    @property
    def companies(self) -> int:
        return max(MIN_COMPANIES, math.ceil(self.customers * 0.5))

    @property
    def securities(self) -> int:
        return max(MIN_SECURITIES, math.ceil(self.customers * 0.685))

    @property
    def trades(self) -> int:
        return max(1, round(self.customers * TRADES_PER_CUSTOMER_DAY * self.trade_days))

    @property
    def pending(self) -> int:
        """Initial trades not yet settled: the newest ones."""
        return max(1, round(self.trades * PENDING_SHARE))

    @property
    def max_account(self) -> int:
        return self.customers * ACCOUNT_SLOTS

    @property
    def lot_base(self) -> int:
        """Initial holding lots get ids above every initial trade id."""
        return self.trades

    @property
    def first_new_trade(self) -> int:
        """The first trade id sessions may use (id_block starts here)."""
        return self.lot_base + (self.max_account + 1) * LOT_SLOTS + 1

    def expected(self) -> dict[str, float]:
        """Rows per table (averages where the count is drawn at random)."""
        accounts = self.customers * sum(ACCOUNTS) / 2
        held = min(sum(HOLDINGS) / 2, self.securities)
        return {
            "trade": self.trades,
            "trade_history": self.trades * (2 + LIMIT_SHARE) - self.pending * 1.4,
            "daily_market": self.securities * MARKET_DAYS,
            "holding": accounts * held * sum(LOTS) / 2,
            "holding_summary": accounts * held,
            "watch_item": self.customers * min(sum(WATCH_ITEMS) / 2, self.securities),
            "customer_account": accounts,
            "customer": self.customers,
            "security": self.securities,
            "last_trade": self.securities,
            "company": self.companies,
            "broker": self.brokers,
            "trade_request": self.pending * (LIMIT_SHARE),
            "status_type": 5,
            "trade_type": 5,
            "id_block": 1,
        }

    def describe(self) -> dict[str, object]:
        return {
            "customers": self.customers,
            "trade_days": self.trade_days,
            "trades_per_customer": round(TRADES_PER_CUSTOMER_DAY * self.trade_days, 1),
            "accounts_per_customer": sum(ACCOUNTS) / 2,
            "brokers": self.brokers,
            "companies": self.companies,
            "securities": self.securities,
            "market_days": MARKET_DAYS,
            "watch_items_per_customer": sum(WATCH_ITEMS) / 2,
            "holdings_per_account": sum(HOLDINGS) / 2,
            "pending_share": PENDING_SHARE,
            "rows": {k: round(v) for k, v in self.expected().items()},
        }
