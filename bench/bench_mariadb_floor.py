"""MariaDB's client CPU per transaction by driver: the floor of each candidate, dbstor's
own sessions, and sysbench's oltp_point_select as the peer for point reads.

One managed MariaDB (as `dbstor run` starts one; `innodb_flush_log_at_trx_commit = 2`
set globally, so that the commit does not wait for the disk and the client is the bound)
holds orders at `--warehouses` and sysbench's table sbtest1 (`--rows`). Each arm keeps one
transaction in flight per user for `--seconds`; the arms take turns in an order that
alternates from round to round, `--rounds` times, and the first arm runs twice a round
(its second run, suffixed "again", is the A/A control). Arms:

- orders, pre-drawn: 2,000 New-Order/Payment/... CALLs drawn up front through orders'
  own inputs, then sent as fast as replies come back by each driver: `pymysql`,
  `mariadb` (Connector/Python 1.1, C over libmariadb), `mysqlclient` (C over
  libmariadb), a thread per user; `mysqlclient-loop`: every user on one thread,
  send_query() and read_query_result() apart on an epoll loop; `asyncmy`: one asyncio
  loop. `dbstor`: the orders sessions dbstor runs (drawing, encoding, counting), a thread
  per user or, where the session can submit, on the multiplexing loop as dbstor drives it,
  in a process of their own (mariadb_dbstor_arm.py); `dbstor-before`: the same from
  another source tree (`--before-src`, e.g. `git archive` of an older commit).
- points: `SELECT c FROM sbtest1 WHERE id = ?` with a random id, per driver as above;
  `sysbench`: oltp_point_select with as many threads (its CPU from getrusage of children);
  `dbstor`/`dbstor-before`: blocks sessions at batch 1 without the server loop (one point
  select a transaction, `SELECT COUNT(version) FROM user_k WHERE id = %s`).

The comparison arms need their drivers, which dbstor itself does not: `pip install PyMySQL
mariadb asyncmy` (mariadb 1.1 builds against libmariadb-dev, as mysqlclient does). Printed
per arm: transactions a second, client user+system microseconds per transaction
(os.times over the window) and the ratio of medians to the first arm, with the load
average at each round's start.

    .venv/bin/python bench/bench_mariadb_floor.py --mode orders --users 4,8 --seconds 15
    .venv/bin/python bench/bench_mariadb_floor.py --mode points --users 8 --seconds 15
    git archive COMMIT src | tar -x -C /tmp/before   # then --before-src /tmp/before/src
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from dbstor.workloads.blocks import BlocksWorkload
from dbstor.workloads.orders.workload import OrdersWorkload
from mariadb_arms import ARMS, orders_calls, point_calls, run_arm, run_dbstor

BUFFER = 256 << 20


def start(where: Path) -> MariaDBEngine:
    """A managed server in a fresh folder under `where` (removed again by main())."""
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-mariadb-", dir=where))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine = MariaDBEngine(EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=BUFFER))
    engine.start()
    engine.query("SET GLOBAL innodb_flush_log_at_trx_commit = 2")
    return engine


def sysbench_args(engine: MariaDBEngine, rows: int, threads: int) -> list[str]:
    socket = str(engine.sockdir / "mysqld.sock")
    return [
        "sysbench",
        "oltp_point_select",
        "--db-driver=mysql",
        f"--mysql-socket={socket}",
        "--mysql-user=root",
        f"--mysql-db={engine.database}",
        "--tables=1",
        f"--table-size={rows}",
        f"--threads={threads}",
    ]


def run_sysbench(engine: MariaDBEngine, rows: int, users: int, seconds: float) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [*sysbench_args(engine, rows, users), f"--time={int(seconds)}", "run"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next(x for x in out.splitlines() if "transactions:" in x)
    done = float(line.split()[1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"tps": done / seconds, "us": cpu * 1e6 / done}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("orders", "points"), default="orders")
    parser.add_argument("--users", default="4,8")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--arms", default="")
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    parser.add_argument("--before-src", type=Path, default=None)
    args = parser.parse_args()
    counts = [int(u) for u in args.users.split(",")]
    engine = start(args.dir)
    say = lambda line: print(f"  {line}", file=sys.stderr, flush=True)  # noqa: E731
    rows: dict[tuple[int, str], list[dict]] = {}
    try:
        workload = OrdersWorkload(args.warehouses, seed=1)
        if args.mode == "orders":
            workload.expect_users(max(counts))
            workload.create(engine, say)
            calls = orders_calls(engine, workload, max(counts))
            arms = ["pymysql", *ARMS[1:], "dbstor"]
        else:
            if shutil.which("sysbench") is None:
                raise SystemExit("sysbench is missing: apt-get install sysbench")
            prep = [*sysbench_args(engine, args.rows, 1), "prepare"]
            subprocess.run(prep, capture_output=True, check=True)
            calls = point_calls(args.rows)
            blocks = {"batch": 1, "server_loop": False, "update_pct": 0}
            points = BlocksWorkload(args.rows, seed=1, options=blocks)
            points.expect_users(max(counts))
            points.create(engine, say)
            arms = ["pymysql", *ARMS[1:], "sysbench", "dbstor"]
        arms = args.arms.split(",") if args.arms else arms
        if args.before_src and not args.arms:
            arms.append("dbstor-before")
        trees = {"dbstor": Path(__file__).parents[1] / "src", "dbstor-before": args.before_src}
        scale = args.warehouses if args.mode == "orders" else args.rows
        arms = [arms[0], *arms[1:], arms[0] + "-again"]
        for users in counts:
            for round_ in range(args.rounds):
                load = os.getloadavg()[0]
                order = arms if round_ % 2 == 0 else arms[::-1]
                for arm in order:
                    way = arm.removesuffix("-again")
                    if way == "sysbench":
                        row = run_sysbench(engine, args.rows, users, args.seconds)
                    elif way in trees:
                        tree = trees[way]
                        row = run_dbstor(tree, engine, args.mode, users, args.seconds, scale)
                    else:
                        row = run_arm(way, engine, calls, users, args.seconds)
                    rows.setdefault((users, arm), []).append(row)
                    say(
                        f"{users} users, round {round_ + 1} (load {load:.1f}), {arm}: "
                        f"TPS {row['tps']:,.0f}, {row['us']:.1f} us a txn"
                    )
    finally:
        engine.stop()
        shutil.rmtree(Path(engine.settings.paths["data"][0]).parent, ignore_errors=True)
    print(f"load average now {os.getloadavg()[0]:.1f}")
    print("| users | arm | TPS | client us / txn | x first arm |")
    print("|---:|---|---:|---:|---:|")
    for users in counts:
        first = statistics.median(r["us"] for r in rows[(users, arms[0])])
        for arm in arms:
            found = rows[(users, arm)]
            tps = statistics.median(r["tps"] for r in found)
            us = statistics.median(r["us"] for r in found)
            print(f"| {users} | {arm} | {tps:,.0f} | {us:.1f} | {us / first:.2f} |")
    return 0


if __name__ == "__main__":
    random.seed(1)
    time.tzset()
    raise SystemExit(main())
