"""dbstor's orders workload against HammerDB TPROC-C, side by side on one PostgreSQL.

One managed PostgreSQL server (shared_buffers 1 GB, as the team's baseline) holds both
schemas: dbstor's orders database and HammerDB's tpcc database, the same warehouses. Each
tool builds its schema (timed: wall and client CPU), then for every virtual-user count,
`--pairs` rounds: in each, four runs with the same ramp and measured time, the first in
turn (rotating): dbstor, dbstor again, HammerDB, HammerDB again. The second run of each
tool is the A/A control: its ratio to the first is this machine's noise floor, printed
beside the dbstor / HammerDB ratio. Ratios are of medians over the rounds; the load
average at each round's start is printed with it (the machine is shared).

Per run: NOPM (dbstor: its client's commits; HammerDB: its own sum(d_next_o_id) count),
client CPU per New-Order over the measured window, and server CPU (PostgreSQL's processes
from /proc) per New-Order the database committed over the whole run (growth of
sum(d_next_o_id), ramp included, the same count for both tools), with the WAL the server
wrote and the times it flushed it (pg_stat_wal) per New-Order over the same run: what
each committed order costs the server's commit path, and how many commits share a flush.

HammerDB is not part of dbstor; bench/hammerdb_tprocc.py runs it and says how it was
installed here (Debian's Tcl 8.6, Pgtcl 3.1 built from source, HammerDB v6.0's files from its
git tag):

    .venv/bin/python bench/bench_orders_hammerdb.py --hammerdb /work/peers/hammerdb \\
        --warehouses 4 --users 4,8 --ramp 12 --measured 36 --pairs 3 --dir /var/tmp

`--statements` loads pg_stat_statements (track = all: the statements inside the
procedures too) and prints each tool's heaviest statements per New-Order after the runs:
where the server's time goes. It costs the server a little, both tools alike.
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

from dbstor.drivers.processes import UserLoad, run_in_processes
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


def wal_written(engine: PostgresEngine) -> tuple[int, int]:
    """The server's WAL bytes written and WAL flushes (fsyncs) so far (pg_stat_wal)."""
    with engine._admin() as conn:
        wal_bytes, syncs = conn.execute("SELECT wal_bytes, wal_sync FROM pg_stat_wal").fetchone()
    return int(wal_bytes), int(syncs)


def server_side(
    engine: PostgresEngine, database: str, run: Callable[..., dict], *args: Any
) -> dict:
    """Run a tool and add the server's CPU, WAL bytes and WAL flushes per committed
    New-Order over the whole run (ramp and measured: both tools alike, counted in the
    database, not by the tool)."""
    cpu, orders = server_cpu_s(engine), committed_new_orders(engine, database)
    wal = wal_written(engine)
    row = run(*args)
    done = committed_new_orders(engine, database) - orders
    wal_bytes, syncs = (b - a for a, b in zip(wal, wal_written(engine), strict=True))
    row["server_ms_per_new_order"] = (server_cpu_s(engine) - cpu) * 1e3 / max(done, 1)
    row["wal_bytes_per_new_order"] = wal_bytes / max(done, 1)
    row["wal_flushes_per_new_order"] = syncs / max(done, 1)
    row["committed"] = done
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
    result = run_in_processes(UserLoad.of([Instance(engine, workload)], users, ramp, measured), 1)
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


WRAPPER = Path(__file__).with_name("hammerdb_tprocc.py")


