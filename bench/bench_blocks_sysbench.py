"""dbstor's blocks workload against sysbench oltp_point_select, side by side on one MariaDB.

MariaDB's counterpart of bench_blocks_pgbench.py (issue 39: the client's CPU per device
read against the peer a user would pick). One managed MariaDB with a small buffer pool
(`--buffer` MiB) holds sysbench's sbtest tables (`--tables` x `--table-size` rows) and
dbstor's blocks tables (one per client, `--rows` rows each, reads only). InnoDB reads its
data files with O_DIRECT (dbstor's my.cnf), so a buffer-pool miss is a read of the device,
not of the page cache; `--memory-limit` also runs the server in a memory cgroup (dbstor's
own cap). At the same client count the tools take turns, `--pairs` times, in alternating
order: sysbench, blocks, sysbench again, blocks again (the second run of each is the A/A
control). Measured per run: transactions (blocks: calls) per second, buffer-pool misses per
second (Innodb_buffer_pool_reads), device reads per second (bytes mariadbd read from
storage, /proc/PID/io read_bytes, in InnoDB pages of 16 KiB), the client's CPU per
transaction and per device read (sysbench: its process; blocks: dbstor's client over the
measured window). Printed as medians with blocks / sysbench ratios, the A/A ratios and the
load average at each pair's start.

sysbench is not part of dbstor: Debian's sysbench 1.0.20 (sh bench/install_peers.sh).

    .venv/bin/python bench/bench_blocks_sysbench.py --clients 8 --duration 30 --pairs 3 \\
        --buffer 32 --memory-limit 512 --tables 4 --table-size 250000 --rows 4000
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dbstor.drivers.processes import UserLoad, run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from dbstor.workloads.blocks import BlocksWorkload
from pair_ratios import median, ratio_line

PAGE = 16384  # InnoDB's page
TPS = re.compile(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec\.\)")
LATENCY = re.compile(r"avg:\s+([\d.]+)")


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _status(engine: MariaDBEngine, name: str) -> float:
    with engine._admin() as conn, conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE %s", (name,))
        return float(cur.fetchone()[1])


def _device_pages(engine: MariaDBEngine) -> float:
    read, _ = engine.storage_io()
    return (read or 0.0) / PAGE


def _sysbench(engine: MariaDBEngine, args: Any, command: str, threads: int) -> str:
    assert engine.sockdir is not None
    cmd = [
        "sysbench", "oltp_point_select", "--db-driver=mysql",
        f"--mysql-socket={engine.sockdir / 'mysqld.sock'}", "--mysql-user=root",
        "--mysql-db=sbtest", f"--tables={args.tables}", f"--table-size={args.table_size}",
        f"--threads={threads}", f"--time={args.duration}", "--report-interval=0",
        "--rand-type=uniform", command,
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.duration * 3 + 1800)
    if done.returncode != 0:
        raise SystemExit(f"sysbench {command} failed: {(done.stderr or done.stdout)[-1000:]}")
    return done.stdout


def sysbench(engine: MariaDBEngine, args: Any) -> dict:
    time.sleep(1.0)
    misses, device = _status(engine, "Innodb_buffer_pool_reads"), _device_pages(engine)
    cpu = _children_cpu()
    out = _sysbench(engine, args, "run", args.clients)
    cpu = _children_cpu() - cpu
    misses = _status(engine, "Innodb_buffer_pool_reads") - misses
    device = _device_pages(engine) - device
    found, latency = TPS.search(out), LATENCY.search(out)
    if not found or not latency:
        raise SystemExit(f"sysbench printed no transactions: {out[-1000:]}")
    return _row(float(found.group(2)), misses, device, cpu, args.duration, float(latency.group(1)))


def blocks(engine: MariaDBEngine, workload: BlocksWorkload, args: Any) -> dict:
    time.sleep(1.0)
    misses, device = _status(engine, "Innodb_buffer_pool_reads"), _device_pages(engine)
    load = UserLoad.of([Instance(engine, workload)], args.clients, 0.0, args.duration)
    result = run_in_processes(load, 1)
    if result.fatal:
        raise SystemExit(f"blocks failed: {result.fatal}")
    misses = _status(engine, "Innodb_buffer_pool_reads") - misses
    device = _device_pages(engine) - device
    latency = result.latency.stats().mean or float("nan")
    return _row(result.tps, misses, device, result.client_cpu_s or 0.0, args.duration, latency)


def _row(tps: float, misses: float, device: float, cpu: float, seconds: float, lat: float) -> dict:
    return {
        "tps": tps,
        "misses_per_s": misses / seconds,
        "device_reads_per_s": device / seconds,
        "client_us_per_txn": cpu * 1e6 / (tps * seconds) if tps else float("nan"),
        "client_us_per_device_read": cpu * 1e6 / device if device >= 1 else float("nan"),
        "client_cores": cpu / seconds,
        "latency_ms": lat,
    }


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=int, default=30, help="seconds per run")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--tables", type=int, default=4, help="sysbench tables")
    parser.add_argument("--table-size", type=int, default=250000, help="sysbench rows a table")
    parser.add_argument("--rows", type=int, default=4000, help="blocks rows per client")
    parser.add_argument("--buffer", type=int, default=32, help="innodb_buffer_pool_size, MiB")
    parser.add_argument("--memory-limit", type=int, default=None, help="server cap, MiB")
    parser.add_argument("--batch", type=int, default=None, help="blocks rows visited per call")
    parser.add_argument("--dir", type=Path, default=None, help="where the server's files go")
    args = parser.parse_args()
    if shutil.which("sysbench") is None:
        raise SystemExit("no sysbench here: run sh bench/install_peers.sh first")
    return args


def main() -> int:
    args = _arguments()
    print(f"command: {' '.join(sys.argv)}", file=sys.stderr)
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-sysbench-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    limit = args.memory_limit << 20 if args.memory_limit else None
    engine = MariaDBEngine(
        EngineSettings(
            paths={"data": [base / "data"]}, buffer_bytes=args.buffer << 20,
            memory_limit_bytes=limit,
        )
    )  # fmt: skip
    results: dict[str, list[dict]] = {}
    try:
        engine.start()
        args.cap = engine.cap.describe()
        print(f"memory cap: {args.cap}", file=sys.stderr)
        with engine._admin() as conn, conn.cursor() as cur:
            cur.execute("CREATE DATABASE sbtest")
        wall = time.monotonic()
        _sysbench(engine, args, "prepare", 2)
        print(f"sysbench prepare: {time.monotonic() - wall:.1f} s", file=sys.stderr)
        options: dict[str, Any] = {"update_pct": 0}
        if args.batch is not None:
            options["batch"] = args.batch
        workload = BlocksWorkload(args.rows, seed=1, options=options)
        workload.expect_users(args.clients)
        workload.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
        runs = {
            "sysbench oltp_point_select": lambda: sysbench(engine, args),
            "blocks 100/0": lambda: blocks(engine, workload, args),
            "sysbench (A/A)": lambda: sysbench(engine, args),
            "blocks 100/0 (A/A)": lambda: blocks(engine, workload, args),
        }
        args.loads = []
        for pair in range(args.pairs):
            args.loads.append(os.getloadavg()[0])
            names = list(runs) if pair % 2 == 0 else list(reversed(runs))
            for name in names:
                row = runs[name]()
                results.setdefault(name, []).append(row)
                print(f"{name}: {row}", file=sys.stderr)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(_markdown(args, results, workload.batch))
    return 0


def _markdown(args: Any, results: dict[str, list[dict]], batch: int) -> str:
    cap = f"memory cap {args.memory_limit} MiB ({args.cap})" if args.memory_limit else "no cap"
    lines = [
        f"{args.clients} clients, {args.duration} s per run, {args.pairs} pair(s), "
        f"innodb_buffer_pool_size {args.buffer} MiB, {cap}, sysbench {args.tables} x "
        f"{args.table_size:,} rows, blocks {args.rows:,} rows per client, batch {batch}; "
        f"load average at each pair's start: {', '.join(f'{v:.1f}' for v in args.loads)}; "
        "medians:",
        "",
        "| run | TPS (calls/s) | buffer-pool misses/s | device reads/s (16K) "
        "| client us CPU / txn | client us CPU / device read | client cores | latency ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in results.items():
        lines.append(
            f"| {name} | {median(rows, 'tps'):,.0f} | {median(rows, 'misses_per_s'):,.0f} "
            f"| {median(rows, 'device_reads_per_s'):,.0f} "
            f"| {median(rows, 'client_us_per_txn'):.1f} "
            f"| {median(rows, 'client_us_per_device_read'):.2f} "
            f"| {median(rows, 'client_cores'):.2f} | {median(rows, 'latency_ms'):.3f} |"
        )
    lines.append("")
    for ours, theirs in (
        ("blocks 100/0", "sysbench oltp_point_select"),
        ("sysbench (A/A)", "sysbench oltp_point_select"),
        ("blocks 100/0 (A/A)", "blocks 100/0"),
    ):
        figures = (
            ("device_reads_per_s", "device reads/s"),
            ("client_us_per_device_read", "client CPU per device read"),
            ("misses_per_s", "buffer-pool misses/s"),
        )
        lines.append(ratio_line(ours, theirs, results[ours], results[theirs], figures))
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
