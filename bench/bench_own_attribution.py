"""Own vs device reads per transaction, with and without a competing reader, and what the
accounting of the run's own processes costs (issue 22).

One managed PostgreSQL (brokerage, `--scale`, a small `--buffer` under `--memory-limit`, so
that its reads go to the storage) is created and loaded once; then database points are
measured through the same worker the CLI uses, in alternating pairs:

- reader: a point alone, then a point while `dd` reads a 256 MiB file on the same disk with
  O_DIRECT in a loop: the database's own reads per transaction (cgroup), the device's, and
  the foreign share;
- cost: a point with the accounting (DbPoint.own_accounting) and one without: wall time per
  point and transactions per second.

Printed as medians and per-pair ratios.

    .venv/bin/python bench/bench_own_attribution.py --target /var/tmp/own-bench --pairs 4
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from dbstor.runs.database.point import DbPoint, TxnOutcome, server_pids
from dbstor.runs.database.worker import DatabaseWorker
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.own import OwnAccounting, own_window
from dbstor.testfiles import Safety


def measure(worker: DatabaseWorker, args: Any, index: int, account: bool) -> dict[str, float]:
    point = DbPoint(
        index=index,
        instances=1,
        users=args.users,
        warmup_s=args.warmup,
        duration_s=args.duration,
        devices=tuple(devices_for_path(args.target)),
        own_accounting=account,
    )
    started = time.monotonic()
    outcome = TxnOutcome.from_dict(worker.measure(point.to_dict()))
    wall = time.monotonic() - started
    txns = outcome.drive.tps * outcome.drive.measured_s
    device = outcome.device
    out = {"wall_s": wall, "tps": outcome.drive.tps}
    if device and txns:
        out["device_reads_per_txn"] = device.read_iops * outcome.drive.measured_s / txns
    if outcome.own and device and txns:
        own = sum(r["devices"].get(device.name, [0])[0] for r in outcome.own["roles"].values())
        out["own_reads_per_txn"] = own / txns
        whole = device.read_iops * outcome.drive.measured_s
        out["foreign_share"] = 1 - own / whole if whole else float("nan")
    return out


def reader(path: Path) -> subprocess.Popen[bytes]:
    loop = f"while true; do dd if={path} of=/dev/null bs=16k iflag=direct status=none; done"
    return subprocess.Popen(["bash", "-c", loop], start_new_session=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=Path, default=Path("/var/tmp/own-bench"))
    parser.add_argument("--scale", type=int, default=1000)
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--buffer", type=int, default=16 << 20)
    parser.add_argument("--memory-limit", type=int, default=128 << 20)
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    args.target.chmod(0o711)
    data = args.target / "pg"
    big = args.target / "competing-reader.dat"
    with big.open("wb") as out:
        for _ in range(256):
            out.write(os.urandom(1 << 20))
    worker = DatabaseWorker(Safety(keep=False, allow_overwrite=False))
    setup = {
        "instance": 0, "engine": "postgres", "paths": {"data": [str(data)]}, "dsn": None,
        "buffer_bytes": args.buffer, "memory_limit_bytes": args.memory_limit,
        "workload": "brokerage", "scale": args.scale, "seed": 1, "options": {},
        "users": args.users,
    }  # fmt: skip
    data.mkdir(exist_ok=True)
    rows: dict[str, list[dict[str, float]]] = {k: [] for k in ("alone", "reader", "on", "off")}
    try:
        print(worker.prepare(setup)["load"])
        index = 0
        for pair in range(args.pairs):
            order = ("alone", "reader") if pair % 2 == 0 else ("reader", "alone")
            for kind in order:
                competing = reader(big) if kind == "reader" else None
                try:
                    rows[kind].append(measure(worker, args, index, True))
                finally:
                    if competing is not None:
                        os.killpg(competing.pid, signal.SIGKILL)
                        competing.wait()
                index += 1
            order = ("on", "off") if pair % 2 == 0 else ("off", "on")
            for kind in order:
                rows[kind].append(measure(worker, args, index, kind == "on"))
                index += 1
            print(pair, {k: v[-1] for k, v in rows.items()})
        cycle = accounting_cycle(worker, args)
    finally:
        worker.cleanup()
        big.unlink(missing_ok=True)
        shutil.rmtree(data, ignore_errors=True)
    report(rows)
    print(
        f"one point's accounting (groups made, processes moved in, two reads, groups removed): median {cycle * 1e3:.2f} ms"
    )


def accounting_cycle(worker: DatabaseWorker, args: Any, cycles: int = 20) -> float:
    """Seconds for what the accounting adds to a point, around the live server."""
    pids = server_pids(worker.instances)
    took = []
    for n in range(cycles):
        started = time.perf_counter()
        own = OwnAccounting(tuple(devices_for_path(args.target)), f"bench{n}")
        own.start(pids, [os.getpid()])
        own_window(own.read(), own.read())
        own.stop()
        took.append(time.perf_counter() - started)
    return statistics.median(took)


def report(rows: dict[str, list[dict[str, float]]]) -> None:
    def med(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in rows[kind] if key in r)

    print("\n| point | own reads / txn | device reads / txn | foreign share | TPS |")
    print("|---|---|---|---|---|")
    for kind in ("alone", "reader"):
        print(
            f"| {kind} | {med(kind, 'own_reads_per_txn'):.2f} | "
            f"{med(kind, 'device_reads_per_txn'):.2f} | {med(kind, 'foreign_share'):.1%} | "
            f"{med(kind, 'tps'):,.0f} |"
        )
    wall = [a["wall_s"] / b["wall_s"] for a, b in zip(rows["on"], rows["off"], strict=True)]
    tps = [a["tps"] / b["tps"] for a, b in zip(rows["on"], rows["off"], strict=True)]
    print(
        f"\nwall time per point, accounting on / off: pairs {[round(w, 3) for w in wall]}, median {statistics.median(wall):.3f}"
    )
    print(
        f"TPS, accounting on / off: pairs {[round(t, 3) for t in tps]}, median {statistics.median(tps):.3f}"
    )
    print(f"wall s on {med('on', 'wall_s'):.2f}, off {med('off', 'wall_s'):.2f}")


if __name__ == "__main__":
    main()
