"""The load generator's own CPU per transaction, one version of dbstor's code against
another, on the same PostgreSQL (or MariaDB: `--engine mariadb`) server: the before and
after of a change to the hot path.

One managed PostgreSQL 15 (or MariaDB, `innodb_flush_log_at_trx_commit = 2`: the redo log
flushed once a second, the client-bound regime) is started with this checkout's code and
holds the workload's tables, reached as an external server (a DSN on its Unix socket,
schema or database `dbstor`). Then
each arm's code runs the same load against it in a child process (`PYTHONPATH=DIR/src`,
this venv's Python and packages): `dbstor run`'s driver (drivers/processes.py, one client
process, every user on its loop thread), `--users` users, `--seconds` measured after a
2 s warm-up. The arms take turns in alternating pairs, A B B A then B A A B ..., every
arm run twice a pair: the second run of each arm is its A/A control.

- `--workload orders`: 4 warehouses (`--scale`), `synchronous_commit = off` (no WAL flush
  wait: the client-bound regime issue 39 names), shared_buffers 32 MiB.
- `--workload blocks`: `--scale` rows per user, reads only, the server in a memory cgroup
  of `--memory-limit` MiB with shared_buffers `--buffer` MiB, so that reads reach the
  device.
- `--workload brokerage`: `--scale` customers (default 100), TPC-E's mix.

Per run: the client's CPU (user + system of the client process over the measured window,
the driver's own figure) per transaction, per New-Order (orders) and per device read
(blocks: bytes the server's processes read from storage / 8 KiB); transactions a second.
Printed: medians per arm, the ratio of the second arm to the first per pair with the
A/A ratios beside it, and the load average at each pair's start.

    .venv/bin/python bench/bench_client_path.py --workload orders --users 4,8 \
        --arm before=/tmp/dbstor-before --arm after=. --pairs 3 --seconds 15
    .venv/bin/python bench/bench_client_path.py --workload blocks --users 8 \
        --arm before=/tmp/dbstor-before --arm after=. --pairs 3 --seconds 15
    .venv/bin/python bench/bench_client_path.py --engine mariadb --workload brokerage \
        --users 4,16 --arm before=/tmp/dbstor-before --arm after=. --pairs 3 --seconds 10
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BLOCK = 8192
HERE = Path(__file__).resolve().parent


def _workload(name: str, scale: int, users: int) -> Any:
    from dbstor.workloads.blocks import BlocksWorkload
    from dbstor.workloads.brokerage import BrokerageWorkload
    from dbstor.workloads.orders.workload import OrdersWorkload

    if name == "brokerage":
        return BrokerageWorkload(scale, seed=1)
    if name == "orders":
        return OrdersWorkload(scale, seed=1)
    workload = BlocksWorkload(scale, seed=1, options={"update_pct": 0})
    workload.expect_users(users)
    return workload


def _external(dsn: str, start: bool) -> Any:
    """The server as an external one (schema dbstor); started (its schema made afresh)
    only by the process that loads it."""
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.mariadb import MariaDBEngine
    from dbstor.engines.postgres import PostgresEngine

    kind = MariaDBEngine if dsn.startswith("mysql://") else PostgresEngine
    engine = kind(EngineSettings(dsn=dsn))
    if start:
        engine.start()
    return engine


def arm(args: Any) -> int:
    """One run of this code's driver against the server: a JSON line on stdout."""
    from dbstor.drivers.processes import UserLoad, run_in_processes
    from dbstor.drivers.users import Instance

    if args.profile:  # the loop thread's calls, by own time, to stderr
        _profile_loop()
    engine = _external(args.dsn, start=False)
    workload = _workload(args.workload, args.scale, args.users)
    storage = engine_reads(args.server_pid) if args.server_pid else 0.0
    load = UserLoad.of([Instance(engine, workload)], args.users, 2.0, args.seconds)
    result = run_in_processes(load, 1)
    storage = engine_reads(args.server_pid) - storage if args.server_pid else 0.0
    if result.fatal:
        raise SystemExit(f"the run failed: {result.fatal}")
    new_orders = result.per_type["New-Order"].count if "New-Order" in result.per_type else 0
    new_orders -= result.rollbacks.get("New-Order", 0)
    print(
        json.dumps(
            {
                "commits": result.commits,
                "tps": result.tps,
                "cpu_s": result.client_cpu_s,
                "new_orders": new_orders,
                "device_reads": storage / BLOCK,
            }
        )
    )
    return 0


