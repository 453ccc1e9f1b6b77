"""MariaDB's brokerage users three ways in one process, on one managed server: on the
driver's loop thread (dialects/mysql/brokerage.py: Wire, a greenlet per transaction), on a
thread each through the same Wire (as a user with a think time, a rate or a crash event
runs), and on a thread each through mysqlclient's cursor (main before issue 39's change).

The two thread modes are forced the way the driver picks them: survive_restarts keeps a
thread per user; the cursor mode takes the Wire away (the dialect's wire_in_any_thread and
statements_without_thread off). Per run: the load threads' own CPU (the driver's figure,
drivers/load_cpu.py) per committed transaction, and transactions a second. Rounds
alternate the order (A B C, then C B A ...); the loop mode runs again at the end of
each round as the A/A control. Printed: medians, ratios to the loop mode with each round's
ratio, the load average at each round's start.

    .venv/bin/python bench/bench_mariadb_brokerage_modes.py --users 4 --rounds 3 --seconds 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from dbstor.dialects.mysql import DIALECT
from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from dbstor.workloads.brokerage import BrokerageWorkload

MODES = ("loop-wire", "threads-wire", "threads-cursor")


def run(engine: MariaDBEngine, workload: BrokerageWorkload, mode: str, args: argparse.Namespace):
    """One run of a mode: (client us CPU per transaction, transactions a second)."""
    type(DIALECT).wire_in_any_thread = mode != "threads-cursor"
    type(DIALECT).statements_without_thread = mode == "loop-wire"
    threads = mode != "loop-wire"
    driver = VirtualUsers(
        [Instance(engine, workload)], args.users, seed=3, survive_restarts=threads
    )
    result = driver.run(1.0, args.seconds)
    if result.fatal or result.errors:
        raise SystemExit(f"{mode}: {result.fatal or result.messages}")
    return result.client_cpu_s * 1e6 / max(result.commits, 1), result.tps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--scale", type=int, default=50)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-modes-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    settings = EngineSettings(
        paths={"data": [base / "data"]}, buffer_bytes=128 << 20, users=args.users + 8
    )
    engine = MariaDBEngine(settings)
    rows: dict[str, list[tuple[float, float]]] = {}
    loads: list[float] = []
    try:
        engine.start()
        engine.query("SET GLOBAL innodb_flush_log_at_trx_commit = 2")
        workload = BrokerageWorkload(args.scale, seed=1)
        workload.create(engine, lambda line: None)
        for number in range(args.rounds):
            loads.append(os.getloadavg()[0])
            order = list(MODES) if number % 2 == 0 else list(MODES[::-1])
            for name in [*order, "loop-wire (A/A)"]:
                rows.setdefault(name, []).append(run(engine, workload, name.split()[0], args))
                print(f"round {number + 1}, {name}: {rows[name][-1]}", flush=True)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(f"\n{args.users} users, {args.seconds:g} s a run, load average at each round's start: "
          + ", ".join(f"{v:.1f}" for v in loads))  # fmt: skip
    print("\n| mode | TPS | client us CPU / txn | x loop-wire (rounds) |\n|---|---:|---:|---|")
    loop = rows["loop-wire"]
    for name, found in rows.items():
        us = statistics.median(r[0] for r in found)
        each = ", ".join(f"{a[0] / b[0]:.2f}" for a, b in zip(found, loop, strict=False))
        ratio = us / statistics.median(r[0] for r in loop)
        print(f"| {name} | {statistics.median(r[1] for r in found):,.0f} | {us:.0f} "
              f"| x{ratio:.2f} ({each}) |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
