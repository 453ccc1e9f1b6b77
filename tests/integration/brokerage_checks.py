"""Shared by the brokerage integration tests (SQLite and the servers): drive every
transaction type from several threads, then check the data's invariants."""

from __future__ import annotations

import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dbstor.engines.base import Engine, ErrorKind
from dbstor.workloads.brokerage import MIX, BrokerageWorkload
from dbstor.workloads.brokerage.session import BrokerageSession
from dbstor.workloads.brokerage.sql import STATEMENTS, render, statement
from dbstor.workloads.brokerage.volumes import END_TS

# how many of an account's latest trades Trade-Status lists (its LIMIT)
TRADE_STATUS_ROWS = int(re.search(r"LIMIT (\d+)", STATEMENTS["ts_trades"]).group(1))

# signed cash a settled trade moves into its account (sells in, buys out)
SETTLED = (
    "SELECT COUNT(*), COALESCE(SUM(CASE WHEN tt_is_sell = 1 THEN t_qty * t_trade_price"
    " ELSE -t_qty * t_trade_price END - t_chrg - t_comm - t_tax), 0), COALESCE(SUM(t_comm), 0)"
    " FROM trade JOIN trade_type ON tt_id = t_tt_id WHERE t_st_id = 'CMPT' AND t_dts > ?"
)
TOTALS = (
    "SELECT (SELECT SUM(ca_bal) FROM customer_account), (SELECT SUM(b_num_trades) FROM broker),"
    " (SELECT SUM(b_comm_total) FROM broker)"
)
SUMMARY_MISMATCHES = (
    "SELECT COUNT(*) FROM holding_summary LEFT JOIN (SELECT h_ca_id, h_s_symb, SUM(h_qty) AS q"
    " FROM holding GROUP BY h_ca_id, h_s_symb) lots ON h_ca_id = hs_ca_id AND h_s_symb = hs_s_symb"
    " WHERE lots.q IS NULL OR lots.q <> hs_qty"
)
ORPHAN_LOTS = (
    "SELECT COUNT(*) FROM holding LEFT JOIN holding_summary"
    " ON hs_ca_id = h_ca_id AND hs_s_symb = h_s_symb WHERE hs_qty IS NULL"
)
REQUESTS_NOT_PENDING = (
    "SELECT COUNT(*) FROM trade_request JOIN trade ON t_id = tr_t_id WHERE t_st_id <> 'PNDG'"
)
PENDING_WITHOUT_REQUEST = (
    "SELECT COUNT(*) FROM trade LEFT JOIN trade_request ON tr_t_id = t_id"
    " WHERE t_st_id = 'PNDG' AND tr_t_id IS NULL"
)


