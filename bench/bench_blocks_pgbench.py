"""dbstor's blocks workload against pgbench, side by side on one PostgreSQL.

One managed PostgreSQL server with a small shared_buffers holds pgbench's database (scale
`--pgbench-scale`) and dbstor's blocks tables (one per client, `--rows` rows each). With
`--memory-limit` the server runs in a memory cgroup (dbstor's own cap, engines/cgroup.py:
page cache counts against it), so that its buffer misses go to the device for both tools.
At the same client count the tools take turns, `--pairs` times, in alternating order:
pgbench select-only (-S) against blocks with no updates, each run twice in a pair (the
second run of each is the A/A control); with `--mixed` also pgbench TPC-B against blocks at
25% updates (TR-4415's mix). Measured per run: transactions (blocks: calls) per second,
buffer misses per second (pg_stat_database.blks_read), device reads per second (bytes the
server's processes read from storage, /proc/PID/io read_bytes, in 8 KiB blocks), the
client's CPU per transaction, per buffer miss and per device read, and the latency per
transaction (blocks: per call, and per row visit = per call / batch). Printed as medians
with blocks / pgbench ratios, the A/A ratios and the load average at each pair's start.

blocks runs with `--batch` rows visited per call and, unless `--client-loop`, the visit loop
inside PostgreSQL (a PL/pgSQL function per table, docs/blocks.md).

    .venv/bin/python bench/bench_blocks_pgbench.py --clients 8 --duration 30 --pairs 2
    .venv/bin/python bench/bench_blocks_pgbench.py --memory-limit 192 --buffer 32 \
        --pgbench-scale 50 --rows 12000 --pairs 3   # reads that reach the device
    .venv/bin/python bench/bench_blocks_pgbench.py --batch 1 --client-loop   # as before
"""

from __future__ import annotations

import argparse
import os
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
from dbstor.engines.postgres import SUPERUSER, PostgresEngine, find_bindir
from dbstor.workloads.blocks import BlocksWorkload
from managed_pg import pgbench_database, pgbench_tps
from pair_ratios import median, ratio_line

BLOCK = 8192


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _blks_read(engine: PostgresEngine, database: str) -> float:
    rows = engine.query(
        "SELECT blks_read FROM pg_stat_database WHERE datname = %(db)s", {"db": database}
    )
    return float(rows[0][0])


def _storage_blocks(engine: PostgresEngine) -> float:
    read, _ = engine.storage_io()
    return (read or 0.0) / BLOCK


def pgbench(engine: PostgresEngine, bindir: Path, args: Any, select_only: bool) -> dict:
    cmd = [
        str(bindir / "pgbench"), "-h", str(engine.sockdir), "-p", str(engine.port),
        "-U", SUPERUSER, "-c", str(args.clients), "-j", str(args.threads),
        "-T", str(args.duration), "-n", *(["-S"] if select_only else []), "pgbench",
    ]  # fmt: skip
    time.sleep(1.0)  # statistics are reported about once a second
    reads, storage, cpu = _blks_read(engine, "pgbench"), _storage_blocks(engine), _children_cpu()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.duration * 3 + 120)
    cpu = _children_cpu() - cpu
    time.sleep(1.0)
    reads = _blks_read(engine, "pgbench") - reads
    storage = _storage_blocks(engine) - storage
    if done.returncode != 0:
        raise SystemExit(f"pgbench failed: {done.stderr[-1000:]}")
    tps = pgbench_tps(done.stdout)
    latency = next(
        float(line.split()[3])
        for line in done.stdout.splitlines()
        if line.startswith("latency average = ")
    )
    return _row(tps, reads, storage, cpu, args.duration, latency, 1)


def blocks(engine: PostgresEngine, workload: BlocksWorkload, args: Any) -> dict:
    time.sleep(1.0)
    before = engine.counters()
    storage = _storage_blocks(engine)
    result = run_in_processes(
        UserLoad.of([Instance(engine, workload)], args.clients, 0.0, args.duration), 1
    )
    time.sleep(1.0)
    after = engine.counters()
    if result.fatal:
        raise SystemExit(f"blocks failed: {result.fatal}")
    reads = (after.physical_reads or 0) - (before.physical_reads or 0)
    storage = _storage_blocks(engine) - storage
    latency = result.latency.stats().mean or float("nan")
    batch = workload.batch
    return _row(
        result.tps, reads, storage, result.client_cpu_s or 0.0, args.duration, latency, batch
    )


