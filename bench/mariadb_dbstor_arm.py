"""One arm of bench_mariadb_floor.py in its own process: dbstor's own sessions (orders,
or blocks point reads) from the dbstor source tree first on PYTHONPATH, on a running
server's socket as an external engine, for `--seconds`. Run with another tree's src (an
older commit's, `git archive`) it measures that version side by side with this one.
Prints one JSON line: transactions a second and this process's CPU microseconds per
transaction over the window.

    PYTHONPATH=/tmp/before/src python bench/mariadb_dbstor_arm.py --socket S --users 4
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import threading
import time
from typing import Any

import dbstor
from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine

NAMES = ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"]
WEIGHTS = [45, 43, 4, 4, 4]  # TPC-C's mix, as orders' default


def workload(args: argparse.Namespace) -> tuple[Any, Any]:
    """The mode's workload (built already by the bench) and its transaction picker."""
    if args.mode == "orders":
        from dbstor.workloads.orders.workload import OrdersWorkload

        orders = OrdersWorkload(args.warehouses, seed=1)
        orders.expect_users(args.users)
        return orders, lambda rng: rng.choices(NAMES, WEIGHTS)[0]
    from dbstor.workloads.blocks import BlocksWorkload

    options = {"batch": 1, "server_loop": False, "update_pct": 0}
    blocks = BlocksWorkload(args.rows, seed=1, options=options)
    blocks.expect_users(args.users)
    blocks.dialect = "mysql"
    return blocks, lambda rng: "read"


def drive(users: list[Any], pick: Any, seconds: float) -> int:
    """Closed loops until the deadline: on one epoll thread where sessions submit (as
    drivers/multiplex.py runs them), else a thread per user calling run()."""
    deadline, done = time.monotonic() + seconds, []
    if users[0].can_submit:
        rng, epoll, by_fd, n = random.Random(7), select.epoll(), {}, 0
        for s in users:
            fd = s.submit(pick(rng))
            epoll.register(fd, select.EPOLLIN)
            by_fd[fd] = s
        while time.monotonic() < deadline:
            for fd, _ in epoll.poll(0.2):
                s = by_fd[fd]
                if s.collect() is not None:
                    n += 1
                    s.submit(pick(rng))
        for s in users:
            while s.collect() is None:
                time.sleep(0.001)
        return n

    def one(s: Any) -> None:
        rng, n = random.Random(), 0
        while time.monotonic() < deadline:
            s.run(pick(rng))
            n += 1
        done.append(n)

    threads = [threading.Thread(target=one, args=(s,)) for s in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True)
    parser.add_argument("--mode", choices=("orders", "points"), default="orders")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    dsn = f"mysql://root:@localhost/?unix_socket={args.socket}"
    engine = MariaDBEngine(EngineSettings(dsn=dsn))
    built, pick = workload(args)
    conns = [engine.connect() for _ in range(args.users)]
    users = [built.session(engine, conn, u) for u, conn in enumerate(conns)]
    before, start = os.times(), time.monotonic()
    done = drive(users, pick, args.seconds)
    after, elapsed = os.times(), time.monotonic() - start
    cpu = (after.user - before.user) + (after.system - before.system)
    for conn in conns:
        conn.close()
    row = {"tps": done / elapsed, "us": cpu * 1e6 / done, "src": dbstor.__file__}
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
