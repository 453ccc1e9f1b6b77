"""Where a workload's client CPU per transaction goes as the users grow: user and system
time and voluntary context switches (wake-ups) per transaction, and whether the server
sharing the client's CPUs explains the growth (`--pin`: the client on CPU 0, the server's
processes on CPU 1) or how long a user's state waits between its transactions
(`--server-cpu`: the server capped, fewer transactions a second at the same users).

One managed PostgreSQL 15 (32 MiB shared_buffers, as `dbstor run` sets it), `--workload`
orders (4 warehouses, its procedures), brokerage (1,000 customers) or blocks (1,000 rows a
user) as bench_users_scale.py sizes them, the users driven in this process (dbstor's one
client process: one loop thread for every user); for each user count a 5 s warm-up and `--seconds`
measured, of which the middle `--seconds - 12` are read from /proc/self (utime, stime, and
every thread's voluntary_ctxt_switches) and divided by the transactions committed in them
(TPS over the measured window times the span). Each user count runs `--rounds` times, the
counts taking turns; printed per count: the median, and the ratio to the 8-user median.

Beside each point a probe process (this file with --probe, on the client's CPUs) does fixed
Python work in units with a 1 ms sleep between them, as the client sleeps between replies:
its CPU per unit rises where the machine runs the same instructions slower, so the client's
growth divided by the probe's is what the client's own code adds.

With `--peer`, pgbench -S (prepared statements, one thread, so one client loop as dbstor's)
runs beside each dbstor point at the same clients on its own tables (scale 10) on the same
server, the two taking turns, and its process is read from /proc over the same span: a C
client with almost no state per connection, to tell growth any client sees on this machine
from growth of dbstor's own. (pgbench polls all its sockets at each wait, so part of its
own growth with clients is that.) At the end, each count's growth over the first count,
dbstor's over pgbench's per round, beside the A/A arm: each tool's growth in one round
over its growth in the next (`--rounds 2` or more).

    .venv/bin/python bench/bench_client_cost.py --users 1,8,64,256,1000 --seconds 30
    .venv/bin/python bench/bench_client_cost.py --users 1,8,256,1000 --seconds 30 --pin
    .venv/bin/python bench/bench_client_cost.py --users 8,64 --seconds 30 --server-cpu 0.3
    .venv/bin/python bench/bench_client_cost.py --workload blocks --users 1,8 --seconds 30
    .venv/bin/python bench/bench_client_cost.py --users 8,64,256,1000 --seconds 30 --peer
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from dbstor.drivers.processes import UserLoad, run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.postgres import SUPERUSER, PostgresEngine, find_bindir
from dbstor.workloads.orders.inputs import Terminal
from dbstor.workloads.orders.tpcc import Constants
from dbstor.workloads.registry import workload_class
from managed_pg import pgbench_database, pgbench_tps, small_postgres

HZ = os.sysconf("SC_CLK_TCK")
WARMUP_S, SETTLE_S = 5, 5  # the read starts this long after the measured window opens
SCALES = {"orders": 4, "brokerage": 1000, "blocks": 1000}  # as bench_users_scale.py
PEER_DB, PEER_SCALE = "pgbench", 10  # --peer: pgbench -S's database (1,000,000 accounts)


def process_counters(pid: int | str = "self") -> tuple[int, int, int]:
    """A process's user and system ticks and its threads' voluntary context switches."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    switches = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            status = Path(f"/proc/{pid}/task/{task}/status").read_text()
        except OSError:  # the thread ended
            continue
        line = next(x for x in status.splitlines() if x.startswith("voluntary_ctxt_switches"))
        switches += int(line.split()[1])
    return int(fields[11]), int(fields[12]), switches


def probe(seconds: float) -> None:
    """Fixed Python work (the draws of 20 New-Orders) done in units with a 1 ms sleep
    between, as the client sleeps between replies, for `seconds`; prints the CPU
    microseconds a unit took. Its rise from one point to another is the machine's slowdown
    of the same instructions, not dbstor's code."""
    rng = random.Random(7)
    terminal = Terminal(4, 1, rng, Constants.from_seed(1))
    units, end = 0, time.monotonic() + seconds
    start = time.process_time()
    while time.monotonic() < end:
        for _ in range(20):
            terminal.new_order()
        units += 1
        time.sleep(0.001)
    print(json.dumps({"probe_us": (time.process_time() - start) * 1e6 / units}))