def hammerdb(home: Path, engine: PostgresEngine, password: str, extra: list[str]) -> dict:
    cmd = [
        sys.executable, str(WRAPPER), "--hammerdb-dir", str(home),
        "--host", str(engine.sockdir), "--port", str(engine.port), "--superuser", SUPERUSER,
        "--password", password, *extra,
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"HammerDB failed ({done.returncode}): {done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    if data.get("nopm"):
        new_orders = data["nopm"] * data["measured_s"] / 60
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


def load_statements(engine: PostgresEngine) -> None:
    """pg_stat_statements in the managed server, counting the statements inside procedures."""
    with engine._server_admin() as conn:
        conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
    engine.restart()
    with engine._server_admin() as conn:
        conn.execute("ALTER SYSTEM SET pg_stat_statements.track = 'all'")
        conn.execute("SELECT pg_reload_conf()")
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")


def statements(engine: PostgresEngine, database: str, new_orders: int, top: int = 12) -> str:
    """The heaviest statements run in a database, per New-Order committed there."""
    query = """SELECT calls, total_exec_time, total_plan_time, rows, query
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = %s ORDER BY total_exec_time DESC LIMIT %s"""
    with engine._server_admin() as conn:
        found = conn.execute(query, (database, top)).fetchall()
    lines = [f"{database}: {new_orders:,} New-Orders; calls / NO, exec ms / NO, statement"]
    for calls, exec_ms, plan_ms, _rows, text in found:
        text = " ".join(text.split())[:150]
        lines.append(
            f"  {calls / new_orders:6.2f} {exec_ms / new_orders:7.4f} (+plan"
            f" {plan_ms / new_orders:.4f})  {text}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hammerdb", type=Path, default=Path("/work/peers/hammerdb"), help="HammerDB v6.0's files"
    )
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--build-users", type=int, default=2, help="HammerDB's build users")
    parser.add_argument("--users", default="4,8")
    parser.add_argument("--ramp", type=int, default=12, help="seconds (a multiple of 6)")
    parser.add_argument("--measured", type=int, default=36, help="seconds (a multiple of 6)")
    parser.add_argument("--pairs", type=int, default=3, help="rounds per user count")
    parser.add_argument("--no-control", action="store_true", help="no A/A runs")
    parser.add_argument("--statements", action="store_true", help="load pg_stat_statements")
    parser.add_argument(
        "--checkpoint", action="store_true", help="CHECKPOINT before every run (same start state)"
    )
    parser.add_argument("--dir", type=Path, default=None, help="where the server's files go")
    args = parser.parse_args()
    if args.ramp % 6 or args.measured % 6 or args.measured <= 0:
        raise SystemExit("--ramp and --measured are seconds in multiples of 6 (HammerDB's step)")
    ways = ("dbstor", "hammerdb") if args.no_control else WAYS
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-orders-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine = PostgresEngine(EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=BUFFER))
    password = secrets.token_hex(12)  # a throwaway server's throwaway password
    rows: dict[str, list[dict]] = {way: [] for way in ways}
    profile = []
    try:
        engine.start()
        with engine._server_admin() as conn:
            conn.execute(f"ALTER ROLE {SUPERUSER} PASSWORD '{password}'")
        if args.statements:
            load_statements(engine)
        workload, dbstor_built = dbstor_build(engine, args.warehouses)
        print(f"dbstor build: {dbstor_built}", file=sys.stderr)
        hdb_built = hammerdb(
            args.hammerdb, engine, password,
            ["--warehouses", str(args.warehouses), "--build-users", str(args.build_users),
             "--virtual-users", "1", "--ramp-seconds", "6", "--measured-seconds", "6", "--replace"],
        )  # fmt: skip
        print(f"HammerDB build: {hdb_built['build_wall_s']:.1f} s", file=sys.stderr)
        settle(engine)
        if args.statements:
            with engine._server_admin() as conn:
                conn.execute("SELECT pg_stat_statements_reset()")
        for users in [int(u) for u in args.users.split(",")]:
            for pair in range(args.pairs):
                load = os.getloadavg()[0]
                print(f"{users} users, round {pair + 1}: load average {load:.2f}", file=sys.stderr)
                for way in ways[pair % len(ways) :] + ways[: pair % len(ways)]:
                    if args.checkpoint:
                        with engine._server_admin() as conn:
                            conn.execute("CHECKPOINT")
                    row = one_run(engine, workload, password, args, way, users)
                    row.update(users=users, pair=pair, load=load)
                    rows[way].append(row)
                    print(
                        f"  {way}: NOPM {row['nopm']:,.0f}, client ms CPU per new order"
                        f" {row['cpu_ms_per_new_order']:.3f}, server"
                        f" {row['server_ms_per_new_order']:.3f}",
                        file=sys.stderr,
                    )
        if args.statements:
            for database, tool in (("dbstor", "dbstor"), ("tpcc", "hammerdb")):
                done = sum(
                    r["committed"] for way in ways if way.startswith(tool) for r in rows[way]
                )
                profile.append(statements(engine, database, done))
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(_markdown(args, rows, dbstor_built, hdb_built))
    print("\n\n".join(profile))
    return 0


