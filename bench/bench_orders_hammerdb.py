"""dbstor's orders workload against HammerDB TPROC-C, side by side on one PostgreSQL or MariaDB.

One managed server (1 GB of buffers, as the team's baseline) holds both schemas: dbstor's
orders database and HammerDB's tpcc database, the same warehouses (orders_side_pg.py,
orders_side_mariadb.py). Each tool builds its schema (timed: wall and client CPU), then
for every virtual-user count, `--pairs` rounds: in each, four runs with the same ramp and
measured time, the first in turn (rotating): dbstor, dbstor again, HammerDB, HammerDB
again. The second run of each tool is the A/A control: its ratio to the first is this
machine's noise floor, printed beside the dbstor / HammerDB ratio. Ratios are of medians
over the rounds; the load average at each round's start is printed with it (the machine
is shared).

`--client-bound` takes the commit flush away from both tools (PostgreSQL
`synchronous_commit = off`, MariaDB `innodb_flush_log_at_trx_commit = 2`): the bound is
then CPU, and the client's CPU per New-Order is what separates the tools (issue 39).

Per run: NOPM (dbstor: its client's commits; HammerDB: its own sum(d_next_o_id) count),
and for dbstor the database's own count over the same measured window beside it
(sum(d_next_o_id) read at the window's start and end); client CPU per New-Order over
the measured window; server CPU (the server's processes from /proc) per New-Order the
database committed over the whole run (growth of sum(d_next_o_id), ramp included, the
same count for both tools); New-Orders per CPU-second, client and server together
(1 / the sum of the two per-New-Order figures); the log the server wrote and the times it
flushed it per New-Order (PostgreSQL pg_stat_wal; MariaDB its redo bytes and fsyncs).

HammerDB is not part of dbstor; bench/install_peers.sh installs it (Debian's Tcl 8.6,
Pgtcl 3.1 built from source, Debian's mysqltcl, HammerDB v6.0's files from its git tag)
and bench/hammerdb_tprocc.py runs it:

    sh bench/install_peers.sh
    .venv/bin/python bench/bench_orders_hammerdb.py --engine postgresql --client-bound \\
        --warehouses 4 --users 4,8 --ramp 12 --measured 36 --pairs 3 --dir /var/tmp

`--statements` (PostgreSQL) loads pg_stat_statements (track = all: the statements inside
the procedures too) and prints each tool's heaviest statements per New-Order after the
runs: where the server's time goes. It costs the server a little, both tools alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dbstor.drivers.processes import Hooks, UserLoad, run_in_processes
from dbstor.drivers.users import Instance
from dbstor.workloads.orders import OrdersWorkload
from orders_side_mariadb import MariaDBSide
from orders_side_pg import PostgresSide

SIDES = {"postgresql": PostgresSide, "mariadb": MariaDBSide}
Side = PostgresSide | MariaDBSide


def _cpu_self_and_children() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def server_side(side: Side, database: str, run: Any, *args: Any) -> dict:
    """Run a tool and add the server's CPU, log bytes and log flushes per committed
    New-Order over the whole run (ramp and measured: both tools alike, counted in the
    database, not by the tool)."""
    cpu, orders, logged = side.server_cpu_s(), side.committed(database), side.counters()
    row = run(*args)
    done = side.committed(database) - orders
    log_bytes, flushes = (b - a for a, b in zip(logged, side.counters(), strict=True))
    row["server_ms_per_new_order"] = (side.server_cpu_s() - cpu) * 1e3 / max(done, 1)
    row["log_bytes_per_new_order"] = log_bytes / max(done, 1)
    row["log_flushes_per_new_order"] = flushes / max(done, 1)
    row["new_orders_per_cpu_s"] = 1e3 / (
        row["cpu_ms_per_new_order"] + row["server_ms_per_new_order"]
    )
    row["committed"] = done
    return row


def dbstor_build(side: Side, warehouses: int) -> tuple[OrdersWorkload, dict]:
    workload = OrdersWorkload(warehouses, seed=1)
    cpu, wall = _cpu_self_and_children(), time.monotonic()
    report = workload.create(side.engine, lambda line: print(f"  {line}", file=sys.stderr))
    return workload, {
        "build_wall_s": time.monotonic() - wall,
        "build_client_cpu_s": _cpu_self_and_children() - cpu,
        "rows": report.rows,
    }


def dbstor_run(side: Side, workload: OrdersWorkload, users: int, ramp: int, measured: int) -> dict:
    marks: dict[str, int] = {}

    def on_mark(name: str) -> None:  # the database's own count over the measured window
        marks[name] = side.committed("dbstor")

    load = UserLoad.of([Instance(side.engine, workload)], users, ramp, measured)
    result = run_in_processes(load, 1, Hooks(on_mark=on_mark))
    if result.fatal:
        raise SystemExit(f"dbstor run failed: {result.fatal}")
    counts = {name: h.count for name, h in result.per_type.items()}
    metrics = workload.point_metrics(counts, result.rollbacks, result.measured_s)
    new_orders = metrics["nopm"] * result.measured_s / 60
    in_window = marks.get("end", 0) - marks.get("measure_start", 0)
    return {
        "nopm": metrics["nopm"],
        "nopm_vs_database": new_orders / in_window if in_window > 0 else None,
        "tpm": metrics["tpm"],
        "client_cpu_s": result.client_cpu_s,
        "client_cores": result.client_cpu_s / result.measured_s,
        "cpu_ms_per_new_order": result.client_cpu_s * 1e3 / new_orders,
        "errors": result.errors,
    }


WRAPPER = Path(__file__).with_name("hammerdb_tprocc.py")


def hammerdb(home: Path, side: Side, extra: list[str]) -> dict:
    cmd = [sys.executable, str(WRAPPER), "--hammerdb-dir", str(home), *side.hammerdb_flags()]
    done = subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        stderr = done.stderr[-2000:].replace(side.password, "***")
        raise SystemExit(f"HammerDB failed ({done.returncode}): {stderr}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    if data.get("nopm"):
        new_orders = data["nopm"] * data["measured_s"] / 60
        data["cpu_ms_per_new_order"] = data["run_client_cpu_s"] * 1e3 / new_orders
    data["nopm_vs_database"] = 1.0  # HammerDB's NOPM is the database's own count
    return data


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hammerdb", type=Path, default=Path("/work/peers/hammerdb"), help="HammerDB v6.0's files"
    )
    parser.add_argument("--engine", choices=tuple(SIDES), default="postgresql")
    parser.add_argument(
        "--client-bound", action="store_true", help="no commit flush wait (the client is the bound)"
    )
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--build-users", type=int, default=2, help="HammerDB's build users")
    parser.add_argument("--users", default="4,8")
    parser.add_argument("--ramp", type=int, default=12, help="seconds (a multiple of 6)")
    parser.add_argument("--measured", type=int, default=36, help="seconds (a multiple of 6)")
    parser.add_argument("--pairs", type=int, default=3, help="rounds per user count")
    parser.add_argument("--no-control", action="store_true", help="no A/A runs")
    parser.add_argument("--statements", action="store_true", help="PostgreSQL: pg_stat_statements")
    parser.add_argument(
        "--checkpoint", action="store_true", help="CHECKPOINT before every run (same start state)"
    )
    parser.add_argument("--dir", type=Path, default=None, help="where the server's files go")
    args = parser.parse_args()
    if args.ramp % 6 or args.measured % 6 or args.measured <= 0:
        raise SystemExit("--ramp and --measured are seconds in multiples of 6 (HammerDB's step)")
    if args.statements and args.engine != "postgresql":
        raise SystemExit("--statements is PostgreSQL's pg_stat_statements: use --engine postgresql")
    if not (args.hammerdb / "hammerdbcli").is_file():
        raise SystemExit(f"no HammerDB at {args.hammerdb}: run sh bench/install_peers.sh first")
    return args


def main() -> int:
    args = _arguments()
    print(f"command: {' '.join(sys.argv)}", file=sys.stderr)
    ways = ("dbstor", "hammerdb") if args.no_control else WAYS
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-orders-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    side = SIDES[args.engine](base, args.client_bound)
    rows: dict[str, list[dict]] = {way: [] for way in ways}
    profile = []
    try:
        side.start()
        if args.statements:
            side.load_statements()
        setting = side.setting()
        workload, dbstor_built = dbstor_build(side, args.warehouses)
        print(f"{side.title}, {setting}; dbstor build: {dbstor_built}", file=sys.stderr)
        hdb_built = hammerdb(
            args.hammerdb, side,
            ["--warehouses", str(args.warehouses), "--build-users", str(args.build_users),
             "--virtual-users", "1", "--ramp-seconds", "6", "--measured-seconds", "6", "--replace"],
        )  # fmt: skip
        print(f"HammerDB build: {hdb_built['build_wall_s']:.1f} s", file=sys.stderr)
        side.settle()
        if args.statements:
            with side.engine._server_admin() as conn:
                conn.execute("SELECT pg_stat_statements_reset()")
        for users in [int(u) for u in args.users.split(",")]:
            for pair in range(args.pairs):
                load = os.getloadavg()[0]
                print(f"{users} users, round {pair + 1}: load average {load:.2f}", file=sys.stderr)
                for way in ways[pair % len(ways) :] + ways[: pair % len(ways)]:
                    if args.checkpoint:
                        side.checkpoint()
                    row = one_run(side, workload, args, way, users)
                    row.update(users=users, pair=pair, load=load, load_after=os.getloadavg()[0])
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
                profile.append(side.statements(database, done))
    finally:
        side.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(_markdown(args, side, setting, rows, dbstor_built, hdb_built))
    print("\n\n".join(profile))
    return 0


WAYS = ("dbstor", "dbstor again", "hammerdb", "hammerdb again")


def one_run(side: Side, workload: OrdersWorkload, args: Any, way: str, users: int) -> dict:
    if way.startswith("dbstor"):
        return server_side(
            side, "dbstor", dbstor_run, side, workload, users, args.ramp, args.measured
        )
    flags = [
        "--warehouses", str(args.warehouses), "--virtual-users", str(users),
        "--ramp-seconds", str(args.ramp), "--measured-seconds", str(args.measured),
        "--skip-build",
    ]  # fmt: skip
    return server_side(side, "tpcc", hammerdb, args.hammerdb, side, flags)


FIGURES = (
    ("NOPM", "nopm", "{:,.0f}"),
    ("client ms CPU / New-Order", "cpu_ms_per_new_order", "{:.3f}"),
    ("server ms CPU / New-Order", "server_ms_per_new_order", "{:.3f}"),
    ("New-Orders / CPU-second (client + server)", "new_orders_per_cpu_s", "{:,.0f}"),
    ("{0} / New-Order", "log_bytes_per_new_order", "{:,.0f}"),
    ("{1} / New-Order", "log_flushes_per_new_order", "{:.3f}"),
)


def _markdown(
    args: Any, side: Side, setting: str, rows: dict[str, list[dict]], built: dict, hdb: dict
) -> str:
    control = "dbstor again" in rows
    lines = [
        f"{side.title} ({setting}), {args.warehouses} warehouses, ramp {args.ramp} s, "
        f"measured {args.measured} s, {args.pairs} round(s) per user count; medians over "
        "rounds, ratios of the medians (the range of the rounds' own ratios beside):",
        "",
        "| users | figure | dbstor | HammerDB | dbstor / HammerDB | rounds' range "
        + ("| A/A dbstor | A/A HammerDB |" if control else "|"),
        "|---|---|---|---|---|---|" + ("---|---|" if control else ""),
    ]
    for users in sorted({r["users"] for r in rows["dbstor"]}):
        at = {way: [r for r in got if r["users"] == users] for way, got in rows.items()}
        for heading, key, form in FIGURES:
            title = heading.format(*side.counter_names)
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
        ours = [r for way, got in rows.items() if way.startswith("dbstor") for r in got]
        exact = [r["nopm_vs_database"] for r in ours if r["users"] == users]
        for a, b in zip(
            [r for r in rows["dbstor"] if r["users"] == users],
            [r for r in rows["hammerdb"] if r["users"] == users],
            strict=True,
        ):
            lines.append(
                f"- {users} users, round {a['pair'] + 1}: load average {a['load']:.2f}"
                f" (after the round's first run {a['load_after']:.2f});"
                f" NOPM {a['nopm']:,.0f} / {b['nopm']:,.0f} = {a['nopm'] / b['nopm']:.2f}"
            )
        shown = ", ".join("null" if x is None else f"{x:.3f}" for x in exact)
        lines.append(f"- {users} users: dbstor's NOPM / the database's count: {shown}")
    lines += [
        "",
        f"Build of {args.warehouses} warehouses: dbstor {built['build_wall_s']:.1f} s wall, "
        f"{built['build_client_cpu_s']:.1f} s client CPU; HammerDB "
        f"({args.build_users} build users) {hdb['build_wall_s']:.1f} s wall, "
        f"{hdb['build_client_cpu_s']:.1f} s client CPU.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