def _profile_loop() -> None:
    """Run the driver's loop thread under cProfile and print its top functions at exit."""
    import cProfile
    import pstats

    from dbstor.drivers import multiplex, users

    plain = multiplex.run_multiplexed

    def profiled(*args: Any) -> None:
        profile = cProfile.Profile()
        profile.runcall(plain, *args)
        pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(30)

    users.run_multiplexed = profiled  # type: ignore[attr-defined]


def engine_reads(postmaster: int) -> float:
    """Bytes the server's processes read from storage (the postmaster's own /proc io
    counts its exited children; live backends added)."""
    total = 0.0
    pids = [postmaster]
    children = Path(f"/proc/{postmaster}/task/{postmaster}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/io").read_text().splitlines():
                if line.startswith("read_bytes:"):
                    total += float(line.split()[1])
        except OSError:
            continue
    return total


def _run_arm(args: Any, code: Path, users: int, dsn: str, pid: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=f"{code / 'src'}:{HERE}")
    cmd = [sys.executable, __file__, "--as-arm", "--dsn", dsn, "--server-pid", str(pid)]
    cmd += ["--workload", args.workload, "--scale", str(args.scale)]
    cmd += ["--users", str(users), "--seconds", str(args.seconds)]
    cmd += ["--profile"] if args.profile else []
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"arm {code} failed: {done.stderr[-2000:]}")
    if args.profile:
        print(done.stderr, file=sys.stderr)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["us_per_txn"] = row["cpu_s"] * 1e6 / max(row["commits"], 1)
    row["us_per_new_order"] = row["cpu_s"] * 1e6 / max(row["new_orders"], 1)
    row["us_per_device_read"] = row["cpu_s"] * 1e6 / max(row["device_reads"], 1)
    return row


def _serve_mariadb(args: Any) -> tuple[Any, str, int]:
    """A managed MariaDB holding the workload (loaded here), the redo log flushed once a
    second; its socket's DSN; no server pid (device reads are PostgreSQL's blocks' only)."""
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.mariadb import MariaDBEngine

    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-path-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    settings = EngineSettings(
        paths={"data": [base / "data"]}, buffer_bytes=256 << 20, users=max(args.user_counts) + 8
    )
    engine = MariaDBEngine(settings)
    engine.base = base
    engine.start()
    engine.query("SET GLOBAL innodb_flush_log_at_trx_commit = 2")
    workload = _workload(args.workload, args.scale, max(args.user_counts))
    workload.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
    assert engine.sockdir is not None
    return engine, f"mysql://root:@localhost/?unix_socket={engine.sockdir / 'mysqld.sock'}", 0