WAYS = ("dbstor", "dbstor again", "hammerdb", "hammerdb again")


def one_run(
    engine: PostgresEngine, workload: OrdersWorkload, password: str, args: Any, way: str, users: int
) -> dict:
    if way.startswith("dbstor"):
        return server_side(
            engine, "dbstor", dbstor_run, engine, workload, users, args.ramp, args.measured
        )
    flags = [
        "--warehouses", str(args.warehouses), "--virtual-users", str(users),
        "--ramp-seconds", str(args.ramp), "--measured-seconds", str(args.measured),
        "--skip-build",
    ]  # fmt: skip
    return server_side(engine, "tpcc", hammerdb, args.hammerdb, engine, password, flags)


FIGURES = (
    ("NOPM", "nopm", "{:,.0f}"),
    ("client ms CPU / New-Order", "cpu_ms_per_new_order", "{:.3f}"),
    ("server ms CPU / New-Order", "server_ms_per_new_order", "{:.3f}"),
    ("WAL bytes / New-Order", "wal_bytes_per_new_order", "{:,.0f}"),
    ("WAL flushes / New-Order", "wal_flushes_per_new_order", "{:.3f}"),
)


def _markdown(args: Any, rows: dict[str, list[dict]], dbstor_built: dict, hdb_built: dict) -> str:
    control = "dbstor again" in rows
    lines = [
        f"{args.warehouses} warehouses, ramp {args.ramp} s, measured {args.measured} s, "
        f"{args.pairs} round(s) per user count; medians over rounds, ratios of the medians "
        "(the range of the rounds' own ratios beside):",
        "",
        "| users | figure | dbstor | HammerDB | dbstor / HammerDB | rounds' range "
        + ("| A/A dbstor | A/A HammerDB |" if control else "|"),
        "|---|---|---|---|---|---|" + ("---|---|" if control else ""),
    ]
    for users in sorted({r["users"] for r in rows["dbstor"]}):
        at = {way: [r for r in got if r["users"] == users] for way, got in rows.items()}
        for title, key, form in FIGURES:
            ours, theirs = _median(at["dbstor"], key), _median(at["hammerdb"], key)
            each = [a[key] / b[key] for a, b in zip(at["dbstor"], at["hammerdb"], strict=True)]
            line = (
                f"| {users} | {title} | {form.format(ours)} | {form.format(theirs)} "
                f"| {ours / theirs:.2f} | {min(each):.2f}-{max(each):.2f} |"
            )
            if control:
                again = _median(at["dbstor again"], key) / ours
                h_again = _median(at["hammerdb again"], key) / theirs
                line += f" {again:.2f} | {h_again:.2f} |"
            lines.append(line)
    lines.append("")
    for users in sorted({r["users"] for r in rows["dbstor"]}):
        for a, b in zip(
            [r for r in rows["dbstor"] if r["users"] == users],
            [r for r in rows["hammerdb"] if r["users"] == users],
            strict=True,
        ):
            lines.append(
                f"- {users} users, round {a['pair'] + 1}: load average {a['load']:.2f};"
                f" NOPM {a['nopm']:,.0f} / {b['nopm']:,.0f} = {a['nopm'] / b['nopm']:.2f}"
            )
    lines += [
        "",
        f"Build of {args.warehouses} warehouses: dbstor {dbstor_built['build_wall_s']:.1f} s wall, "
        f"{dbstor_built['build_client_cpu_s']:.1f} s client CPU; HammerDB "
        f"({args.build_users} build users) {hdb_built['build_wall_s']:.1f} s wall, "
        f"{hdb_built['build_client_cpu_s']:.1f} s client CPU.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
