"""What orders' PostgreSQL backends wait on at a given user count: pg_stat_activity sampled
every 5 ms over a point's middle, as shares of the client backends' samples (on CPU is
`active` with no wait event; waiting for the client is Client:ClientRead; a state with no
wait event, such as idle, by its name).

One managed PostgreSQL 15 (32 MiB shared_buffers, as `dbstor run` sets it), orders at 4
warehouses with its procedures, the users driven as `dbstor run` drives them (one loop
thread in this process); per user count a point of 5 s warm-up and 25 s measured, sampled
from its 8th second for 20 s.

    .venv/bin/python bench/bench_server_waits.py --users 4,8
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from dbstor.drivers.processes import UserLoad, run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.postgres import PostgresEngine
from dbstor.workloads.orders.workload import OrdersWorkload
from managed_pg import small_postgres

SAMPLE = """SELECT state, wait_event_type, wait_event FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"""
WARMUP_S, MEASURED_S, SKIP_S, SAMPLED_S, EVERY_S = 5, 25, 8, 20, 0.005


def waits_at(engine: PostgresEngine, workload: OrdersWorkload, users: int) -> tuple:
    """The point's TPS and its backends' states, counted over the samples."""
    seen: Counter[str] = Counter()

    def sample() -> None:
        conn = engine.connect()
        conn.autocommit = True
        time.sleep(SKIP_S)
        end = time.monotonic() + SAMPLED_S
        while time.monotonic() < end:
            for state, kind, event in conn.execute(SAMPLE):
                seen[f"{kind}:{event}" if kind else "on CPU" if state == "active" else state] += 1
            time.sleep(EVERY_S)
        conn.close()

    sampler = threading.Thread(target=sample)
    sampler.start()
    result = run_in_processes(
        UserLoad.of([Instance(engine, workload)], users, WARMUP_S, MEASURED_S), 1
    )
    sampler.join()
    if result.fatal:
        raise SystemExit(f"the point failed: {result.fatal}")
    return result.commits / result.measured_s, seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default="4,8")
    parser.add_argument("--top", type=int, default=8, help="states shown per count")
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    args = parser.parse_args()
    counts = [int(u) for u in args.users.split(",")]
    engine = small_postgres(args.dir, "waits", max(counts) + 4)
    try:
        engine.start()
        workload = OrdersWorkload(4, seed=1)
        workload.expect_users(max(counts))
        workload.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
        print("| users | TPS | state | share of backend samples |")
        print("|---:|---:|---|---:|")
        for users in counts:
            tps, seen = waits_at(engine, workload, users)
            total = sum(seen.values())
            for state, n in seen.most_common(args.top):
                print(f"| {users} | {tps:,.0f} | {state} | {100 * n / total:.1f}% |", flush=True)
    finally:
        engine.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
