"""How much of orders' client CPU per transaction is dbstor's own and how much any Python
loop on the same connections pays: the floor under bench_client_cost.py's figures.

One managed PostgreSQL 15 (32 MiB shared_buffers, as `dbstor run` sets it) with orders at
4 warehouses; `--users` connections opened as dbstor's sessions are, and driven for
`--seconds` by a bare epoll loop on this thread, in one of two ways, the ways taking turns
`--rounds` times:

- **floor**: the same prepared CALLs through the same libpq handles, their parameters
  drawn and encoded before the clock starts (2,000 of them, picked at random): the loop,
  psycopg's libpq layer and the kernel only.
- **dbstor**: each session's own submit() and collect() (drawing, encoding, calling and
  counting a transaction), as drivers/multiplex.py calls them, without its tally.

Printed: user and system CPU microseconds per transaction (os.times over the window) and
TPS, medians over the rounds; dbstor less floor is what dbstor's own Python adds.

    .venv/bin/python bench/bench_client_floor.py --users 4,8 --seconds 20 --rounds 3
"""

from __future__ import annotations

import argparse
import bisect
import os
import random
import select
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.engines.pg_prepared import encode
from dbstor.workloads.orders.workload import OrdersWorkload
from managed_pg import small_postgres

NAMES = ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"]
CUMULATIVE = [45, 88, 92, 96, 100]  # TPC-C's mix, as orders' default
PRE_DRAWN = 2000


def _pick(rng: random.Random) -> str:
    return NAMES[bisect.bisect_right(CUMULATIVE, rng.random() * 100, 0, 4)]


def bare_calls(sessions: list[Any], rng: random.Random) -> tuple[Callable, Callable]:
    """send and receive for the floor: PRE_DRAWN calls drawn and encoded up front, sent
    and read through each session's libpq handle."""
    server = sessions[0].server
    calls = []
    for _ in range(PRE_DRAWN):
        name, params = server._call(sessions[0].draw(_pick(rng)))
        calls.append((server.caller.prepared.names[name], [encode(p) for p in params]))

    def send(session: Any) -> int:
        pg = session.server.caller.prepared.pg
        pg.send_query_prepared(*calls[rng.randrange(PRE_DRAWN)])
        return pg.socket

    def receive(session: Any) -> bool | None:
        pg = session.server.caller.prepared.pg
        pg.consume_input()
        while not pg.is_busy():
            if pg.get_result() is None:
                return True
        return None

    return send, receive


def own_calls(rng: random.Random) -> tuple[Callable, Callable]:
    """send and receive for dbstor's way: each session's own submit() and collect()."""

    def send(session: Any) -> int:
        return session.submit(_pick(rng))

    def receive(session: Any) -> bool | None:
        return session.collect()

    return send, receive


def drive(sessions: list[Any], way: str, seconds: float) -> dict[str, float]:
    """Keep one transaction in flight per session for `seconds`; CPU per transaction."""
    rng = random.Random(3)
    send, receive = bare_calls(sessions, rng) if way == "floor" else own_calls(rng)
    epoll, by_fd = select.epoll(), {}
    for session in sessions:
        fd = send(session)
        epoll.register(fd, select.EPOLLIN)
        by_fd[fd] = session
    done, start, before = 0, time.monotonic(), os.times()
    while time.monotonic() < start + seconds:
        for fd, _ in epoll.poll(0.2):
            session = by_fd[fd]
            if receive(session) is not None:
                done += 1
                send(session)
    after, elapsed = os.times(), time.monotonic() - start
    for session in sessions:  # each has one reply to come: read it, so that the next way
        while receive(session) is None:  # starts on idle connections
            time.sleep(0.001)
    epoll.close()
    return {
        "tps": done / elapsed,
        "user_us": (after.user - before.user) * 1e6 / done,
        "sys_us": (after.system - before.system) * 1e6 / done,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default="4,8")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    args = parser.parse_args()
    counts = [int(u) for u in args.users.split(",")]
    engine = small_postgres(args.dir, "floor", 64)
    rows: dict[tuple[int, str], list[dict]] = {}
    try:
        engine.start()
        workload = OrdersWorkload(4, seed=1)
        workload.expect_users(max(counts))
        workload.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
        for users in counts:
            sessions = [workload.session(engine, engine.connect(), u) for u in range(users)]
            for round_ in range(args.rounds):
                for way in ("floor", "dbstor") if round_ % 2 == 0 else ("dbstor", "floor"):
                    row = drive(sessions, way, args.seconds)
                    rows.setdefault((users, way), []).append(row)
                    print(
                        f"{users} users, {way}, round {round_ + 1}: TPS {row['tps']:,.0f}, "
                        f"user {row['user_us']:.1f} us, system {row['sys_us']:.1f} us a txn",
                        file=sys.stderr,
                        flush=True,
                    )
            for session in sessions:
                session.conn.close()
    finally:
        engine.stop()
    print("| users | way | TPS | user us / txn | system us / txn | total us / txn |")
    print("|---:|---|---:|---:|---:|---:|")
    for (users, way), found in rows.items():
        med = {k: statistics.median(r[k] for r in found) for k in found[0]}
        total = med["user_us"] + med["sys_us"]
        print(
            f"| {users} | {way} | {med['tps']:,.0f} | {med['user_us']:.1f} | "
            f"{med['sys_us']:.1f} | {total:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
