"""Where MariaDB's server CPU per orders transaction goes: two versions of the five
procedures on one managed server, side by side.

One managed MariaDB (the bench's 1 GB pool, `innodb_flush_log_at_trx_commit = 2`, as
bench_orders_hammerdb.py --client-bound) holds dbstor's orders database. The procedures of
a git revision (`--before`, default main) and of this tree take turns in alternating
rounds: each round re-creates one version's procedures and runs `--calls` calls of each
transaction from one session (serial, no waits between calls), then the other version,
then each again (the A/A arm), the first in turn. Delivery runs a tenth of the calls: it
delivers ten orders a call, as many as the arm's New-Orders queued, so the queue stays as
long as the load left it. Per transaction and version: the
server's CPU per call (mariadbd from /proc, so the client's own CPU is not in it) and the
statements the server ran per call (status `Queries`, which counts the statements inside
stored programs; the CALL itself included). Ratios are of medians over the rounds, the load
average printed with each round.

    .venv/bin/python bench/bench_mariadb_server_work.py --before main --warehouses 1 \\
        --calls 400 --rounds 3 --dir /var/tmp/me
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from dbstor.dialects.mysql import orders as current
from dbstor.workloads.orders import OrdersWorkload
from orders_side_mariadb import MariaDBSide

TRANSACTIONS = ("New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level")


def procedures_of(revision: str) -> list[str]:
    """The DDL list of dialects/mysql/orders.py as it was at a git revision."""
    source = subprocess.run(
        ["git", "show", f"{revision}:src/dbstor/dialects/mysql/orders.py"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parent,
    ).stdout  # fmt: skip
    space: dict[str, Any] = {"__name__": "orders_before"}
    exec(compile(source, f"{revision}:orders.py", "exec"), space)  # our own repo's file
    return space["DDL"]


def install(side: MariaDBSide, ddl: list[str]) -> None:
    with side.engine.connect() as conn, conn.cursor() as cur:
        for statement in ddl:
            cur.execute(statement)


def measure(side: MariaDBSide, workload: OrdersWorkload, calls: int) -> dict[str, tuple]:
    """Per transaction: (server us CPU per call, statements per call)."""
    conn = side.engine.connect()
    try:
        session = workload.session(side.engine, conn, 1)
        out = {}
        for name in TRANSACTIONS:
            queries = _queries(side)
            cpu = side.server_cpu_s()
            n = calls // 10 if name == "Delivery" else calls  # the queue New-Order fills
            for _ in range(n):
                session.run(name)
            spent = side.server_cpu_s() - cpu
            ran = _queries(side) - queries - 1  # the status read itself
            out[name] = (spent * 1e6 / n, ran / n)
        return out
    finally:
        conn.close()


def _queries(side: MariaDBSide) -> int:
    return int(side._sql("SHOW GLOBAL STATUS LIKE 'Queries'")[0][1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision of the other version")
    parser.add_argument("--warehouses", type=int, default=1)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    versions = {"before": procedures_of(args.before), "after": current.DDL}
    base = Path(tempfile.mkdtemp(prefix="dbstor-mariadb-work-", dir=args.dir))
    base.chmod(0o711)  # the server's account must reach its data directory
    (base / "data").mkdir()
    side = MariaDBSide(base, client_bound=True)
    rows: dict[tuple[str, str], list[tuple]] = {}
    try:
        side.start()
        workload = OrdersWorkload(args.warehouses, seed=1)
        workload.create(side.engine, lambda line: None)
        order = ["before", "after", "before", "after"]
        for r in range(args.rounds):
            turn = order[r % 2 :] + order[: r % 2]
            print(f"round {r + 1}: load {os.getloadavg()[0]:.1f}", file=sys.stderr)
            seen: set[str] = set()
            for version in turn:
                arm = version if version not in seen else f"{version} A/A"
                seen.add(version)
                install(side, versions[version])
                for name, figures in measure(side, workload, args.calls).items():
                    rows.setdefault((arm, name), []).append(figures)
    finally:
        side.stop()
        shutil.rmtree(base, ignore_errors=True)
    _print(rows)
    return 0


def _print(rows: dict[tuple[str, str], list[tuple]]) -> None:
    def med(arm: str, name: str, i: int) -> float:
        return statistics.median(f[i] for f in rows[(arm, name)])

    print("| transaction | server us / call, before | after | after / before"
          " | A/A before | A/A after | statements / call, before | after |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name in TRANSACTIONS:
        b, a = med("before", name, 0), med("after", name, 0)
        aa_b, aa_a = med("before A/A", name, 0) / b, med("after A/A", name, 0) / a
        sb, sa = med("before", name, 1), med("after", name, 1)
        print(f"| {name} | {b:.0f} | {a:.0f} | {a / b:.2f} | {aa_b:.2f} | {aa_a:.2f}"
              f" | {sb:.1f} | {sa:.1f} |")  # fmt: skip

    mix = {"New-Order": 45, "Payment": 43, "Order-Status": 4, "Delivery": 4, "Stock-Level": 4}
    for arm in ("before", "after", "before A/A", "after A/A"):
        per_new_order = sum(mix[t] * med(arm, t, 0) for t in TRANSACTIONS) / mix["New-Order"]
        print(f"{arm}: server us per New-Order in TPC-C's mix {per_new_order:.0f}")


if __name__ == "__main__":
    raise SystemExit(main())
