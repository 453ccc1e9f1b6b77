"""dbstor's blocks workload against pgbench, side by side on one PostgreSQL.

One managed PostgreSQL server with a small shared_buffers holds pgbench's database (scale
`--pgbench-scale`) and dbstor's blocks tables (one per client, `--rows` rows each). At the
same client count the tools take turns, `--pairs` times: pgbench select-only (-S) against
blocks with no updates, and pgbench TPC-B against blocks at 25% updates (TR-4415's mix).
Measured per run: transactions (blocks: calls) per second, physical reads per second
(blocks PostgreSQL read from outside its buffers, pg_stat_database.blks_read, and bytes the
server's processes read from storage, /proc/PID/io, in 8 KiB blocks), the client's CPU per
transaction and per physical read, and the latency per transaction (blocks: per call, and
per row visit = per call / batch). Printed as medians with blocks / pgbench ratios.

blocks runs with `--batch` rows visited per call and, unless `--client-loop`, the visit loop
inside PostgreSQL (a PL/pgSQL function per table, docs/blocks.md).

    .venv/bin/python bench/bench_blocks_pgbench.py --clients 8 --duration 30 --pairs 2
    .venv/bin/python bench/bench_blocks_pgbench.py --batch 1 --client-loop   # as before
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dbstor.drivers.processes import run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.engines.postgres import SUPERUSER, PostgresEngine, find_bindir
from dbstor.workloads.blocks import BlocksWorkload

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
    tps = next(
        float(line.split()[2])
        for line in done.stdout.splitlines()
        if line.startswith("tps = ") and "without initial" in line
    )
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
    result = run_in_processes([Instance(engine, workload)], args.clients, 1, 0.0, args.duration)
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
        EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=args.buffer << 20)
    )
    results: dict[str, list[dict]] = {}
    try:
        engine.start()
        with engine._server_admin() as conn:
            conn.execute("CREATE DATABASE pgbench")
        init = [str(bindir / "pgbench"), "-i", "-q", "-s", str(args.pgbench_scale)]
        init += ["-h", str(engine.sockdir), "-p", str(engine.port), "-U", SUPERUSER, "pgbench"]
        subprocess.run(init, check=True, capture_output=True, timeout=1800)
        options: dict[str, Any] = {"server_loop": not args.client_loop}
        if args.batch is not None:
            options["batch"] = args.batch
        reads_only = BlocksWorkload(args.rows, seed=1, options={**options, "update_pct": 0})
        reads_only.expect_users(args.clients)
        reads_only.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
        mixed = BlocksWorkload(args.rows, seed=1, options={**options, "update_pct": 25})
        mixed.expect_users(args.clients)
        runs = {
            "pgbench select-only": lambda: pgbench(engine, bindir, args, True),
            "blocks 100/0": lambda: blocks(engine, reads_only, args),
            "pgbench TPC-B": lambda: pgbench(engine, bindir, args, False),
            "blocks 75/25": lambda: blocks(engine, mixed, args),
        }
        for pair in range(args.pairs):
            names = list(runs) if pair % 2 == 0 else list(reversed(runs))
            for name in names:
                row = runs[name]()
                results.setdefault(name, []).append(row)
                print(f"{name}: {row}", file=sys.stderr)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(_markdown(args, results))
    return 0


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _markdown(args: Any, results: dict[str, list[dict]]) -> str:
    loop = "client statements" if args.client_loop else "server-side loop"
    lines = [
        f"{args.clients} clients, {args.duration} s per run, {args.pairs} pair(s), "
        f"shared_buffers {args.buffer} MiB, pgbench scale {args.pgbench_scale}, blocks "
        f"{args.rows:,} rows per client, batch {args.batch or 'default'}, {loop}; medians:",
        "",
        "| run | TPS (calls/s) | physical reads/s (blks_read) | storage reads/s (8K) "
        "| client us CPU / txn | client us CPU / physical read | client cores "
        "| latency ms / txn | ms / visit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in results.items():
        lines.append(
            f"| {name} | {_median(rows, 'tps'):,.0f} | {_median(rows, 'reads_per_s'):,.0f} "
            f"| {_median(rows, 'storage_blocks_per_s'):,.0f} "
            f"| {1e3 * _median(rows, 'client_cpu_ms_per_txn'):.1f} "
            f"| {_median(rows, 'client_us_per_read'):.2f} | {_median(rows, 'client_cores'):.2f} "
            f"| {_median(rows, 'latency_ms'):.3f} | {_median(rows, 'visit_latency_ms'):.3f} |"
        )
    lines.append("")
    for ours, theirs in (
        ("blocks 100/0", "pgbench select-only"),
        ("blocks 75/25", "pgbench TPC-B"),
    ):
        a, b = results[ours], results[theirs]
        reads = _median(a, "reads_per_s") / max(_median(b, "reads_per_s"), 1e-9)
        cpu = _median(a, "client_cpu_ms_per_txn") / _median(b, "client_cpu_ms_per_txn")
        per_read_a = _median(a, "client_us_per_read")
        per_read_b = _median(b, "client_us_per_read")
        lines.append(
            f"- {ours} / {theirs}: physical reads/s x{reads:.2f}, client CPU per transaction "
            f"x{cpu:.2f}, client CPU per physical read x{per_read_a / per_read_b:.2f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
