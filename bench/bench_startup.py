"""dbstor io's start-up tax: a one-point `dbstor io` against plain fio running the very job
file dbstor wrote, and a 3-point sweep's wall time over the sum of its points.

Alternating pairs (AB, BA, ...) of plain fio and `dbstor io` on the same laid-out files,
with an A/A control arm in every round (plain fio twice, dbstor twice) so that the noise
of a shared machine is printed beside the difference; the load average at each pair's
start. Reported: medians of the wall times, their difference and ratio, the A/A
differences, the phases dbstor recorded (results.json `timings`), and the sweeps' wall over
the sum of their points (nominal, and as fio itself took them).

    .venv/bin/python bench/bench_startup.py --target /path/on/the/storage --rounds 4

Bytecode is cached as an installed dbstor has it (PYTHONDONTWRITEBYTECODE is dropped for
the children).
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

JOB = "point-01.fio"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


CPU: dict[str, list[float]] = {"fio": [], "dbstor": []}  # CPU seconds of each run, by arm


def children_cpu() -> float:
    """CPU seconds of the finished children (and what they waited for: fio under dbstor)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def dbstor_io(args: argparse.Namespace, out: Path, depths: str) -> tuple[dict, float]:
    """One `dbstor io` from launch to exit: (its results.json, wall seconds)."""
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
        f"{args.duration}s",
        "--warmup",
        f"{args.warmup}s",
        "--size",
        args.size,
        "--out",
        str(out),
        "--keep",
        "--quiet",
        "--json",
    ]
    started, cpu = time.monotonic(), children_cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=child_env())
    wall = time.monotonic() - started
    CPU["dbstor"].append(children_cpu() - cpu)
    folder = Path(json.loads(proc.stdout)["runs"][0]["folder"])
    return json.loads((folder / "results.json").read_text()) | {"folder": str(folder)}, wall


