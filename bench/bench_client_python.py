"""dbstor's own Python per orders transaction on PostgreSQL's path, one checkout against
another, with libpq taken out: what a change to the drawing, encoding and counting saves,
without the server's and the kernel's noise.

Each run is a child process (`PYTHONPATH=DIR/src`, this venv's Python) that opens 8 orders
sessions (4 warehouses) on stand-in connections whose libpq handle answers every call at
once with a one-row result (`--engine mariadb`: mysqlclient's connection, whose send_query
and reads answer at once, its literal() mysqlclient's own converters), and runs `--transactions` transactions through them in TPC-C's
mix as the driver's loop does: pick, submit (draw, encode, send), collect (read, count),
and the tally's record. The figure is the child's CPU time (time.process_time) per
transaction. It is not a load generator's cost (no socket, no server, no epoll: see
bench_client_path.py for that); it is the part of it that is dbstor's own Python. The arms
take turns in alternating pairs (A B B A, B A A B, ...), the second run of each arm its
A/A control; medians, ratios per pair and the load average are printed.

    .venv/bin/python bench/bench_client_python.py --arm before=/tmp/dbstor-before \
        --arm after=. --pairs 5
    .venv/bin/python bench/bench_client_python.py --engine mariadb --arm before=... \
        --arm after=. --pairs 5
"""

from __future__ import annotations

import argparse
import bisect
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

NAMES = ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"]
CUMULATIVE = [45, 88, 92, 96, 100]  # TPC-C's mix, as orders' default


class _Result:
    """A one-row result, as libpq's PGresult answers the calls dbstor makes."""

    ntuples = 1
    command_tuples = 1

    def __init__(self, status: int):
        self.status = status

    def get_value(self, row: int, column: int) -> bytes:
        return b"0"


class _Handle:
    """A libpq handle that answers every statement at once (no socket)."""

    socket = 3

    def __init__(self) -> None:
        from psycopg import pq

        self.status = pq.ConnStatus.OK
        self.ok = _Result(pq.ExecStatus.TUPLES_OK)
        self.left = 0

    def prepare(self, *args: Any) -> _Result:
        return self.ok

    def exec_prepared(self, *args: Any) -> _Result:
        return self.ok

    def send_query_prepared(self, name: bytes, values: list) -> None:
        self.left = 2  # a result, then the end of the reply

    def consume_input(self) -> None:
        pass

    def is_busy(self) -> bool:
        return False

    def get_result(self) -> _Result | None:
        self.left -= 1
        return self.ok if self.left == 1 else None


class _Reply:
    """What hotpath.PgReply answers (since session 17 a reply is read in C, on libpq's own
    handle, which the stand-in has not): a committed, one-row reply, at once. A Python
    call where the real one is compiled, so an arm with PgReply is charged a little more
    than it costs."""

    def __init__(self, pg: Any, failure: Any) -> None:
        pass

    def status(self) -> bool:
        return True

    def ok(self) -> bool:
        return True

    def value(self) -> int:
        return 1

    def rows(self) -> int:
        return 1


def _stand_in_reply() -> None:
    """Checkouts that read replies through PgReply get _Reply in its place."""
    from dbstor.engines import pg_prepared

    if hasattr(pg_prepared, "PgReply"):
        pg_prepared.PgReply = _Reply
        pg_prepared.bind_loaded_libpq = lambda: None


class _Connection:
    autocommit = True

    def __init__(self) -> None:
        self.pgconn = _Handle()
        self.info = type("Info", (), {"encoding": "utf-8"})()


class _MyResult:
    """A CALL's one result row (status 0), as mysqlclient's result answers it."""

    def fetch_row(self) -> tuple:
        return ((0, 1),)


