"""dbstor's orders workload against HammerDB TPROC-C, side by side on one PostgreSQL.

One managed PostgreSQL server (shared_buffers 1 GB, as the team's baseline) holds both
schemas: dbstor's orders database and HammerDB's tpcc database, the same warehouses. Each
tool builds its schema (timed: wall and client CPU), then for every virtual-user count the
two tools take turns, `--pairs` times, with the same ramp and measured time. Printed:
NOPM, client CPU per new order and the build, with dbstor / HammerDB ratios (medians).

HammerDB is not part of dbstor: give the script that runs it (see /work/peers/hammerdb/
INSTALL.md for how it was installed here):

    .venv/bin/python bench/bench_orders_hammerdb.py \\
        --hammerdb /work/peers/hammerdb/run_tprocc.sh --warehouses 4 --users 4,8 --pairs 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.drivers.processes import run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.engines.postgres import SUPERUSER, PostgresEngine, find_bindir
from dbstor.workloads.orders import OrdersWorkload

BUFFER = 1 << 30


def _cpu_self_and_children() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def server_cpu_s(engine: PostgresEngine) -> float:
    """CPU seconds of the server's processes, with the children it has reaped (backends
    that exited), from /proc."""
    total = 0
    for pid in engine.server.pids():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # exited between the listing and the read
            continue
        total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / os.sysconf("SC_CLK_TCK")


def committed_new_orders(engine: PostgresEngine, database: str) -> int:
    """New-Orders committed so far: the districts' next order ids, summed."""
    with engine._admin(dbname=database) as conn:
        return int(conn.execute("SELECT sum(d_next_o_id) FROM district").fetchone()[0])


def server_side(
    engine: PostgresEngine, database: str, run: Callable[..., dict], *args: Any
) -> dict:
    """Run a tool and add the server's CPU per committed New-Order over the whole run
    (ramp and measured: both tools alike, counted in the database, not by the tool)."""
    cpu, orders = server_cpu_s(engine), committed_new_orders(engine, database)
    row = run(*args)
    done = committed_new_orders(engine, database) - orders
    row["server_ms_per_new_order"] = (server_cpu_s(engine) - cpu) * 1e3 / max(done, 1)
    return row


def dbstor_build(engine: PostgresEngine, warehouses: int) -> tuple[OrdersWorkload, dict]:
    workload = OrdersWorkload(warehouses, seed=1)
    cpu, wall = _cpu_self_and_children(), time.monotonic()
    report = workload.create(engine, lambda line: print(f"  {line}", file=sys.stderr))
    return workload, {
        "build_wall_s": time.monotonic() - wall,
        "build_client_cpu_s": _cpu_self_and_children() - cpu,
        "rows": report.rows,
    }


def dbstor_run(
    engine: PostgresEngine, workload: OrdersWorkload, users: int, ramp: int, measured: int
) -> dict:
    result = run_in_processes([Instance(engine, workload)], users, 1, ramp, measured)
    if result.fatal:
        raise SystemExit(f"dbstor run failed: {result.fatal}")
    counts = {name: h.count for name, h in result.per_type.items()}
    metrics = workload.point_metrics(counts, result.rollbacks, result.measured_s)
    new_orders = metrics["nopm"] * result.measured_s / 60
    return {
        "nopm": metrics["nopm"],
        "tpm": metrics["tpm"],
        "client_cpu_s": result.client_cpu_s,
        "client_cores": result.client_cpu_s / result.measured_s,
        "cpu_ms_per_new_order": result.client_cpu_s * 1e3 / new_orders,
        "errors": result.errors,
    }