def _serve(args: Any) -> tuple[Any, str, int]:
    from dbstor.engines.base import EngineSettings
    from dbstor.engines.postgres import SUPERUSER, PostgresEngine

    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-path-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    blocks = args.workload == "blocks"
    settings = EngineSettings(
        paths={"data": [base / "data"]},
        buffer_bytes=(args.buffer if blocks else 32) << 20,
        memory_limit_bytes=args.memory_limit << 20 if blocks else None,
        users=max(args.user_counts) + 8,
    )
    engine = PostgresEngine(settings)
    engine.base = base
    engine.start()
    with engine._server_admin() as conn:
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("SELECT pg_reload_conf()")
    dsn = f"host={engine.sockdir} port={engine.port} user={SUPERUSER} dbname=dbstor"
    pid = int((engine.datadir / "postmaster.pid").read_text().split()[0])
    return engine, dsn, pid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("postgres", "mariadb"), default="postgres")
    parser.add_argument("--workload", choices=("orders", "blocks", "brokerage"), default="orders")
    parser.add_argument("--users", default="4,8")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--scale", type=int, default=None, help="warehouses / rows per user")
    parser.add_argument("--arm", action="append", default=[], help="NAME=checkout directory")
    parser.add_argument("--memory-limit", type=int, default=192, help="blocks: MiB")
    parser.add_argument("--buffer", type=int, default=32, help="blocks: shared_buffers MiB")
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    parser.add_argument("--profile", action="store_true", help="cProfile the arms' loops")
    parser.add_argument("--as-arm", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dsn", help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale is None:
        args.scale = {"orders": 4, "blocks": 12_000, "brokerage": 100}[args.workload]
    if args.as_arm:
        args.users = int(args.users)
        return arm(args)
    args.user_counts = [int(u) for u in args.users.split(",")]
    arms = dict(a.split("=", 1) for a in args.arm) or {"this": "."}
    codes = {name: Path(where).resolve() for name, where in arms.items()}
    mariadb = args.engine == "mariadb"
    engine, dsn, pid = _serve_mariadb(args) if mariadb else _serve(args)
    rows: dict[tuple[int, str], list[dict]] = {}
    loads: list[float] = []
    try:
        if not mariadb:  # loaded into the external schema; MariaDB's was loaded by its engine
            external = _external(dsn, start=True)
            workload = _workload(args.workload, args.scale, max(args.user_counts))
            workload.create(external, lambda line: print(f"  {line}", file=sys.stderr))
        names = list(codes)
        for pair in range(args.pairs):
            loads.append(os.getloadavg()[0])
            order = names + names[::-1] if pair % 2 == 0 else names[::-1] + names
            for users in args.user_counts:
                seen: set[str] = set()
                for name in order:
                    key = name if name not in seen else f"{name} (A/A)"
                    seen.add(name)
                    row = _run_arm(args, codes[name], users, dsn, pid)
                    rows.setdefault((users, key), []).append(row)
                    print(f"pair {pair + 1}, {users} users, {key}: {row}", file=sys.stderr)
    finally:
        engine.stop()
        shutil.rmtree(engine.base, ignore_errors=True)
    print(_markdown(args, names, rows, loads))
    return 0


def _markdown(args: Any, names: list[str], rows: dict, loads: list[float]) -> str:
    per, what = {
        "orders": ("us_per_new_order", "New-Order"),
        "blocks": ("us_per_device_read", "device read"),
        "brokerage": ("us_per_txn", "transaction"),
    }[args.workload]
    own = per != "us_per_txn"  # a column of its own beside the per-transaction one
    lines = [
        f"{args.engine} {args.workload}, scale {args.scale}, {args.seconds:g} s measured a run, "
        f"{args.pairs} pair(s); load average at each pair's start: "
        + ", ".join(f"{v:.1f}" for v in loads),
        "",
        "| users | arm | TPS | client us CPU / txn |" + (f" client us CPU / {what} |" * own),
        "|---:|---|---:|---:|" + "---:|" * own,
    ]
    med = lambda found, k: statistics.median(r[k] for r in found)  # noqa: E731
    for (users, key), found in sorted(rows.items()):
        lines.append(
            f"| {users} | {key} | {med(found, 'tps'):,.0f} | {med(found, 'us_per_txn'):.1f} |"
            + (f" {med(found, per):.1f} |" * own)
        )
    lines.append("")
    first, last = names[0], names[-1]
    for users in args.user_counts:
        for top, bottom in ((last, first), (f"{first} (A/A)", first), (f"{last} (A/A)", last)):
            a, b = rows.get((users, top)), rows.get((users, bottom))
            if not a or not b or top == bottom:
                continue
            for key, name in ((per, what), ("us_per_txn", "transaction")):
                each = [x[key] / y[key] for x, y in zip(a, b, strict=True)]
                lines.append(
                    f"- {users} users, {top} / {bottom}: client CPU per {name} "
                    f"x{med(a, key) / med(b, key):.2f} "
                    f"(pairs: {', '.join(f'{v:.2f}' for v in each)})"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
