"""The client's cost from 1 to 1,000 virtual users: CPU per transaction and memory per user.

For each workload (orders, brokerage, blocks) one `dbstor run` on a managed PostgreSQL
sweeps the users (default 1, 8, 64, 256, 1000), with dbstor's defaults (client processes
included); the workloads take turns, `--runs` times. From each run's results.json: client
CPU per transaction (client.cpu_ms_per_txn: the CPU of the threads that drive the load
over the measured window / the transactions they counted), its ratio to the same run's 8-user value, memory
per user (client.rss_per_user_kib: the client tree's peak over the point less its base,
per user), the client processes, TPS, p99 and the saturation decision (point.saturation.by).
Printed: medians over the runs per workload and user count, with the load average (1 min)
at each point's start and the run queue the client saw in its window.

    .venv/bin/python bench/bench_users_scale.py --runs 2 --duration 15 --warmup 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

SCALES = {"orders": "4", "brokerage": "1000", "blocks": "1000"}  # blocks: rows per user


class LoadWatch(threading.Thread):
    """The host's 1-minute load average each second, to look up at each point's start."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: list[tuple[float, float]] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(1.0):
            self.seen.append((time.time(), os.getloadavg()[0]))

    def at(self, moment: float) -> float | None:
        before = [load for t, load in self.seen if t <= moment + 1]
        return before[-1] if before else None


def one_run(workload: str, users: str, args: argparse.Namespace, work: Path) -> dict:
    """One dbstor run of the workload over the users; its results.json."""
    data, out = work / f"data-{workload}", work / "results"
    data.mkdir(exist_ok=True)
    os.chmod(work, 0o755)
    os.chmod(data, 0o755)
    before = set(out.glob("*")) if out.exists() else set()
    cmd = [
        sys.executable, "-m", "dbstor", "run", "--engine", "postgres", "--workload", workload,
        "--target", str(data), "--scale", SCALES[workload], "--users", users,
        "--duration", f"{args.duration}s", "--warmup", f"{args.warmup}s", "--out", str(out),
        "--quiet", *args.extra,
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=7200)
    made = [p for p in out.glob("*") if p not in before and (p / "results.json").exists()]
    if done.returncode != 0 or not made:
        raise SystemExit(f"dbstor run failed ({workload}): {done.stderr.strip()[-2000:]}")
    return json.loads((made[0] / "results.json").read_text())


def rows_of(results: dict, watch: LoadWatch) -> dict[int, dict[str, Any]]:
    """Per user count: the figures of one run's point."""
    rows: dict[int, dict[str, Any]] = {}
    for point in results["points"]:
        if point.get("status", "ok") != "ok":
            continue
        client = point.get("client") or {}
        started = datetime.fromisoformat(point["started_at"]).timestamp()
        rows[int(point["load"]["value"])] = {
            "cpu_ms_per_txn": client.get("cpu_ms_per_txn"),
            "kib_per_user": client.get("rss_per_user_kib"),
            "processes": client.get("processes"),
            "tps": point.get("tps"),
            "p99_ms": (point.get("txn_lat_ms") or {}).get("p99"),
            "run_queue": client.get("host_run_queue_mean"),
            "saturated_by": (point.get("saturation") or {}).get("by"),
            "load": watch.at(started),
        }
    base = (rows.get(8) or {}).get("cpu_ms_per_txn")
    for row in rows.values():
        cpu = row["cpu_ms_per_txn"]
        row["ratio_to_8"] = cpu / base if cpu is not None and base else None
    return rows


def median(values: list[Any]) -> float | None:
    found = [v for v in values if isinstance(v, int | float)]
    return statistics.median(found) if found else None


def table(workload: str, runs: list[dict[int, dict[str, Any]]]) -> str:
    lines = [
        f"**{workload}** (scale {SCALES[workload]}), medians of {len(runs)} run(s):",
        "",
        "| users | client ms CPU / txn | ratio to 8 users | KiB / user | client processes "
        "| TPS | p99 ms | load avg at start | run queue | saturated by |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for users in sorted({u for run in runs for u in run}):
        got = [run[users] for run in runs if users in run]

        def m(key: str, digits: int, got: list[dict[str, Any]] = got) -> str:
            value = median([g[key] for g in got])
            return "-" if value is None else f"{value:,.{digits}f}"

        by = sorted({str(g["saturated_by"]) for g in got if g["saturated_by"]}) or ["-"]
        lines.append(
            f"| {users:,} | {m('cpu_ms_per_txn', 4)} | {m('ratio_to_8', 2)} | "
            f"{m('kib_per_user', 1)} | {m('processes', 0)} | {m('tps', 0)} | {m('p99_ms', 1)} "
            f"| {m('load', 1)} | {m('run_queue', 1)} | {', '.join(by)} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="orders,brokerage,blocks")
    parser.add_argument("--users", default="1,8,64,256,1000")
    parser.add_argument("--runs", type=int, default=2, help="runs per workload (medians)")
    parser.add_argument("--duration", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write every run's rows here")
    parser.add_argument("extra", nargs="*", help="more dbstor run flags, after --")
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    watch = LoadWatch()
    watch.start()
    found: dict[str, list[dict[int, dict[str, Any]]]] = {w: [] for w in workloads}
    with tempfile.TemporaryDirectory(prefix="dbstor-users-", dir="/var/tmp") as tmp:
        for n in range(args.runs):
            for workload in workloads if n % 2 == 0 else reversed(workloads):
                print(f"run {n + 1}: {workload} (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
                found[workload].append(
                    rows_of(one_run(workload, args.users, args, Path(tmp)), watch)
                )
    watch.stopped.set()
    if args.json:
        args.json.write_text(json.dumps(found, indent=1))
    print("\n\n".join(table(w, runs) for w, runs in found.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