def one_point(engine: PostgresEngine, workload: object, users: int, seconds: int) -> dict:
    span = seconds - 2 * SETTLE_S - 2
    read: dict[str, Any] = {}

    def watch() -> None:
        time.sleep(WARMUP_S + SETTLE_S)
        child = subprocess.Popen(  # on the client's CPUs: it inherits this process's
            [sys.executable, __file__, "--probe", str(span)], stdout=subprocess.PIPE, text=True
        )
        before = process_counters()
        time.sleep(span)
        read["delta"] = [b - a for a, b in zip(before, process_counters(), strict=True)]
        read["probe_us"] = json.loads(child.communicate(timeout=60)[0])["probe_us"]

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    result = run_in_processes(
        UserLoad.of([Instance(engine, workload)], users, WARMUP_S, seconds - WARMUP_S), 1
    )
    watcher.join()
    if result.fatal or result.client_cpu_s is None:
        raise SystemExit(f"the point failed: {result.fatal or 'no client CPU measured'}")
    row = per_transaction(result.commits / result.measured_s, span, read["delta"])
    cpu_us = result.client_cpu_s * 1e6 / result.commits
    return {**row, "cpu_us": cpu_us, "probe_us": read["probe_us"]}


def per_transaction(tps: float, span: float, delta: Sequence[int]) -> dict[str, float]:
    """TPS, and user and system CPU microseconds and wake-ups per transaction, from a
    process's counters' growth over `span` seconds (process_counters)."""
    user, system, switches = delta
    txns = tps * span
    return {
        "tps": tps,
        "user_us": user / HZ * 1e6 / txns,
        "sys_us": system / HZ * 1e6 / txns,
        "wakes": switches / txns,
    }


def peer_point(engine: PostgresEngine, bindir: Path, users: int, seconds: int) -> dict:
    """pgbench -S (prepared, one thread: one client loop, as dbstor's) at these clients on
    its own tables, its process read from /proc over the same span as one_point's."""
    span = seconds - 2 * SETTLE_S - 2
    cmd = [
        str(bindir / "pgbench"), "-h", str(engine.sockdir), "-p", str(engine.port),
        "-U", SUPERUSER, "-c", str(users), "-j", "1", "-T", str(seconds), "-n", "-S",
        "-M", "prepared", PEER_DB,
    ]  # fmt: skip
    peer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(WARMUP_S + SETTLE_S)
    before = process_counters(peer.pid)
    time.sleep(span)
    delta = [b - a for a, b in zip(before, process_counters(peer.pid), strict=True)]
    out, err = peer.communicate(timeout=seconds * 3 + 120)
    if peer.returncode != 0:
        raise SystemExit(f"pgbench failed: {err[-1000:]}")
    row = per_transaction(pgbench_tps(out), span, delta)
    return {**row, "cpu_us": row["user_us"] + row["sys_us"], "probe_us": float("nan")}


def cap_server_cpu(engine: PostgresEngine, cpus: float) -> Path:
    """The server's processes (and the backends they fork) in a CPU-quota cgroup (v1)."""
    group = Path("/sys/fs/cgroup/cpu") / f"dbstor-bench-server-{os.getpid()}"
    group.mkdir()
    (group / "cpu.cfs_period_us").write_text("100000")
    (group / "cpu.cfs_quota_us").write_text(str(int(cpus * 100_000)))
    for pid in engine.server.pids():
        with contextlib.suppress(ProcessLookupError):  # a process that has just exited
            (group / "cgroup.procs").write_text(str(pid))
    return group


def _x(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}"


