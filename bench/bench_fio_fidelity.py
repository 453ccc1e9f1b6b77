"""Fidelity and overhead of dbstor's fio sweeps, measured side by side with raw fio.

Three measurements in one run, on the same test files:
1. Side by side: for each queue depth, dbstor measures one point, then plain fio runs the
   very job file dbstor wrote; pairs alternate order (AB, BA, ...) so drift on a shared
   machine falls on both alike. Reported: median ratio dbstor / raw fio of IOPS and read p99.
2. Same run: dbstor's IOPS and read p99 against fio's own json+ output of that very run
   (dbstor merges per-job histograms itself), i.e. what dbstor's parsing adds: should be 1.
3. Overhead: a whole sweep's wall time against the sum of its points' durations
   (warm-up included), on laid-out files.

    .venv/bin/python bench/bench_fio_fidelity.py --target /path/on/the/storage --pairs 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dbstor.drivers.fio_output import parse_fio_json


def dbstor_io(args: argparse.Namespace, out: Path, depths: str) -> tuple[dict, float]:
    cmd = [
        sys.executable,
        "-m",
        "dbstor",
        "io",
        "--target",
        str(args.target),
        "--iodepth",
        depths,
        "--duration",
        str(args.duration),
        "--warmup",
        str(args.warmup),
        "--size",
        args.size,
        "--out",
        str(out),
        "--keep",
        "--quiet",
        "--json",
    ]
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)["runs"][0], time.monotonic() - started


def raw_fio(job_file: Path) -> tuple[float, float | None]:
    out = subprocess.run(
        ["fio", "--output-format=json+", str(job_file)], capture_output=True, text=True, check=True
    )
    run = parse_fio_json(out.stdout)
    return run.read.iops + run.write.iops, run.read.histogram.stats().p99


def fio_own_view(job_json: Path) -> tuple[float, float | None]:
    """IOPS and read p99 as fio itself printed them for a one-job run (percentile in ns)."""
    job = json.loads(job_json.read_text())["jobs"][0]
    p99 = job["read"]["clat_ns"]["percentile"].get("99.000000")
    return job["read"]["iops"] + job["write"]["iops"], p99 / 1e6 if p99 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=Path, default=Path("dbstor-data"))
    parser.add_argument("--depths", default="1,4,16,64")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--size", default="1GiB")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    depths = [int(d) for d in args.depths.split(",")]
    side = {d: {"iops": [], "p99": []} for d in depths}
    same = {d: {"iops": [], "p99": []} for d in depths}
    out = Path(tempfile.mkdtemp(prefix="dbstor-bench-"))
    jobs: dict[int, Path] = {}
    try:
        dbstor_io(args, out, str(depths[0]))  # lays out the files once
        for pair in range(args.pairs):
            for depth in depths:
                raw_first = pair % 2 == 1  # pair 0 runs dbstor first, so every depth has a job file
                if raw_first:
                    raw = raw_fio(jobs[depth])
                run, _ = dbstor_io(args, out, str(depth))
                point = run["points"][0]
                folder = Path(run["folder"])
                jobs[depth] = folder / "jobs" / "point-01.fio"
                if not raw_first:
                    raw = raw_fio(jobs[depth])
                side[depth]["iops"].append(point["iops"] / raw[0])
                if raw[1] and point["read_p99_ms"]:
                    side[depth]["p99"].append(point["read_p99_ms"] / raw[1])
                own_iops, own_p99 = fio_own_view(folder / "jobs" / "point-01.json")
                same[depth]["iops"].append(point["iops"] / own_iops)
                if own_p99 and point["read_p99_ms"]:
                    same[depth]["p99"].append(point["read_p99_ms"] / own_p99)
                print(
                    f"pair {pair + 1} QD{depth}: dbstor {point['iops']:,.0f} IOPS p99 {point['read_p99_ms']} ms; raw fio {raw[0]:,.0f} IOPS p99 {raw[1]} ms",
                    file=sys.stderr,
                )
        overheads = []
        for _ in range(2):
            run, wall = dbstor_io(args, out, args.depths)
            overheads.append(wall / (len(run["points"]) * (args.duration + args.warmup)))
    finally:
        for leftover in args.target.glob("dbstor-io-oltp-*.dat"):
            leftover.unlink()
        (args.target / ".dbstor-owned.json").unlink(missing_ok=True)
        shutil.rmtree(out, ignore_errors=True)
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    print(
        f"{version}, io-oltp, 1 job, {args.duration} s + {args.warmup} s warm-up per point, {args.pairs} alternating pairs per queue depth, medians\n"
    )
    print(
        "| queue depth | side by side: IOPS dbstor / raw fio | side by side: read p99 dbstor / raw fio | same run: IOPS dbstor / fio's own | same run: p99 dbstor / fio's own |"
    )
    print("|---|---|---|---|---|")

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.3f}" if values else "n/a"

    for depth in depths:
        print(
            f"| {depth} | {med(side[depth]['iops'])} | {med(side[depth]['p99'])} | {med(same[depth]['iops'])} | {med(same[depth]['p99'])} |"
        )
    print(
        f"\nsweep wall time / sum of point durations (warm-up included): {', '.join(f'{o:.3f}' for o in overheads)} ({len(depths)}-point sweeps on laid-out files)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
