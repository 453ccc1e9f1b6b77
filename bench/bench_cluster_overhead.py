"""The cluster path against the single-host path: one host through Ray against no Ray.

A loopback Ray cluster (tests/integration/cluster_harness.py: nodes h1, h2, h3 in a network
namespace with only `lo`; needs root) runs the same `dbstor io` job (QD 4 and 16, each
`--repeat` times a run) in three ways, each once a round, the first taking turns:

- plain: no --cluster, test files in TARGET/dbstor-host-h1;
- plain again: the same, the control (A/A): how far two identical runs differ here;
- ray: `--cluster ADDR --hosts h1` with TARGET, whose host h1 uses the same files
  (TARGET/dbstor-host-h1 existed before the run, so it is used and kept).

Every run is inside the namespace with the cluster up. Per round, each way's figure over
plain's of that round; over rounds, the geometric mean of those ratios with its 95%
interval. The Ray ratio means something only next to the A/A ratio: the noise floor of this
machine's disk, measured in the same session. `--under /dev/shm` puts the files on tmpfs
(fio's direct I/O works there), where the disk adds no noise and the only thing Ray could
take from fio is CPU. The CPU the cluster's own processes used during each run is reported
too, in cores (fio and the dbstor command left out): those that live on (GCS, raylets, idle
workers) as cluster_cores, those started for the run (the agent's worker, its guard) as
run_cores. The first `--wall-rounds` rounds also time a 2-point run: (wall of the
2 x repeat point run - wall of the 2-point run) / (2 x repeat - 2) is what a point costs,
with the one-off cost of joining the cluster left out. Then one run on h1,h2,h3 for the
start skew.

    .venv/bin/python bench/bench_cluster_overhead.py --duration 10 --rounds 10 --repeat 3
    .venv/bin/python bench/bench_cluster_overhead.py --duration 10 --rounds 10 --under /dev/shm
    .venv/bin/python bench/bench_cluster_overhead.py --duration 5 --rounds 3 --busy 2
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
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


WAYS = ("plain", "plain again", "ray")  # the second plain run is the control: plain against plain
T_975 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}


def one_way(
    cluster: LoopbackCluster, target: Path, duration: int, way: str, repeat: int, timed: bool
) -> dict[str, float]:
    """One way's figures from a run of QD 4 and 16 `repeat` times: each depth's mean IOPS and
    median read p99 over its points; with `timed`, also a 2-point run for the wall time a
    point costs."""
    hosts = "h1" if way == "ray" else None
    # the cluster's host h1 lays its files in TARGET/dbstor-host-h1 (kept, as it existed
    # before the run): the plain runs are pointed there, so all three ways use one set of files
    where = target if hosts else target / "dbstor-host-h1"
    wall, points, cores, run = io_run(cluster, where, ",".join(["4,16"] * repeat), duration, hosts)
    got: dict[str, list[float]] = {}
    for point in points:
        depth = int(point["load"]["value"])
        got.setdefault(f"iops_qd{depth}", []).append(point["read_iops"] or 0)
        got.setdefault(f"p99_qd{depth}", []).append(point["read_lat_ms"]["p99"])
    figures = {
        key: statistics.mean(values) if key.startswith("iops") else statistics.median(values)
        for key, values in got.items()
    }
    figures["cluster_cores"] = cores
    figures["run_cores"] = run
    if timed:
        wall2, _, _, _ = io_run(cluster, where, "4,16", duration, hosts)
        figures["s_per_point"] = (wall - wall2) / (2 * repeat - 2)
        figures["wall_2_points"] = wall2
    return figures


def ratio_summary(rows: dict[str, list[dict[str, float]]], key: str, way: str) -> str:
    """Each round's way / plain: their geometric mean with its 95% interval (t on the logs),
    and their range."""
    ratios = [
        r[key] / p[key]
        for p, r in zip(rows["plain"], rows[way], strict=True)
        if key in r and p[key]
    ]
    if len(ratios) < 2:
        return f"{ratios[0]:.3f}" if ratios else "-"
    logs = [math.log(r) for r in ratios]
    mean = statistics.mean(logs)
    half = T_975.get(len(logs), 1.96) * statistics.stdev(logs) / math.sqrt(len(logs))
    return (
        f"{math.exp(mean):.3f} [{math.exp(mean - half):.3f}, {math.exp(mean + half):.3f}]"
        f" {min(ratios):.2f}-{max(ratios):.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5, help="seconds a point")
    parser.add_argument("--rounds", type=int, default=3, help="each way runs once a round")
    parser.add_argument("--repeat", type=int, default=3, help="QD 4 and 16 this often a run")
    parser.add_argument(
        "--wall-rounds", type=int, default=2, help="rounds that also time a 2-point run"
    )
    parser.add_argument(
        "--under",
        default="/var/tmp",
        help="directory the test files go under (a tmpfs such as /dev/shm: no disk noise)",
    )
    parser.add_argument(
        "--busy",
        type=int,
        default=0,
        help="this many busy loops at nice 0 throughout, as other work on a busy host",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # kill: the cluster is still stopped
    reason = can_run()
    if reason:
        raise SystemExit(reason)
    cluster = LoopbackCluster(["h1", "h2", "h3"])
    target = Path(tempfile.mkdtemp(prefix="dbsr-bench-t", dir=args.under))
    (target / "dbstor-host-h1").mkdir()
    rows: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    print(f"test files under {args.under}; load average {os.getloadavg()[0]:.2f}", flush=True)
    loop = [sys.executable, "-c", "while True: pass"]
    busy = [subprocess.Popen(loop) for _ in range(args.busy)]
    try:
        cluster.start()
        for turn in range(args.rounds):
            order = WAYS[turn % 3 :] + WAYS[: turn % 3]  # each way goes first in turn
            for way in order:
                timed = turn < args.wall_rounds
                figures = one_way(cluster, target, args.duration, way, args.repeat, timed)
                rows[way].append(figures)
                time.sleep(3)  # what a run leaves winding down (Ray's idle worker) not in the next
                print(
                    f"round {turn + 1} {way}: "
                    f"QD4 {figures['iops_qd4']:,.0f} IOPS p99 {figures['p99_qd4']:.3f} ms, "
                    f"QD16 {figures['iops_qd16']:,.0f} IOPS p99 {figures['p99_qd16']:.3f} ms; "
                    f"cluster cores {figures['cluster_cores']:.3f}, "
                    f"run cores {figures['run_cores']:.3f}"
                    + (f"; {figures['s_per_point']:.2f} s a point" if timed else "")
                    + f"; load average {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
        _, three, _, _ = io_run(cluster, target, "4,16", args.duration, "h1,h2,h3")
        skews = [p["start_skew_ms"] for p in three]
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
        cluster.stop()
        for leftover in sorted(target.rglob("*"), reverse=True):
            leftover.unlink() if leftover.is_file() else leftover.rmdir()
        target.rmdir()
    print(f"\n{args.rounds} rounds; in each every way ran once, first in turn; {args.duration} s")
    if args.busy:
        print(f"{args.busy} busy loops at nice 0 ran throughout (a host with other work)")
    print(
        f"points, QD 4 and 16 x {args.repeat} a run, 8 KiB random, 90% reads (io-oltp), one file set"
    )
    print(f"{'':15}{'plain':>9}{'again':>9}{'Ray':>9}   {'A/A: again / plain':<36}Ray / plain")
    for key in rows["plain"][0]:
        medians = [statistics.median(r[key] for r in rows[way] if key in r) for way in WAYS]
        shown = [f"{m:9,.0f}" if m >= 100 else f"{m:9.3f}" for m in medians]
        print(
            f"{key:15}{''.join(shown)}   "
            f"{ratio_summary(rows, key, 'plain again'):<36}{ratio_summary(rows, key, 'ray')}"
        )
    print("(ways: each way's median over rounds; IOPS a run is the mean of its points of that")
    print(" depth, p99 their median. Ratios: geometric mean over rounds of way / plain in that")
    print(" round, [its 95% interval], then the range. A/A is the noise floor: plain run twice)")
    print(f"start skew on h1,h2,h3 (ms): {', '.join(f'{s:.2f}' for s in skews)}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