def print_table(args: argparse.Namespace, tool: str, rows: dict[int, list[dict]]) -> None:
    """One tool's medians per user count, and their ratios to its own 8-user median."""
    base = {k: statistics.median(r[k] for r in rows[8]) for k in rows[8][0]} if 8 in rows else {}
    print(f"\n{tool}: {args.workload if tool == 'dbstor' else 'select-only'}, ", end="")
    print(f"{'pinned: client CPU 0, server CPU 1' if args.pin else 'not pinned'}", end="")
    print(f", server capped at {args.server_cpu} CPUs" if args.server_cpu else "")
    print(
        "| users | TPS | client us CPU / txn | x 8 users | user us | system us | wake-ups / txn "
        "| probe us / unit | probe x 8 users | client x 8 users / probe x 8 users |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for users, found in rows.items():
        med = {k: statistics.median(r[k] for r in found) for k in found[0]}
        cpu_x = med["cpu_us"] / base["cpu_us"] if base else None
        probed = base and not math.isnan(med["probe_us"])  # no probe beside the peer
        probe_x = med["probe_us"] / base["probe_us"] if probed else None
        print(
            f"| {users:,} | {med['tps']:,.0f} | {med['cpu_us']:.1f} | {_x(cpu_x)} | "
            f"{med['user_us']:.1f} | {med['sys_us']:.1f} | {med['wakes']:.2f} | "
            f"{_x(med['probe_us'] if probed else None)} | {_x(probe_x)} | "
            f"{_x(cpu_x / probe_x if cpu_x and probe_x else None)} |"
        )


def print_growth(counts: list[int], rows: dict[str, dict[int, list[dict]]]) -> None:
    """Each count's growth over the first count (client CPU per transaction), dbstor's over
    pgbench's, paired by round; beside it the A/A arm: each tool's growth in one round over
    its growth in the next (what the same client differs from itself)."""
    base, tools = counts[0], list(rows)
    print(
        f"\n| users | growth x {base} users: dbstor / pgbench -S (median of rounds) | "
        "per round | A/A dbstor round r / r+1 | A/A pgbench -S round r / r+1 |"
    )
    print("|---:|---:|---|---|---|")
    for users in counts[1:]:
        growth = {
            t: [
                b["cpu_us"] / a["cpu_us"]
                for a, b in zip(rows[t][base], rows[t][users], strict=True)
            ]
            for t in tools
        }
        paired = [d / p for d, p in zip(growth[tools[0]], growth[tools[1]], strict=True)]
        aa = {t: [g[i] / g[i + 1] for i in range(len(g) - 1)] for t, g in growth.items()}
        print(
            f"| {users:,} | {statistics.median(paired):.2f} | "
            f"{', '.join(f'{x:.2f}' for x in paired)} | "
            f"{', '.join(f'{x:.2f}' for x in aa[tools[0]]) or '-'} | "
            f"{', '.join(f'{x:.2f}' for x in aa[tools[1]]) or '-'} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=sorted(SCALES), default="orders")
    parser.add_argument("--users", default="1,8,64,256,1000")
    parser.add_argument("--seconds", type=int, default=30, help="a point, warm-up included")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pin", action="store_true", help="client on CPU 0, server on CPU 1")
    parser.add_argument(
        "--server-cpu",
        type=float,
        help="cap the server's processes at this many CPUs (a cgroup v1 CPU quota): fewer "
        "transactions a second at the same users, to tell a cost per second from one per user",
    )
    parser.add_argument(
        "--peer",
        action="store_true",
        help="at each count also run pgbench -S (prepared, one thread) on its own tables and "
        "read its process the same way: whether a C client's cost grows as dbstor's does",
    )
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    parser.add_argument("--probe", type=float, help=argparse.SUPPRESS)  # the probe's process
    args = parser.parse_args()
    if args.probe:
        probe(args.probe)
        return 0
    counts = [int(u) for u in args.users.split(",")]
    bindir = find_bindir()
    if args.peer and bindir is None:
        raise SystemExit("--peer needs pgbench: no PostgreSQL binaries here")
    engine = small_postgres(args.dir, "client", max(counts) + 8)
    tools = ["dbstor", "pgbench -S"] if args.peer else ["dbstor"]
    rows: dict[str, dict[int, list[dict]]] = {t: {u: [] for u in counts} for t in tools}
    group = None
    try:
        engine.start()
        if args.pin:  # backends fork from the postmaster and keep its CPU
            for pid in engine.server.pids():
                os.sched_setaffinity(int(pid), {1})
            os.sched_setaffinity(0, {0})
        workload = workload_class(args.workload)(SCALES[args.workload], seed=1)
        workload.expect_users(max(counts))
        workload.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
        if args.peer:
            pgbench_database(engine, bindir, PEER_DB, PEER_SCALE)
        if args.server_cpu:
            group = cap_server_cpu(engine, args.server_cpu)
        for round_ in range(args.rounds):
            for users in counts:
                for tool in tools if round_ % 2 == 0 else tools[::-1]:
                    load = os.getloadavg()[0]
                    if tool == "dbstor":
                        row = one_point(engine, workload, users, args.seconds)
                    else:
                        row = peer_point(engine, bindir, users, args.seconds)
                    rows[tool][users].append(row)
                    row["load"] = load
                    print(
                        f"round {round_ + 1}, {tool}, {users} users (load {load:.1f}): "
                        f"TPS {row['tps']:,.0f}, client {row['cpu_us']:.1f} us CPU/txn "
                        f"(user {row['user_us']:.1f}, system {row['sys_us']:.1f}), "
                        f"{row['wakes']:.2f} wake-ups/txn; probe {row['probe_us']:.1f} us a unit",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        engine.stop()
        if group is not None:
            group.rmdir()
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    for tool in tools:
        print_table(args, tool, rows[tool])
    if args.peer:
        print_growth(counts, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
