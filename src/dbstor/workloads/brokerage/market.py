"""The market the sessions of one database share: TPC-E's market exchange emulator,
reduced to a queue of submitted trades waiting for a Trade-Result."""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from dbstor.workloads.brokerage.sql import statement


class Market:
    """TPC-E's market exchange emulator, reduced to a queue: trades submitted to the
    market (market orders, triggered limit orders) wait here for a Trade-Result. Shared
    by the sessions of one database (threads); seeded once with the initial data's
    submitted trades."""

    def __init__(self) -> None:
        self.waiting: deque[int] = deque()
        self.lock = threading.Lock()
        self.seeded = False
        self.sessions = itertools.count()

    def submit(self, trades: Iterable[int], front: bool = False) -> None:
        if front:
            self.waiting.extendleft(trades)
        else:
            self.waiting.extend(trades)

    def take(self) -> int | None:
        try:
            return self.waiting.popleft()
        except IndexError:
            return None

    def seed(self, conn: Any, dialect: str, first_pending: int) -> None:
        with self.lock:
            if self.seeded:
                return
            cur = conn.cursor()
            cur.execute(statement(dialect, "submitted"), (first_pending,))
            self.waiting.extend(row[0] for row in cur.fetchall())
            conn.commit()
            self.seeded = True
