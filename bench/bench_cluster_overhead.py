"""The cluster path against the single-host path: one host through Ray against no Ray.

A loopback Ray cluster (tests/integration/cluster_harness.py: nodes h1, h2, h3 in a network
namespace with only `lo`; needs root) runs the same `dbstor io` job on the same target
`--pairs` times each way, taking turns: plain (no --cluster) and `--cluster ADDR --hosts h1`.
Both run inside the namespace. Per run: each point's IOPS and read p99, and the command's
wall time with 2 and with 4 points (the difference is what a point costs, so the one-off
cost of joining the cluster drops out). The pairs alternate their order (plain first, then Ray first, ...) so that drift on a busy
machine falls on both ways; each figure is reported as the median of the per-pair ratios
(Ray / plain) beside the medians of each way. The CPU the cluster's own processes used
during each run is reported too, in cores (fio and the dbstor command left out): those that
live on (GCS, raylets, idle workers) as cluster_cores, those started for the run (the
agent's worker, its guard) as run_cores; on a machine with two cores that is CPU fio does
not get. Then one run on h1,h2,h3 for the start
skew.

    .venv/bin/python bench/bench_cluster_overhead.py --duration 5 --pairs 8
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "integration"))

from cluster_harness import LoopbackCluster, can_run

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ticks(cluster: LoopbackCluster) -> dict[int, int]:
    """utime + stime of every process of the cluster that is not fio or a dbstor command."""
    ticks = {}
    for pid in cluster.pids():
        line = cluster.cmdline(pid)
        if line.split(" ")[0].endswith("fio") or " -m dbstor " in f" {line}":
            continue
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        ticks[pid] = int(fields[11]) + int(fields[12])
    return ticks


def io_run(cluster: LoopbackCluster, target: Path, depths: str, duration: int, hosts: str | None):
    out = Path(tempfile.mkdtemp(prefix="dbsr-bench-"))
    args = ["io", "--target", str(target), "--iodepth", depths, "--duration", f"{duration}s"]
    args += ["--warmup", "1s", "--size", "64MiB", "--out", str(out), "--quiet", "--keep"]
    if hosts:
        args += ["--cluster", cluster.address, "--hosts", hosts]
    before = cpu_ticks(cluster)
    last = dict(before)
    started = time.monotonic()
    proc = cluster.popen([sys.executable, "-m", "dbstor", *args])
    while proc.poll() is None:  # every half second, so processes that end are counted too
        last.update(cpu_ticks(cluster))
        time.sleep(0.5)
    wall = time.monotonic() - started
    last.update(cpu_ticks(cluster))
    _, stderr = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(stderr)
    run = json.loads(next(out.glob("*/results.json")).read_text())
    shutil.rmtree(out)
    kept = sum(last[pid] - before[pid] for pid in before if pid in last) / TICKS
    new = sum(ticks for pid, ticks in last.items() if pid not in before) / TICKS
    return wall, run["points"], kept / wall, new / wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    reason = can_run()
    if reason:
        raise SystemExit(reason)
    cluster = LoopbackCluster(["h1", "h2", "h3"])
    target = Path(tempfile.mkdtemp(prefix="dbsr-bench-t", dir="/var/tmp"))
    rows: dict[str, dict[str, list[float]]] = {"plain": {}, "ray": {}}
    try:
        cluster.start()
        for pair in range(args.pairs):
            ways = [("plain", None), ("ray", "h1")]
            for way, hosts in ways if pair % 2 == 0 else ways[::-1]:
                wall2, points, cores2, run2 = io_run(cluster, target, "4,16", args.duration, hosts)
                wall4, more, cores4, run4 = io_run(
                    cluster, target, "4,16,4,16", args.duration, hosts
                )
                got: dict[str, list[float]] = {}
                for point in points + more:
                    depth = int(point["load"]["value"])
                    got.setdefault(f"iops_qd{depth}", []).append(point["read_iops"] or 0)
                    got.setdefault(f"p99_qd{depth}", []).append(point["read_lat_ms"]["p99"])
                figures = {key: statistics.median(values) for key, values in got.items()}
                figures["s_per_point"] = (wall4 - wall2) / 2
                figures["wall_2_points"] = wall2
                figures["cluster_cores"] = (cores2 * wall2 + cores4 * wall4) / (wall2 + wall4)
                figures["run_cores"] = (run2 * wall2 + run4 * wall4) / (wall2 + wall4)
                for key, value in figures.items():
                    rows[way].setdefault(key, []).append(value)
                print(
                    f"pair {pair + 1} {way}: {wall2:.1f} s for 2 points, {wall4:.1f} s for 4; "
                    f"QD4 {figures['iops_qd4']:,.0f} IOPS p99 {figures['p99_qd4']:.3f} ms, "
                    f"QD16 {figures['iops_qd16']:,.0f} IOPS p99 {figures['p99_qd16']:.3f} ms; "
                    f"the cluster's processes used {figures['cluster_cores']:.2f} cores, "
                    f"those started for the run (the agent's worker, its guard) "
                    f"{figures['run_cores']:.2f}",
                    flush=True,
                )
        _, three, _, _ = io_run(cluster, target, "4,16", args.duration, "h1,h2,h3")
        skews = [p["start_skew_ms"] for p in three]
    finally:
        cluster.stop()
        for leftover in sorted(target.rglob("*"), reverse=True):
            leftover.unlink() if leftover.is_file() else leftover.rmdir()
        target.rmdir()
    print(f"\nmedians over {args.pairs} pairs of runs, each way's first taking turns")
    print(f"{args.duration} s points, QD 4 and 16, 4 KiB random reads and writes (io-oltp)")
    print(f"{'':16}{'no Ray':>12}{'Ray, 1 host':>14}{'ratio':>8}{'pair ratios':>14}")
    for key in rows["plain"]:
        plain = statistics.median(rows["plain"][key])
        ray = statistics.median(rows["ray"][key])
        ratios = [r / p for p, r in zip(rows["plain"][key], rows["ray"][key], strict=True) if p]
        middle = statistics.median(ratios) if ratios else float("nan")
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else ""
        print(f"{key:16}{plain:12.3f}{ray:14.3f}{middle:8.3f}{spread:>14}")
    print("(ratio: the median of the per-pair ratios Ray / plain; then their range)")
    print(f"start skew on h1,h2,h3 (ms): {', '.join(f'{s:.2f}' for s in skews)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
