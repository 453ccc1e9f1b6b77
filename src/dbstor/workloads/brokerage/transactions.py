"""The ten transactions, each a simplification of its TPC-E namesake (clause 3 of the
specification); docs/brokerage.md lists what each keeps and drops.

Each function runs one transaction's statements on the session's cursor and returns False
only to ask for a rollback (Trade-Order's intentional 1%). Lock order, where rows are
written: trade -> holding_summary -> holding -> broker -> customer_account (Trade-Result);
last_trade by symbol, then trades by id (Market-Feed); trades by id (Trade-Update).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from dbstor.workloads.brokerage import names
from dbstor.workloads.brokerage.generate import CHARGES, COMMISSION_BP, TRADE_TYPES
from dbstor.workloads.brokerage.keys import Keys, base_price, tax_id
from dbstor.workloads.brokerage.market import Market
from dbstor.workloads.brokerage.volumes import END_DAY, END_TS, MARKET_DAYS

TAX_BP = (0, 1000, 2000)  # capital-gains tax by account tax status, basis points
ROLLBACK_SHARE = 0.01  # TPC-E rolls back 1% of Trade-Orders on purpose
TICKER = 20  # Market-Feed: symbols per ticker batch
LIMIT_SPREAD_BP = 50  # limit prices within 0.5% of the last price
PRICE_STEP_BP = 100  # Market-Feed moves a price by up to 1% ...
PRICE_PULL = 20  # ... and 1/20 of the way back toward the security's reference price


class TransactionSession(Protocol):
    """What a transaction sees of the session running it (session.BrokerageSession)."""

    keys: Keys
    market: Market
    rng: random.Random
    result: Any  # what the transaction found, for checks (Market-Watch's change)
    ordered: list[int]  # trades this session's Trade-Orders committed
    completed: list[int]  # trades its Trade-Results settled
    idle_results: int  # Trade-Results that found nothing waiting

    def rows(self, name: str, params: Sequence[Any], count: int = 0) -> list[tuple]: ...
    def one(self, name: str, params: Sequence[Any]) -> tuple | None: ...
    def write(self, name: str, params: Sequence[Any]) -> int: ...
    def now(self) -> int: ...
    def on_commit(self, action: Callable[[], None]) -> None: ...
    def on_rollback(self, action: Callable[[], None]) -> None: ...
    def next_trade_id(self) -> int: ...


S = TransactionSession  # the short name the transaction bodies use


def trade_status(s: S) -> None:
    """The 50 most recent trades of an account, with customer and broker names."""
    ca_id = s.keys.pick_account(s.rng)
    s.rows("ts_trades", (ca_id,))
    s.one("ts_names", (ca_id,))


def market_watch(s: S) -> None:
    """Change in market capitalisation of a list of securities since a past day: a
    customer's watch list (60%), an account's holdings (35%) or an industry (5%)."""
    rng, v = s.rng, s.keys.volumes
    day = END_DAY - MARKET_DAYS + rng.randrange(MARKET_DAYS)
    pick = rng.random()
    if pick < 0.60:
        row = s.one("mw_watch_list", (day, s.keys.pick_customer(rng)))
    elif pick < 0.95:
        row = s.one("mw_holdings", (day, s.keys.pick_account(rng)))
    else:
        low = rng.randint(1, v.companies)
        high = low + max(10, v.companies // 5)
        industry = names.INDUSTRIES[rng.randrange(len(names.INDUSTRIES))]
        row = s.one("mw_industry", (day, industry, low, high))
    if row and row[2]:
        s.result = float(row[1]) / float(row[2]) * 100 - 100  # percent change


def security_detail(s: S) -> None:
    """A security, its company and competitors, 5-20 days of market history, last trade."""
    rng = s.rng
    symb = s.keys.pick_symbol(rng)
    row = s.one("sd_security", (symb,))
    if row is None:
        raise LookupError(f"security {symb} not found")
    s.rows("sd_competitors", (row[3], row[1]))
    days = rng.randint(5, 20)
    s.rows("sd_daily", (symb, END_DAY - MARKET_DAYS + rng.randrange(MARKET_DAYS - days), days))
    s.one("sd_last", (symb,))


def customer_position(s: S) -> None:
    """A customer (by id or by tax id), the value of each account, and (half the time) the
    latest trades of one account with their history."""
    rng = s.rng
    c_id = s.keys.pick_customer(rng)
    if rng.random() < 0.5:
        found = s.one("cp_by_tax_id", (tax_id(c_id),))
        if found is None:
            raise LookupError(f"customer with tax id {tax_id(c_id)} not found")
        c_id = found[0]
    s.one("cp_customer", (c_id,))
    accounts = s.rows("cp_assets", (c_id,))
    if accounts and rng.random() < 0.5:
        s.rows("cp_history", (accounts[rng.randrange(len(accounts))][0],))


def trade_order(s: S) -> bool:
    """Check the account, customer, broker and security, price the order (and what selling
    it would gain), insert the trade, its history and, for a limit order, the request."""
    rng = s.rng
    ca_id = s.keys.pick_account(rng)
    account = s.one("to_account", (ca_id,))
    if account is None:
        raise LookupError(f"account {ca_id} not found")
    _, b_id, c_id, _ = account
    first, last, tier, _ = s.one("to_customer", (c_id,))
    s.one("to_broker", (b_id,))
    index = s.keys.pick_security(rng)
    symb = s.keys.symbols[index]
    s.one("to_security", (symb,))
    price = s.one("last_price", (symb,))[0]
    tt = TRADE_TYPES[rng.randrange(len(TRADE_TYPES))]
    is_market, is_sell = s.one("to_trade_type", (tt,))
    qty, lifo = 100 * rng.randint(1, 8), rng.getrandbits(1)
    held = s.one("holding_qty", (ca_id, symb))
    if held and (held[0] > 0 if is_sell else held[0] < 0):
        s.rows("to_lots_lifo" if lifo else "to_lots_fifo", (ca_id, symb))
    if is_market:
        bid, status = price, "SBMT"
    else:
        offset = price * rng.randint(1, LIMIT_SPREAD_BP) // 10_000
        bid, status = (price + offset if tt == "TLS" else price - offset), "PNDG"
    t_id, now = s.next_trade_id(), s.now()
    s.write(
        "insert_trade",
        (t_id, now, status, tt, 1, symb, qty, bid, ca_id, f"{first} {last}", CHARGES[tier], lifo),
    )
    if not is_market:
        s.write("insert_request", (t_id, tt, symb, qty, bid, b_id))
    s.write("insert_history", (t_id, now, status))
    if rng.random() < ROLLBACK_SHARE:
        return False
    s.on_commit(lambda: s.ordered.append(t_id))
    if is_market:
        s.on_commit(lambda: s.market.submit([t_id]))
    return True


def trade_result(s: S) -> None:
    """Settle a submitted trade: holdings and holding summary, commission and tax, trade
    completed with its history, broker totals, account balance."""
    t_id = s.market.take()
    if t_id is None:  # nothing waiting to settle: look at a trade and end
        s.idle_results += 1
        s.one("tr_trade", (s.rng.randint(1, s.keys.volumes.trades),))
        return
    s.on_rollback(lambda: s.market.submit([t_id], front=True))
    trade = s.one("tr_trade", (t_id,))
    if trade is None or trade[7] != "SBMT":
        return  # settled meanwhile (a retried or duplicated submission)
    ca_id, tt, symb, qty, charge, lifo, _, _ = trade
    _, is_sell, _ = s.one("tr_trade_type", (tt,))
    summary = s.one("tr_holding_qty", (ca_id, symb))
    held = summary[0] if summary else None
    b_id, c_id, tax_status = s.one("tr_account", (ca_id,))
    price = s.one("last_price", (symb,))[0]
    now = s.now()
    sign = 1 if is_sell else -1  # selling uses up long lots, buying covers short ones
    needed, bought, sold = qty, 0, 0
    if held is not None and held * sign > 0:
        for h_t_id, h_qty, h_price in s.rows(
            "tr_lots_lifo" if lifo else "tr_lots_fifo", (ca_id, symb)
        ):
            if needed == 0:
                break
            if h_qty * sign <= 0:
                continue
            take = min(abs(h_qty), needed)
            if take == abs(h_qty):
                s.write("lot_delete", (h_t_id,))
            else:
                s.write("lot_update", (h_qty - sign * take, h_t_id))
            needed -= take
            bought, sold = bought + take * h_price, sold + take * price
    if needed:
        s.write("lot_insert", (t_id, ca_id, symb, now, price, -sign * needed))
    change = -qty if is_sell else qty
    if held is None:
        s.write("summary_add", (ca_id, symb, change))
    elif held + change == 0:
        s.write("summary_delete", (ca_id, symb))
    else:
        s.write("summary_update", (held + change, ca_id, symb))
    tier = s.one("tr_tier", (c_id,))[0]
    value = qty * price
    commission = value * COMMISSION_BP[tier] // 10_000
    tax = max(0, sold - bought) * TAX_BP[tax_status] // 10_000 if is_sell else 0
    s.write("tr_complete", (commission, now, price, tax, t_id))
    s.write("insert_history", (t_id, now, "CMPT"))
    s.write("tr_broker", (commission, b_id))
    s.write("tr_balance", ((value if is_sell else -value) - charge - commission - tax, ca_id))
    s.one("tr_read_balance", (ca_id,))
    s.on_commit(lambda: s.completed.append(t_id))


def market_feed(s: S) -> None:
    """A ticker batch: new last-trade prices for 20 securities (in symbol order), then the
    limit orders those prices trigger are submitted (in trade-id order)."""
    rng = s.rng
    chosen = s.keys.security_skew.distinct(rng, TICKER)
    symbols = [s.keys.symbols[i] for i in chosen]
    prices = dict(s.rows("mf_prices", symbols, len(symbols)))
    now, triggered = s.now(), []
    for index, symb in zip(chosen, symbols, strict=True):
        old = prices[symb]
        new = max(
            100,
            old
            + (base_price(index) - old) // PRICE_PULL
            + old * rng.randint(-PRICE_STEP_BP, PRICE_STEP_BP) // 10_000,
        )
        s.write("mf_update", (new, 100 * rng.randint(1, 8), now, symb))
        triggered += [r[0] for r in s.rows("mf_triggered", (symb, new, new, new))]
    submitted = []
    for t_id in sorted(triggered):
        if s.write("mf_submit", (now, t_id)):
            s.write("insert_history", (t_id, now, "SBMT"))
            submitted.append(t_id)
        s.write("mf_drop_request", (t_id,))
    s.on_commit(lambda: s.market.submit(submitted))


def _find_trades(s: S) -> list[tuple[int, str]]:
    """Trade-Lookup's and Trade-Update's first three frames: up to 20 trades (id, executor
    name) by id (1/3), by account and time (1/3) or by security and time (1/3)."""
    rng, v = s.rng, s.keys.volumes
    start = END_TS - v.trade_days * 86400 + rng.randrange(v.trade_days * 86400)
    pick = rng.random()
    if pick < 1 / 3:
        ids = sorted({rng.randint(1, v.trades) for _ in range(20)})
        found = s.rows("tl_by_id", ids, len(ids))
    elif pick < 2 / 3:
        found = s.rows("tl_by_account", (s.keys.pick_account(rng), start, start + 3 * 86400))
    else:
        found = s.rows("tl_by_symbol", (s.keys.pick_symbol(rng), start, start + 86400))
    return sorted((row[0], row[2]) for row in found)


def trade_lookup(s: S) -> None:
    """Trades and their history by id, account or security (90%); or an account's first
    trade after a time and its lots of that security (10%, for TPC-E's holding history)."""
    rng = s.rng
    if rng.random() < 0.9:
        ids = [t_id for t_id, _ in _find_trades(s)]
        if ids:
            s.rows("tl_history", ids, len(ids))
        return
    v = s.keys.volumes
    ca_id = s.keys.pick_account(rng)
    start = END_TS - v.trade_days * 86400 + rng.randrange(v.trade_days * 86400)
    first = s.one("tl_first_trade", (ca_id, start))
    if first:
        s.rows("tl_lots", (ca_id, first[1]))


def trade_update(s: S) -> None:
    """Trade-Lookup's frames 1-3, then each trade found is updated (its executor's name
    gets or loses an ' X '), in trade-id order."""
    found = _find_trades(s)
    for t_id, name in found:
        new = name.replace(" X ", " ") if " X " in name else name.replace(" ", " X ", 1)
        s.write("tu_exec_name", (new, t_id))
    if found:
        ids = [t_id for t_id, _ in found]
        s.rows("tl_history", ids, len(ids))


def broker_volume(s: S) -> None:
    """Pending order volume of 20-40 brokers in one sector, by broker."""
    rng, brokers = s.rng, s.keys.volumes.brokers
    chosen = sorted(rng.sample(range(1, brokers + 1), min(brokers, rng.randint(20, 40))))
    sector = names.SECTORS[rng.randrange(len(names.SECTORS))]
    s.rows("bv_volume", (*chosen, sector), len(chosen))


TRANSACTIONS: dict[str, Callable[[S], bool | None]] = {
    "Trade-Status": trade_status,
    "Market-Watch": market_watch,
    "Security-Detail": security_detail,
    "Customer-Position": customer_position,
    "Trade-Order": trade_order,
    "Trade-Result": trade_result,
    "Trade-Lookup": trade_lookup,
    "Broker-Volume": broker_volume,
    "Trade-Update": trade_update,
    "Market-Feed": market_feed,
}
WRITERS = frozenset({"Trade-Order", "Trade-Result", "Trade-Update", "Market-Feed"})
