"""Deterministic data generation, in fixed chunks.

The data is cut into chunks whose boundaries depend only on the scale (1,000 customers,
100 securities or 50,000 trades each) and each chunk draws from its own random stream
seeded by (seed, group, chunk number). So the same seed gives the same rows whether the
chunks are generated one after another or spread over worker processes, in any order.
Random numbers are drawn in batches (randbytes) and rows built in tight loops.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from dbstor.workloads.brokerage import names
from dbstor.workloads.brokerage.keys import Keys, base_price, broker_of, tax_id, u32
from dbstor.workloads.brokerage.volumes import (
    ACCOUNT_SLOTS,
    END_DAY,
    END_TS,
    HOLDINGS,
    LOT_SLOTS,
    LOTS,
    MARKET_DAYS,
    WATCH_ITEMS,
    Volumes,
)

CUSTOMER_CHUNK = 1000
SECURITY_CHUNK = 100
TRADE_CHUNK = 50_000
# Trade types by tenths: 30% market buy, 30% market sell, 20% limit buy, 10% limit sell,
# 10% stop-loss (TPC-E's Trade-Order: 60% market, 40% limit orders, half buys).
TRADE_TYPES = ("TMB",) * 3 + ("TMS",) * 3 + ("TLB",) * 2 + ("TLS", "TSL")
STATUS_TYPES = (
    ("ACTV", "Active"),
    ("CMPT", "Completed"),
    ("CNCL", "Canceled"),
    ("PNDG", "Pending"),
    ("SBMT", "Submitted"),
)
TRADE_TYPE_ROWS = (  # tt_id, tt_name, tt_is_sell, tt_is_mrkt
    ("TLB", "Limit-Buy", 0, 0),
    ("TLS", "Limit-Sell", 1, 0),
    ("TMB", "Market-Buy", 0, 1),
    ("TMS", "Market-Sell", 1, 1),
    ("TSL", "Stop-Loss", 1, 0),
)
COMMISSION_BP = (0, 30, 20, 10)  # by customer tier 1..3, in basis points of the value
CHARGES = (0, 1000, 750, 500)  # by customer tier, cents
Rows = dict[str, list[tuple]]


@dataclass(frozen=True)
class Chunk:
    """One piece of generation: a group of tables over a key range [lo, hi)."""

    group: str  # reference | market | customers | trades
    index: int
    lo: int
    hi: int

    @property
    def tables(self) -> tuple[str, ...]:
        return GROUP_TABLES[self.group]


GROUP_TABLES: dict[str, tuple[str, ...]] = {
    "reference": ("status_type", "trade_type", "id_block", "broker", "company"),
    "market": ("security", "last_trade", "daily_market"),
    "customers": ("customer", "customer_account", "watch_item", "holding_summary", "holding"),
    "trades": ("trade", "trade_history", "trade_request"),
}


def _ranges(group: str, total: int, size: int, first: int = 1) -> Iterator[Chunk]:
    for index, lo in enumerate(range(first, total + first, size)):
        yield Chunk(group, index, lo, min(lo + size, total + first))


def chunks(volumes: Volumes) -> list[Chunk]:
    """Every chunk of the database, biggest groups first."""
    return [
        *_ranges("trades", volumes.trades, TRADE_CHUNK),
        *_ranges("customers", volumes.customers, CUSTOMER_CHUNK),
        *_ranges("market", volumes.securities, SECURITY_CHUNK, first=0),
        Chunk("reference", 0, 0, 1),
    ]


def generate(chunk: Chunk, keys: Keys) -> Rows:
    """The rows of one chunk, per table, each list in primary-key order."""
    rng = random.Random(f"{keys.seed}:{chunk.group}:{chunk.index}")
    return _GENERATORS[chunk.group](chunk, keys, rng)


def _reference(chunk: Chunk, keys: Keys, rng: random.Random) -> Rows:
    v = keys.volumes
    brokers = [
        (b, "ACTV", names.person(rng.getrandbits(16)), 0, 0) for b in range(1, v.brokers + 1)
    ]
    companies = []
    for co_id in range(1, v.companies + 1):
        industry = co_id % len(names.INDUSTRIES)
        companies.append(
            (
                co_id,
                "ACTV",
                names.company(co_id),
                names.INDUSTRIES[industry],
                names.SECTORS[industry % len(names.SECTORS)],
                names.RATINGS[rng.getrandbits(3) % len(names.RATINGS)],
                names.person(rng.getrandbits(16)),
                names.description(rng.getrandbits(16)),
                END_DAY - 365 * 5 - rng.getrandbits(14),
            )
        )
    return {
        "status_type": list(STATUS_TYPES),
        "trade_type": list(TRADE_TYPE_ROWS),
        "id_block": [("trade", v.first_new_trade)],
        "broker": brokers,
        "company": companies,
    }


def _market(chunk: Chunk, keys: Keys, rng: random.Random) -> Rows:
    v = keys.volumes
    securities, last, daily = [], [], []
    first_day = END_DAY - MARKET_DAYS
    for i in range(chunk.lo, chunk.hi):
        symb, base = keys.symbols[i], base_price(i)
        co_id = i * v.companies // v.securities + 1
        r = u32(rng, 8)
        securities.append(
            (
                symb,
                "COMMON",
                "ACTV",
                f"{names.company(co_id)} Common Stock",
                names.EXCHANGES[r[0] % 4],
                co_id,
                1_000_000 + r[1] % 999_000_000,
                END_DAY - 365 * 5 - r[2] % 3650,
                500 + r[3] % 4000,
                base + 100 + r[4] % 500,
                base - 100 - r[5] % 500,
                r[6] % 300,
                r[7] % 500,
            )
        )
        last.append((symb, END_TS, base, base, 0))
        noise = u32(rng, MARKET_DAYS)
        daily.extend(
            (
                first_day + d,
                symb,
                base + (x & 511) - 256,
                base + (x & 511) - 256 + (x >> 9 & 127),
                base + (x & 511) - 256 - (x >> 16 & 127),
                1000 + (x >> 23) * 97,
            )
            for d, x in enumerate(noise)
        )
    return {"security": securities, "last_trade": last, "daily_market": daily}


def _customers(chunk: Chunk, keys: Keys, rng: random.Random) -> Rows:
    v = keys.volumes
    customers, accounts, watch, summaries, lots = [], [], [], [], []
    n_sec, skew, symbols, counts = v.securities, keys.security_skew, keys.symbols, keys.accounts
    lot_base = v.lot_base
    h_lo, h_span = HOLDINGS[0], HOLDINGS[1] - HOLDINGS[0] + 1
    w_lo, w_span = WATCH_ITEMS[0], WATCH_ITEMS[1] - WATCH_ITEMS[0] + 1
    for c_id in range(chunk.lo, chunk.hi):
        r = u32(rng, 8)
        first, last = names.FIRST[r[0] % len(names.FIRST)], names.LAST[r[1] % len(names.LAST)]
        tier = (1, 2, 2, 2, 3)[r[2] % 5]  # TPC-E: 20% tier 1, 60% tier 2, 20% tier 3
        customers.append(
            (
                c_id,
                tax_id(c_id),
                "ACTV",
                last,
                first,
                chr(65 + r[3] % 26),
                "MF"[r[3] >> 8 & 1],
                tier,
                END_DAY - 365 * 18 - r[4] % (365 * 60),
                f"{200 + r[5] % 800}",
                f"{r[6] % 10_000_000:07d}",
                f"{first}.{last}@{names.DOMAINS[r[7] % len(names.DOMAINS)]}",
            )
        )
        items = min(n_sec, w_lo + r[5] % w_span)
        watch.extend((c_id, symbols[s]) for s in sorted(rng.sample(range(n_sec), items)))
        for k in range(counts[c_id - 1]):
            ca_id = (c_id - 1) * ACCOUNT_SLOTS + k + 1
            a = u32(rng, 3)
            accounts.append(
                (
                    ca_id,
                    broker_of(ca_id, v.brokers),
                    c_id,
                    f"{first} {last} {names.ACCOUNT_KINDS[a[0] % len(names.ACCOUNT_KINDS)]}",
                    a[1] % 3,
                    1_000_000 + a[2] % 999_000_000,
                )
            )
            held = skew.distinct(rng, min(n_sec, h_lo + a[0] % h_span))
            noise = u32(rng, 5 * len(held))
            j = 0
            for n, s in enumerate(held):
                symb, price = symbols[s], base_price(s)
                total = 0
                for m in range(LOTS[0] + noise[5 * n] % (LOTS[1] - LOTS[0] + 1)):
                    x = noise[5 * n + 1 + m]
                    qty = 100 * (1 + (x & 7))
                    total += qty
                    lots.append(
                        (
                            lot_base + ca_id * LOT_SLOTS + j,
                            ca_id,
                            symb,
                            END_TS - 86400 * (1 + (x >> 3 & 1023)) - (x >> 13 & 4095),
                            price - 200 + (x >> 25) * 3,
                            qty,
                        )
                    )
                    j += 1
                summaries.append((ca_id, symb, total))
    return {
        "customer": customers,
        "customer_account": accounts,
        "watch_item": watch,
        "holding_summary": summaries,
        "holding": lots,
    }


def _trades(chunk: Chunk, keys: Keys, rng: random.Random) -> Rows:
    v = keys.volumes
    n = chunk.hi - chunk.lo
    total, days, brokers = v.trades, v.trade_days, v.brokers
    first_pending = total - v.pending + 1
    symbols, counts = keys.symbols, keys.accounts
    customers = keys.customer_skew.picks(rng, n)
    securities = keys.security_skew.picks(rng, n)
    bits, more = u32(rng, n), u32(rng, n)
    execs, n_execs = names.EXEC_NAMES, len(names.EXEC_NAMES)
    start = (END_DAY - days) * 86400 + 9 * 3600 + 1800  # 9:30, the first trade day
    trades, history, requests = [], [], []
    for i in range(n):
        t_id = chunk.lo + i
        x, y, c = bits[i], more[i], customers[i]
        day, pos = divmod((t_id - 1) * days, total)
        dts = start + day * 86400 + pos * 23400 // total  # 6.5 trading hours a day
        ca_id = c * ACCOUNT_SLOTS + 1 + x % counts[c]
        s = securities[i]
        tt = TRADE_TYPES[(x >> 4) % 10]
        qty = 100 * (1 + (x >> 8 & 7))
        bid = base_price(s) - 100 + (y & 255)
        limit = tt[1] != "M"
        tier = 1 + (y >> 8) % 3
        chrg = CHARGES[tier]
        if t_id < first_pending:
            price = bid - 8 + (y >> 10 & 15)
            comm = qty * price * COMMISSION_BP[tier] // 10_000
            tax = comm // 4 if tt[2] == "S" else 0
            trades.append(
                (t_id, dts, "CMPT", tt, int(y >> 24 & 15 != 0), symbols[s], qty, bid,
                 ca_id, execs[(y >> 14) % n_execs], price, chrg, comm, tax, y >> 30 & 1)
            )  # fmt: skip
            if limit:
                history += ((t_id, dts + 60, "CMPT"), (t_id, dts, "PNDG"), (t_id, dts + 30, "SBMT"))
            else:
                history += ((t_id, dts + 30, "CMPT"), (t_id, dts, "SBMT"))
            continue
        status = "PNDG" if limit else "SBMT"
        trades.append(
            (t_id, dts, status, tt, 1, symbols[s], qty, bid, ca_id,
             execs[(y >> 14) % n_execs], None, chrg, 0, 0, y >> 30 & 1)
        )  # fmt: skip
        history.append((t_id, dts, status))
        if limit:
            requests.append((t_id, tt, symbols[s], qty, bid, broker_of(ca_id, brokers)))
    return {"trade": trades, "trade_history": history, "trade_request": requests}


_GENERATORS = {
    "reference": _reference,
    "market": _market,
    "customers": _customers,
    "trades": _trades,
}