def plain_fio(job: Path, scratch: Path) -> float:
    """fio on the job file as dbstor runs it (json+ to a file), from launch to exit."""
    started, cpu = time.monotonic(), children_cpu()
    subprocess.run(
        ["fio", "--output-format=json+", f"--output={scratch / 'out.json'}", str(job)],
        cwd=scratch,
        check=True,
        capture_output=True,
    )
    CPU["fio"].append(children_cpu() - cpu)
    return time.monotonic() - started


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=Path, default=Path("dbstor-data"))
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--size", default="1GiB")
    parser.add_argument("--iodepth", default="4")
    parser.add_argument("--sweep", default="1,4,16", help="queue depths of the sweep")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--sweeps", type=int, default=3)
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="dbstor-bench-startup-"))
    scratch = Path(tempfile.mkdtemp(prefix="dbstor-bench-fio-"))
    walls: dict[str, list[float]] = {"fio": [], "dbstor": [], "aa_fio": [], "aa_dbstor": []}
    timings: dict[str, list[float]] = {}
    loads: list[str] = []
    sweeps: list[tuple[float, float, float, float]] = []  # dbstor, its points, fio alone, load
    singles: dict[str, list[float]] = {}  # CPU seconds of the one-point runs, by arm
    try:
        first, _ = dbstor_io(args, out, args.iodepth)  # lays out the files once, writes the job
        job = Path(first["folder"]) / "jobs" / JOB
        for round_no in range(args.rounds):
            load = os.getloadavg()[0]
            loads.append(f"{load:.1f}")
            order = ["fio", "dbstor"] if round_no % 2 else ["dbstor", "fio"]
            for arm in order:
                if arm == "fio":
                    walls["fio"].append(plain_fio(job, scratch))
                else:
                    run, wall = dbstor_io(args, out, args.iodepth)
                    walls["dbstor"].append(wall)
                    spent = run.get("timings") or {}
                    for name, seconds in spent.items():
                        timings.setdefault(name, []).append(seconds)
                    if "first_load_after_launch_s" in spent:  # from fio's exit to dbstor's
                        end = wall - spent["first_load_after_launch_s"] - spent["load_s"]
                        timings.setdefault("(bench) last load's end to exit", []).append(end)
            a, b = plain_fio(job, scratch), plain_fio(job, scratch)
            walls["aa_fio"].append(a - b)
            (_, a), (_, b) = dbstor_io(args, out, args.iodepth), dbstor_io(args, out, args.iodepth)
            walls["aa_dbstor"].append(a - b)
            print(
                f"round {round_no + 1} (load {load:.1f}): fio {walls['fio'][-1]:.2f} s, "
                f"dbstor {walls['dbstor'][-1]:.2f} s; A/A fio {walls['aa_fio'][-1]:+.2f} s, "
                f"dbstor {walls['aa_dbstor'][-1]:+.2f} s",
                file=sys.stderr,
            )
        singles.update({arm: list(seconds) for arm, seconds in CPU.items()})
        jobs: list[Path] = []
        for _ in range(args.sweeps):
            load = os.getloadavg()[0]
            run, wall = dbstor_io(args, out, args.sweep)
            jobs = sorted((Path(run["folder"]) / "jobs").glob("point-*.fio"))
            own = sum(p["wall_s"] for p in run["points"])
            started = time.monotonic()
            for sweep_job in jobs:
                plain_fio(sweep_job, scratch)
            alone = time.monotonic() - started
            sweeps.append((wall, own, alone, load))
            print(
                f"sweep: dbstor {wall:.2f} s (points {own:.2f} s), fio alone {alone:.2f} s",
                file=sys.stderr,
            )
    finally:
        for leftover in args.target.glob("dbstor-io-*.dat"):
            leftover.unlink()
        (args.target / ".dbstor-owned.json").unlink(missing_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    report(args, walls, timings, loads, sweeps, singles)
    return 0


def report(
    args: argparse.Namespace,
    walls: dict[str, list[float]],
    timings: dict[str, list[float]],
    loads: list[str],
    sweeps: list[tuple[float, float, float, float]],
    singles: dict[str, list[float]],
) -> None:
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    fio, dbstor = med(walls["fio"]), med(walls["dbstor"])
    print(
        f"{version}, io-oltp QD{args.iodepth}, {args.duration} s + {args.warmup} s warm-up, "
        f"{args.size} of laid-out files, {args.rounds} rounds; load average at each round's "
        f"start: {', '.join(loads)}\n"
    )
    print("| one point | median wall (s) | dbstor - fio (s) | dbstor / fio |")
    print("|---|---|---|---|")
    print(f"| plain fio, the job file dbstor wrote | {fio:.2f} | | |")
    print(
        f"| `dbstor io`, launch to exit | {dbstor:.2f} | {dbstor - fio:+.2f} | {dbstor / fio:.3f} |"
    )
    print(
        f"| A/A control: fio - fio, dbstor - dbstor (median of differences) | | "
        f"{med(walls['aa_fio']):+.2f}, {med(walls['aa_dbstor']):+.2f} | |"
    )
    fio_cpu, dbstor_cpu = med(singles.get("fio", [])), med(singles.get("dbstor", [])[1:])
    print(
        f"\nCPU seconds of a run (the process and what it waited for; medians over every "
        f"one-point run): plain fio {fio_cpu:.2f}, dbstor {dbstor_cpu:.2f} (fio's included): "
        f"dbstor's own {dbstor_cpu - fio_cpu:+.2f} s"
    )
    print("\n| phase (results.json `timings`) | median (s) |\n|---|---|")
    for name, values in timings.items():
        print(f"| {name} | {med(values):.3f} |")
    if sweeps:
        depths = len(args.sweep.split(","))
        nominal = depths * (args.duration + args.warmup)
        print(
            f"\n{len(sweeps)} sweeps of {depths} points (QD {args.sweep}); load average at "
            f"their start: {', '.join(f'{s[3]:.1f}' for s in sweeps)}\n"
        )
        print("| sweep | median |\n|---|---|")
        print(
            f"| dbstor's wall / sum of points ({nominal} s) | {med([s[0] / nominal for s in sweeps]):.3f} |"
        )
        print(
            f"| plain fio's wall for the same 3 jobs / {nominal} s | {med([s[2] / nominal for s in sweeps]):.3f} |"
        )
        print(
            f"| dbstor's wall / its points' own wall (fio's start and stop included) | {med([s[0] / s[1] for s in sweeps]):.3f} |"
        )
        print(f"| dbstor's wall / plain fio's wall | {med([s[0] / s[2] for s in sweeps]):.3f} |")


if __name__ == "__main__":
    raise SystemExit(main())