def hammerdb(script: Path, engine: PostgresEngine, password: str, extra: list[str]) -> dict:
    cmd = [
        str(script),
        "--host", str(engine.sockdir), "--port", str(engine.port), "--superuser", SUPERUSER,
        "--password", password, *extra,
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"HammerDB failed ({done.returncode}): {done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    measured = data["measured_s"]
    new_orders = data["nopm"] * measured / 60
    data["cpu_ms_per_new_order"] = data["run_client_cpu_s"] * 1e3 / new_orders
    return data


def settle(engine: PostgresEngine) -> None:
    """Vacuum both databases and checkpoint, so the first measured run does not pay for
    what the builds left behind."""
    for database in ("dbstor", "tpcc"):
        done = subprocess.run(
            [str(find_bindir() / "vacuumdb"), "-h", str(engine.sockdir), "-p", str(engine.port),
             "-U", SUPERUSER, "--analyze", database],
            capture_output=True, text=True, timeout=1800,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"vacuumdb {database} failed: {done.stderr[-500:]}")
    with engine._server_admin() as conn:
        conn.execute("CHECKPOINT")


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hammerdb", type=Path, required=True, help="run_tprocc.sh or equivalent")
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--build-users", type=int, default=2, help="HammerDB's build users")
    parser.add_argument("--users", default="4,8")
    parser.add_argument(
        "--ramp", type=int, default=30, help="seconds (a multiple of 6 for HammerDB)"
    )
    parser.add_argument("--measured", type=int, default=60, help="seconds (a multiple of 6)")
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None, help="where the server's files go")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-orders-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine = PostgresEngine(EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=BUFFER))
    password = secrets.token_hex(12)  # a throwaway server's throwaway password
    rows: dict[str, list[dict]] = {"dbstor": [], "hammerdb": []}
    try:
        engine.start()
        with engine._server_admin() as conn:
            conn.execute(f"ALTER ROLE {SUPERUSER} PASSWORD '{password}'")
        workload, dbstor_built = dbstor_build(engine, args.warehouses)
        print(f"dbstor build: {dbstor_built}", file=sys.stderr)
        hdb_built = hammerdb(
            args.hammerdb, engine, password,
            ["--warehouses", str(args.warehouses), "--build-users", str(args.build_users),
             "--virtual-users", "1", "--ramp-seconds", "6", "--measured-seconds", "6", "--replace"],
        )  # fmt: skip
        print(f"HammerDB build: {hdb_built['build_wall_s']} s", file=sys.stderr)
        settle(engine)
        for users in [int(u) for u in args.users.split(",")]:
            for pair in range(args.pairs):
                order = ("dbstor", "hammerdb") if pair % 2 == 0 else ("hammerdb", "dbstor")
                for tool in order:
                    if tool == "dbstor":
                        row = server_side(
                            engine, "dbstor", dbstor_run,
                            engine, workload, users, args.ramp, args.measured,
                        )  # fmt: skip
                    else:
                        flags = [
                            "--warehouses", str(args.warehouses), "--build-users",
                            str(args.build_users), "--virtual-users", str(users),
                            "--ramp-seconds", str(args.ramp), "--measured-seconds",
                            str(args.measured), "--skip-build",
                        ]  # fmt: skip
                        row = server_side(
                            engine, "tpcc", hammerdb, args.hammerdb, engine, password, flags
                        )
                    row["users"] = users
                    rows[tool].append(row)
                    print(
                        f"{tool} {users} users: NOPM {row['nopm']:,.0f}, client ms CPU per new"
                        f" order {row['cpu_ms_per_new_order']:.3f}, server"
                        f" {row['server_ms_per_new_order']:.3f}",
                        file=sys.stderr,
                    )
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(_markdown(args, rows, dbstor_built, hdb_built))
    return 0


def _markdown(args: Any, rows: dict[str, list[dict]], dbstor_built: dict, hdb_built: dict) -> str:
    lines = [
        f"{args.warehouses} warehouses, ramp {args.ramp} s, measured {args.measured} s, "
        f"{args.pairs} pair(s) per user count, medians:",
        "",
        "| users | dbstor NOPM | HammerDB NOPM | NOPM ratio | dbstor client ms CPU / new order "
        "| HammerDB | CPU ratio | dbstor server ms CPU / new order | HammerDB | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for users in sorted({r["users"] for r in rows["dbstor"]}):
        ours = [r for r in rows["dbstor"] if r["users"] == users]
        theirs = [r for r in rows["hammerdb"] if r["users"] == users]
        a, b = _median(ours, "nopm"), _median(theirs, "nopm")
        c, d = _median(ours, "cpu_ms_per_new_order"), _median(theirs, "cpu_ms_per_new_order")
        e, f = _median(ours, "server_ms_per_new_order"), _median(theirs, "server_ms_per_new_order")
        lines.append(
            f"| {users} | {a:,.0f} | {b:,.0f} | {a / b:.2f} | {c:.3f} | {d:.3f} | {c / d:.2f} "
            f"| {e:.3f} | {f:.3f} | {e / f:.2f} |"
        )
    lines += [
        "",
        f"Build of {args.warehouses} warehouses: dbstor {dbstor_built['build_wall_s']:.1f} s wall, "
        f"{dbstor_built['build_client_cpu_s']:.1f} s client CPU; HammerDB "
        f"({args.build_users} build users) {hdb_built['build_wall_s']:.1f} s wall, "
        f"{hdb_built['build_client_cpu_s']:.1f} s client CPU; wall ratio "
        f"{dbstor_built['build_wall_s'] / hdb_built['build_wall_s']:.2f}.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