class _MyConnection:
    """mysqlclient's connection as the Sender uses it, answering at once (no socket)."""

    def __init__(self) -> None:
        from MySQLdb import _mysql
        from MySQLdb.converters import conversions

        self.escape, self.conversions, self.left = _mysql.escape, conversions, 0
        self.row = _MyResult()

    def commit(self) -> None:
        pass

    def autocommit(self, on: bool) -> None:
        pass

    def literal(self, value: Any) -> bytes:
        text = self.escape(value, self.conversions)
        return text if isinstance(text, bytes) else text.encode()

    def send_query(self, text: bytes) -> None:
        self.left = 1

    def fileno(self) -> int:
        return 3

    def read_query_result(self) -> None:
        pass

    def affected_rows(self) -> int:
        return 1

    def store_result(self) -> _MyResult:
        return self.row

    def next_result(self) -> int:
        self.left -= 1
        return 0 if self.left >= 0 else -1


def child(transactions: int, engine_name: str = "postgres") -> float:
    """CPU microseconds of dbstor's Python per transaction, this process's code."""
    from dbstor.drivers.tally import Tally
    from dbstor.workloads.orders.workload import OrdersWorkload

    dialect, connect = (
        ("mysql", _MyConnection) if engine_name == "mariadb" else ("postgres", _Connection)
    )
    engine = type("Engine", (), {"dialect": dialect})()
    if engine_name == "postgres":
        _stand_in_reply()
    workload = OrdersWorkload(4, seed=1)
    sessions = [workload.session(engine, connect(), user) for user in range(8)]
    rng, tally, clock = random.Random(3), Tally(), time.monotonic
    start = time.process_time()
    for n in range(transactions):
        session = sessions[n & 7]
        txn = NAMES[bisect.bisect_right(CUMULATIVE, rng.random() * 100, 0, 4)]
        began = clock()
        session.submit(txn)
        done = session.collect()
        finished = clock()
        if done:
            tally.acknowledged[txn] += 1
        ns = (finished - began) * 1e9 + 500_000  # a server's half millisecond
        tally.record(txn, ns, n // 20_000, rolled_back=done is False)
    return (time.process_time() - start) * 1e6 / transactions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arm", action="append", default=[], help="NAME=checkout directory")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--transactions", type=int, default=100_000)
    parser.add_argument("--engine", choices=("postgres", "mariadb"), default="postgres")
    parser.add_argument("--as-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_child:
        print(child(args.transactions, args.engine))
        return 0
    arms = dict(a.split("=", 1) for a in args.arm) or {"this": "."}
    names = list(arms)
    found: dict[str, list[float]] = {}
    loads = []
    for pair in range(args.pairs):
        loads.append(os.getloadavg()[0])
        order = names + names[::-1] if pair % 2 == 0 else names[::-1] + names
        seen: set[str] = set()
        for name in order:
            key = name if name not in seen else f"{name} (A/A)"
            seen.add(name)
            env = dict(os.environ, PYTHONPATH=str(Path(arms[name]).resolve() / "src"))
            cmd = [sys.executable, __file__, "--as-child"]
            cmd += ["--transactions", str(args.transactions), "--engine", args.engine]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            found.setdefault(key, []).append(float(out.stdout.strip()))
            print(f"pair {pair + 1}, {key}: {found[key][-1]:.2f} us", file=sys.stderr)
    print(
        f"{args.transactions:,} orders transactions a run on {args.engine}'s path, "
        f"{args.pairs} pair(s); load average "
        f"at each pair's start: {', '.join(f'{v:.1f}' for v in loads)}\n"
    )
    print("| arm | dbstor's Python, us CPU / txn (median) |\n|---|---:|")
    for key, values in found.items():
        print(f"| {key} | {statistics.median(values):.2f} |")
    first, last = names[0], names[-1]
    print()
    for top, bottom in ((last, first), (f"{first} (A/A)", first), (f"{last} (A/A)", last)):
        if top != bottom and top in found and bottom in found:
            each = [a / b for a, b in zip(found[top], found[bottom], strict=True)]
            ratio = statistics.median(found[top]) / statistics.median(found[bottom])
            print(
                f"- {top} / {bottom}: x{ratio:.2f} (pairs: {', '.join(f'{v:.2f}' for v in each)})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
