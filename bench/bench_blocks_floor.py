"""Where a blocks call's client CPU goes on PostgreSQL: the floor any Python loop pays, what
the session's layers add, and what the driver (its loop thread, draw and tally) adds.

One managed PostgreSQL 15 in a memory cgroup (`--memory-limit` MiB, shared_buffers
`--buffer` MiB, so that the routine's reads reach the device), blocks' tables at 12,000
rows a user, reads only, the server-side visit loop. Three ways of driving `--users`
users for `--seconds`, taking turns (A B C C B A, then the reverse), so each way runs twice
a round and its second run is its A/A control:

- **bare**: the sessions' connections driven by an epoll loop on this thread through
  psycopg's libpq layer with nothing else: `send_query_prepared` of the prepared call,
  `consume_input`, `is_busy`, `get_result` (twice), the count read. The loop, libpq and
  the kernel: the floor.
- **sessions**: the same connections, each blocks session's own `submit()` and
  `collect()` (the layers down to libpq), on the same bare loop.
- **driver**: `VirtualUsers.run` (drivers/users.py), as `dbstor run` drives one client
  process: the loop thread of drivers/multiplex.py with its pick, clock and tally; its
  own connections. Its CPU is the driver's own figure (the loop thread over the
  measured window).

Printed: CPU microseconds per call of this thread (time.thread_time; the driver's figure
for driver) and calls a second, medians per way, the ratios of the second runs to the
first (A/A) and the load average at each round's start.

    .venv/bin/python bench/bench_blocks_floor.py --users 8 --seconds 6 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_client_path as path


def bare(sessions: list[Any], seconds: float) -> tuple[float, float]:
    """The floor: the prepared call and its reply through libpq, nothing else."""
    poll, calls = select.epoll(), {}
    for session in sessions:
        loop = session.statements  # dialects/postgres/blocks.py: ServerLoop
        calls[loop.pg.socket] = (loop.pg, loop.names["read"], loop.encoded)
        poll.register(loop.pg.socket, select.EPOLLIN)
        loop.pg.send_query_prepared(loop.names["read"], loop.encoded)
    done, cpu, end = 0, time.thread_time(), time.monotonic() + seconds
    while calls:
        for fd, _ in poll.poll(0.2):
            pg, name, values = calls[fd]
            pg.consume_input()
            if pg.is_busy():
                continue
            result = pg.get_result()
            while pg.get_result() is not None:
                pass
            int(result.get_value(0, 0))
            done += 1
            if time.monotonic() < end:
                pg.send_query_prepared(name, values)
            else:
                poll.unregister(fd)
                del calls[fd]
    cpu = time.thread_time() - cpu
    poll.close()
    return cpu * 1e6 / done, done / seconds


def through_sessions(sessions: list[Any], seconds: float) -> tuple[float, float]:
    """The sessions' own submit() and collect() on the same bare loop."""
    poll, live = select.epoll(), {}
    for session in sessions:
        fd = session.submit("read")
        live[fd] = session
        poll.register(fd, select.EPOLLIN)
    done, cpu, end = 0, time.thread_time(), time.monotonic() + seconds
    while live:
        for fd, _ in poll.poll(0.2):
            session = live[fd]
            if session.collect() is None:
                continue
            done += 1
            if time.monotonic() < end:
                session.submit("read")
            else:
                poll.unregister(fd)
                del live[fd]
    cpu = time.thread_time() - cpu
    poll.close()
    return cpu * 1e6 / done, done / seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory-limit", type=int, default=192, help="MiB")
    parser.add_argument("--buffer", type=int, default=32, help="shared_buffers MiB")
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    args = parser.parse_args()
    args.workload, args.user_counts = "blocks", [args.users]
    from dbstor.drivers.users import Instance, VirtualUsers

    engine, dsn, _ = path._serve(args)
    rows: dict[str, list[tuple[float, float]]] = {}
    loads: list[float] = []
    try:
        external = path._external(dsn, start=True)
        workload = path._workload("blocks", 12_000, args.users)
        workload.create(external, lambda line: None)
        connections = [external.connect() for _ in range(args.users)]
        sessions = [workload.session(external, c, u) for u, c in enumerate(connections)]

        def driver(seconds: float) -> tuple[float, float]:
            users = VirtualUsers([Instance(external, workload)], args.users)
            result = users.run(warmup_s=0.5, duration_s=seconds)
            return (result.client_cpu_s or 0.0) * 1e6 / max(result.commits, 1), result.tps

        ways: dict[str, Callable[[float], tuple[float, float]]] = {
            "bare": lambda s: bare(sessions, s),
            "sessions": lambda s: through_sessions(sessions, s),
            "driver": driver,
        }
        names = list(ways)
        for number in range(args.rounds):
            loads.append(os.getloadavg()[0])
            order = names + names[::-1] if number % 2 == 0 else names[::-1] + names
            for name in order:
                rows.setdefault(name, []).append(ways[name](args.seconds))
                print(f"round {number + 1}, {name}: {rows[name][-1]}", file=sys.stderr)
    finally:
        engine.stop()
        shutil.rmtree(engine.base, ignore_errors=True)
    _print(args, rows, loads)
    return 0


def _print(args: Any, rows: dict[str, list[tuple[float, float]]], loads: list[float]) -> None:
    print(
        f"blocks on PostgreSQL, {args.users} users, {args.seconds:g} s a run, {args.rounds} "
        "round(s); load average at each round's start: " + ", ".join(f"{v:.1f}" for v in loads)
    )
    print("\n| way | us CPU / call (median) | calls/s | A/A (second run / first, per round) |")
    print("|---|---:|---:|---|")
    for name, found in rows.items():
        first, second = found[0::2], found[1::2]
        aa = ", ".join(f"{b[0] / a[0]:.2f}" for a, b in zip(first, second, strict=False))
        print(
            f"| {name} | {statistics.median(r[0] for r in found):.1f} "
            f"| {statistics.median(r[1] for r in found):,.0f} | {aa} |"
        )


if __name__ == "__main__":
    raise SystemExit(main())
