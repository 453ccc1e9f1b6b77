"""The cluster path against the single-host path: one host through Ray against no Ray.

A loopback Ray cluster (tests/integration/cluster_harness.py: nodes h1, h2, h3 in a network
namespace with only `lo`; needs root) runs the same `dbstor io` job on the same target
`--pairs` times each way, taking turns: plain (no --cluster) and `--cluster ADDR --hosts h1`.
Both run inside the namespace. Per run: each point's IOPS and read p99, and the command's
wall time with 2 and with 4 points (the difference is what a point costs, so the one-off
cost of joining the cluster drops out). IOPS and p99 are medians over every point of a depth. Then one run on h1,h2,h3 for the start skew.

    .venv/bin/python bench/bench_cluster_overhead.py --duration 5 --pairs 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "integration"))

from cluster_harness import LoopbackCluster, can_run


def io_run(cluster: LoopbackCluster, target: Path, depths: str, duration: int, hosts: str | None):
    out = Path(tempfile.mkdtemp(prefix="dbsr-bench-"))
    args = ["io", "--target", str(target), "--iodepth", depths, "--duration", f"{duration}s"]
    args += ["--warmup", "1s", "--size", "64MiB", "--out", str(out), "--quiet", "--keep"]
    if hosts:
        args += ["--cluster", cluster.address, "--hosts", hosts]
    started = time.monotonic()
    proc = cluster.dbstor(*args, timeout=900)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    run = json.loads(next(out.glob("*/results.json")).read_text())
    shutil.rmtree(out)
    return wall, run["points"]


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
            for way, hosts in (("plain", None), ("ray", "h1")):
                wall2, points = io_run(cluster, target, "4,16", args.duration, hosts)
                wall4, more = io_run(cluster, target, "4,16,4,16", args.duration, hosts)
                got = rows[way]
                for point in points + more:
                    depth = int(point["load"]["value"])
                    got.setdefault(f"iops_qd{depth}", []).append(point["read_iops"] or 0)
                    got.setdefault(f"p99_qd{depth}", []).append(point["read_lat_ms"]["p99"])
                got.setdefault("s_per_point", []).append((wall4 - wall2) / 2)
                got.setdefault("wall_2_points", []).append(wall2)
                print(f"pair {pair + 1} {way}: {wall2:.1f} s for 2 points, {wall4:.1f} s for 4")
        _, three = io_run(cluster, target, "4,16", args.duration, "h1,h2,h3")
        skews = [p["start_skew_ms"] for p in three]
    finally:
        cluster.stop()
        for leftover in sorted(target.rglob("*"), reverse=True):
            leftover.unlink() if leftover.is_file() else leftover.rmdir()
        target.rmdir()
    print(
        f"\nmedians over {args.pairs} pairs of runs ({3 * args.pairs} points per depth each way),"
    )
    print(f"{args.duration} s points, QD 4 and 16, 4 KiB random reads and writes (io-oltp)")
    print(f"{'':16}{'no Ray':>12}{'Ray, 1 host':>14}{'ratio':>8}")
    for key in rows["plain"]:
        plain = statistics.median(rows["plain"][key])
        ray = statistics.median(rows["ray"][key])
        ratio = ray / plain if plain else float("nan")
        print(f"{key:16}{plain:12.3f}{ray:14.3f}{ratio:8.3f}")
    print(f"start skew on h1,h2,h3 (ms): {', '.join(f'{s:.2f}' for s in skews)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