class Recorded(BrokerageWorkload):
    """The brokerage workload, keeping the sessions it hands out."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.sessions: list[BrokerageSession] = []

    def session(self, engine: Any, connection: Any, user: int) -> BrokerageSession:
        self.sessions.append(super().session(engine, connection, user))
        return self.sessions[-1]


def committed_as_counted(result: Any, sessions: list[BrokerageSession]) -> Counter[str]:
    """What the sessions committed, by transaction, checked against what the driver
    counted (a rolled-back Trade-Order counts as a Trade-Order run); the sessions' rolled
    back ones left out of what it returns."""
    done: Counter[str] = Counter()
    for session in sessions:
        done.update(session.outcomes)
    counted = {txn: h.count for txn, h in result.per_type.items()}
    rolled_back = done.pop("rolled back", 0)
    assert counted.get("Trade-Order", 0) == done["Trade-Order"] + rolled_back
    for txn in MIX:
        if txn != "Trade-Order":
            assert counted.get(txn, 0) == done[txn], (txn, counted, done)
    return done


@dataclass
class Drive:
    """What a multi-threaded drive did."""

    sessions: list[BrokerageSession] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    retries: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def query(conn: Any, dialect: str, sql: str, params: tuple = ()) -> list[tuple]:
    cur = conn.cursor()
    cur.execute(render(sql, dialect), params)
    rows = list(cur.fetchall())
    conn.commit()
    return rows


def totals(conn: Any, dialect: str) -> tuple[int, int, int]:
    row = query(conn, dialect, TOTALS)[0]
    return int(row[0]), int(row[1]), int(row[2])


def drive(
    engine: Engine, workload: BrokerageWorkload, per_type: int, threads: int, seed: int = 7
) -> Drive:
    """Each thread (own connection, own session) runs every transaction type `per_type`
    times in a shuffled order, retrying what the engine calls retryable."""
    out = Drive()
    lock = threading.Lock()

    def user(number: int) -> None:
        conn = engine.connect()
        try:
            session = workload.session(engine, conn, number)
            with lock:
                out.sessions.append(session)
            order = [t for t in MIX for _ in range(per_type)]
            random.Random(seed + number).shuffle(order)
            for txn in order:
                for attempt in range(50):
                    try:
                        session.run(txn)
                        break
                    except Exception as exc:
                        if engine.classify(exc) == ErrorKind.RETRY and attempt < 49:
                            with lock:
                                out.retries[f"{txn}: {type(exc).__name__}: {exc}"[:160]] += 1
                            time.sleep(0.002 * (attempt + 1))
                            continue
                        with lock:
                            out.errors.append(f"{txn}: {type(exc).__name__}: {exc}")
                        break
        finally:
            conn.close()

    started = time.monotonic()
    workers = [threading.Thread(target=user, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)
    out.seconds = time.monotonic() - started
    return out


def check_invariants(conn: Any, dialect: str, before: tuple[int, int, int], run: Drive) -> None:
    """The data is consistent after a drive; raises AssertionError saying what is not."""
    assert query(conn, dialect, SUMMARY_MISMATCHES)[0][0] == 0, "holding_summary != sum(holding)"
    assert query(conn, dialect, ORPHAN_LOTS)[0][0] == 0, "holding lots without a summary"
    assert query(conn, dialect, REQUESTS_NOT_PENDING)[0][0] == 0, "requests of non-pending trades"
    assert query(conn, dialect, PENDING_WITHOUT_REQUEST)[0][0] == 0, "pending trades, no request"
    # cash: every settled trade moved its amount into its account, and counted at its broker
    settled, amount, commission = query(conn, dialect, SETTLED, (END_TS,))[0]
    after = totals(conn, dialect)
    completed = sum(len(s.completed) for s in run.sessions)
    assert int(settled) == completed, (settled, completed)
    assert after[0] - before[0] == int(amount), "account balances moved by other than settlements"
    assert after[1] - before[1] == completed, "broker trade counts"
    assert after[2] - before[2] == int(commission), "broker commissions"
    # every committed Trade-Order is there, with its history, and the lookups find it
    ordered = [t for s in run.sessions for t in s.ordered]
    assert ordered, "no Trade-Order committed"
    assert len(set(ordered)) == len(ordered), "a trade id was used twice"
    cur = conn.cursor()
    for t_id in ordered[:: max(1, len(ordered) // 40)]:
        cur.execute(statement(dialect, "tl_by_id", 1), (t_id,))
        found = cur.fetchall()
        assert [r[0] for r in found] == [t_id], f"Trade-Lookup does not find trade {t_id}"
        cur.execute(render("SELECT t_ca_id, t_dts FROM trade WHERE t_id = ?", dialect), (t_id,))
        ca_id, dts = cur.fetchone()
        cur.execute(statement(dialect, "ts_trades"), (ca_id,))
        listed = cur.fetchall()
        # Trade-Status lists an account's latest TRADE_STATUS_ROWS trades: this one, unless
        # that many as recent came after it (220 users on 100 customers can do that)
        newer = len(listed) == TRADE_STATUS_ROWS and all(r[1] >= dts for r in listed)
        assert t_id in [r[0] for r in listed] or newer, f"Trade-Status misses trade {t_id}"
        cur.execute(statement(dialect, "tl_history", 1), (t_id,))
        assert cur.fetchall(), f"trade {t_id} has no history"
    conn.commit()