def _row(
    tps: float,
    reads: float,
    storage: float,
    cpu: float,
    seconds: float,
    latency_ms: float,
    visits: int,
) -> dict:
    return {
        "tps": tps,
        "reads_per_s": reads / seconds,
        "storage_blocks_per_s": storage / seconds,
        "client_cpu_ms_per_txn": cpu * 1e3 / (tps * seconds) if tps else float("nan"),
        "client_us_per_read": cpu * 1e6 / reads if reads else float("nan"),
        "client_us_per_device_read": cpu * 1e6 / storage if storage >= 1 else float("nan"),
        "client_cores": cpu / seconds,
        "latency_ms": latency_ms,
        "visit_latency_ms": latency_ms / visits,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2, help="pgbench threads")
    parser.add_argument("--duration", type=int, default=30, help="seconds per run")
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--pgbench-scale", type=int, default=20)
    parser.add_argument("--rows", type=int, default=20000, help="blocks rows per client")
    parser.add_argument("--buffer", type=int, default=64, help="shared_buffers in MiB")
    parser.add_argument("--dir", type=Path, default=None, help="where the server's files go")
    parser.add_argument(
        "--memory-limit", type=int, default=None, help="cap the server's memory (MiB, cgroup)"
    )
    parser.add_argument("--mixed", action="store_true", help="also TPC-B against blocks 75/25")
    parser.add_argument("--batch", type=int, default=None, help="blocks rows visited per call")
    parser.add_argument(
        "--client-loop", action="store_true", help="blocks without the server-side loop"
    )
    args = parser.parse_args()
    bindir = find_bindir()
    if bindir is None:
        raise SystemExit("no PostgreSQL binaries here")
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-blocks-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine = PostgresEngine(
        EngineSettings(
            paths={"data": [base / "data"]},
            buffer_bytes=args.buffer << 20,
            memory_limit_bytes=args.memory_limit << 20 if args.memory_limit else None,
        )
    )
    results: dict[str, list[dict]] = {}
    loads: list[float] = []
    try:
        engine.start()
        args.cap = engine.cap.describe()
        print(f"memory cap: {args.cap}", file=sys.stderr)
        pgbench_database(engine, bindir, "pgbench", args.pgbench_scale)
        options: dict[str, Any] = {"server_loop": not args.client_loop}
        if args.batch is not None:
            options["batch"] = args.batch
        reads_only = BlocksWorkload(args.rows, seed=1, options={**options, "update_pct": 0})
        reads_only.expect_users(args.clients)
        reads_only.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
        runs = {
            "pgbench select-only": lambda: pgbench(engine, bindir, args, True),
            "blocks 100/0": lambda: blocks(engine, reads_only, args),
            "pgbench select-only (A/A)": lambda: pgbench(engine, bindir, args, True),
            "blocks 100/0 (A/A)": lambda: blocks(engine, reads_only, args),
        }
        if args.mixed:
            mixed = BlocksWorkload(args.rows, seed=1, options={**options, "update_pct": 25})
            mixed.expect_users(args.clients)
            runs["pgbench TPC-B"] = lambda: pgbench(engine, bindir, args, False)
            runs["blocks 75/25"] = lambda: blocks(engine, mixed, args)
        for pair in range(args.pairs):
            loads.append(os.getloadavg()[0])
            names = list(runs) if pair % 2 == 0 else list(reversed(runs))
            for name in names:
                row = runs[name]()
                results.setdefault(name, []).append(row)
                print(f"{name}: {row}", file=sys.stderr)
        args.loads = loads
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(_markdown(args, results))
    return 0


def _markdown(args: Any, results: dict[str, list[dict]]) -> str:
    loop = "client statements" if args.client_loop else "server-side loop"
    cap = f"memory cap {args.memory_limit} MiB ({args.cap})" if args.memory_limit else "no cap"
    lines = [
        f"{args.clients} clients, {args.duration} s per run, {args.pairs} pair(s), "
        f"shared_buffers {args.buffer} MiB, {cap}, pgbench scale {args.pgbench_scale}, "
        f"blocks {args.rows:,} rows per client, batch {args.batch or 'default'}, {loop}; "
        f"load average at each pair's start: {', '.join(f'{v:.1f}' for v in args.loads)}; "
        "medians:",
        "",
        "| run | TPS (calls/s) | buffer misses/s (blks_read) | device reads/s (8K) "
        "| client us CPU / txn | client us CPU / buffer miss | client us CPU / device read "
        "| client cores | latency ms / txn | ms / visit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in results.items():
        lines.append(
            f"| {name} | {median(rows, 'tps'):,.0f} | {median(rows, 'reads_per_s'):,.0f} "
            f"| {median(rows, 'storage_blocks_per_s'):,.0f} "
            f"| {1e3 * median(rows, 'client_cpu_ms_per_txn'):.1f} "
            f"| {median(rows, 'client_us_per_read'):.2f} "
            f"| {median(rows, 'client_us_per_device_read'):.2f} "
            f"| {median(rows, 'client_cores'):.2f} "
            f"| {median(rows, 'latency_ms'):.3f} | {median(rows, 'visit_latency_ms'):.3f} |"
        )
    lines.append("")
    pairs = [("blocks 100/0", "pgbench select-only")]
    pairs += [("pgbench select-only (A/A)", "pgbench select-only")]
    pairs += [("blocks 100/0 (A/A)", "blocks 100/0")]
    if "blocks 75/25" in results:
        pairs.append(("blocks 75/25", "pgbench TPC-B"))
    for ours, theirs in pairs:
        figures = (
            ("storage_blocks_per_s", "device reads/s"),
            ("client_us_per_device_read", "client CPU per device read"),
            ("reads_per_s", "buffer misses/s"),
            ("client_us_per_read", "client CPU per buffer miss"),
        )
        lines.append(ratio_line(ours, theirs, results[ours], results[theirs], figures))
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
