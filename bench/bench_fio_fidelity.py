"""Fidelity and overhead of dbstor's fio sweeps, measured side by side with raw fio.

For each round: dbstor sweeps the io-oltp profile over the queue depths (keeping its test
files), then plain fio runs the very job files dbstor wrote, on the same files. Rounds
alternate which goes first, so drift on a shared machine falls on both alike. Prints a
markdown table: per queue depth, the median ratio dbstor / raw fio for IOPS and read p99,
and the sweep's wall time against the sum of its points' durations (warm-up included).

    .venv/bin/python bench/bench_fio_fidelity.py --target /path/on/the/storage --rounds 3
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


def dbstor_sweep(
    target: Path, out: Path, depths: str, duration: int, warmup: int, size: str
) -> tuple[dict, float]:
    cmd = [
        sys.executable,
        "-m",
        "dbstor",
        "io",
        "--target",
        str(target),
        "--iodepth",
        depths,
        "--duration",
        str(duration),
        "--warmup",
        str(warmup),
        "--size",
        size,
        "--out",
        str(out),
        "--keep",
        "--quiet",
        "--json",
    ]
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.monotonic() - started
    return json.loads(proc.stdout)["runs"][0], wall


def raw_fio(job_file: Path) -> tuple[float, float | None]:
    out = subprocess.run(
        ["fio", "--output-format=json+", str(job_file)], capture_output=True, text=True, check=True
    )
    run = parse_fio_json(out.stdout)
    return run.read.iops + run.write.iops, run.read.histogram.stats().p99


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=Path, default=Path("dbstor-data"))
    parser.add_argument("--depths", default="1,4,16,64")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--size", default="1GiB")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    depths = [int(d) for d in args.depths.split(",")]
    ratios: dict[int, dict[str, list[float]]] = {d: {"iops": [], "p99": []} for d in depths}
    overheads = []
    out = Path(tempfile.mkdtemp(prefix="dbstor-bench-"))
    try:
        for round_no in range(args.rounds):
            run, wall = dbstor_sweep(
                args.target, out, args.depths, args.duration, args.warmup, args.size
            )
            folder = Path(run["folder"])
            points_time = len(run["points"]) * (args.duration + args.warmup)
            if round_no > 0:  # round 0 includes laying out the files
                overheads.append(wall / points_time)
            raw = {
                d: raw_fio(folder / "jobs" / f"point-{i + 1:02d}.fio") for i, d in enumerate(depths)
            }
            if round_no % 2:  # alternate the order: raw fio first, then dbstor again
                run, wall = dbstor_sweep(
                    args.target, out, args.depths, args.duration, args.warmup, args.size
                )
                overheads.append(wall / points_time)
            for i, depth in enumerate(depths):
                point = run["points"][i]
                raw_iops, raw_p99 = raw[depth]
                ratios[depth]["iops"].append(point["iops"] / raw_iops)
                if raw_p99 and point["read_p99_ms"]:
                    ratios[depth]["p99"].append(point["read_p99_ms"] / raw_p99)
                print(
                    f"round {round_no + 1} QD{depth}: dbstor {point['iops']:,.0f} IOPS p99 {point['read_p99_ms']} ms; raw fio {raw_iops:,.0f} IOPS p99 {raw_p99} ms",
                    file=sys.stderr,
                )
    finally:
        for leftover in args.target.glob("dbstor-io-oltp-*.dat"):
            leftover.unlink()
        (args.target / ".dbstor-owned.json").unlink(missing_ok=True)
        shutil.rmtree(out, ignore_errors=True)
    print(
        f"fio {subprocess.run(['fio', '--version'], capture_output=True, text=True).stdout.strip()}, io-oltp, {args.duration} s + {args.warmup} s warm-up per point, {args.rounds} rounds, medians\n"
    )
    print("| queue depth | IOPS dbstor / raw fio | read p99 dbstor / raw fio |")
    print("|---|---|---|")
    for depth in depths:
        iops = statistics.median(ratios[depth]["iops"])
        p99 = statistics.median(ratios[depth]["p99"]) if ratios[depth]["p99"] else float("nan")
        print(f"| {depth} | {iops:.3f} | {p99:.3f} |")
    if overheads:
        print(
            f"\nsweep wall time / sum of point durations: median {statistics.median(overheads):.3f} (max {max(overheads):.3f}, {len(overheads)} sweeps on laid-out files)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
