"""dbstor io's start-up tax: a one-point `dbstor io` against plain fio running the very job
file dbstor wrote, and a 3-point sweep's wall time over the sum of its points.

Alternating pairs (AB, BA, ...) of plain fio and `dbstor io` on the same laid-out files,
with an A/A control arm in every round (plain fio twice, dbstor twice) so that the noise
of a shared machine is printed beside the difference; the load average at each pair's
start. Reported: medians of the wall times, their difference and ratio, the A/A
differences, the phases dbstor recorded (results.json `timings`), and the sweeps' wall over
the sum of their points (nominal, and as fio itself took them).

    .venv/bin/python bench/bench_startup.py --target /path/on/the/storage --rounds 4
    .venv/bin/python bench/bench_startup.py --target T --rounds 0 --sweeps 3 --other OLD/src

With `--other` (another tree's src, e.g. `git archive main src`), every sweep also runs
that tree's dbstor, the arms taking turns, so what a change gained is a ratio beside the
A/A spread. The bench exits with status 1, saying so in capitals, when the median of
dbstor's sweep wall over the sum of its points passes `--limit` (1.05: issue 39), or when
a point's `started_at` is not when its load began: a bench, so that the start-up tax
cannot grow again unnoticed.

Bytecode is cached as an installed dbstor has it (PYTHONDONTWRITEBYTECODE is dropped for
the children).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

JOB = "point-01.fio"


def child_env(src: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:  # another tree's dbstor (--other), ahead of the installed one
        env["PYTHONPATH"] = str(src)
    return env


CPU: dict[str, list[float]] = {"fio": [], "dbstor": []}  # CPU seconds of each run, by arm


def children_cpu() -> float:
    """CPU seconds of the finished children (and what they waited for: fio under dbstor)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def dbstor_io(
    args: argparse.Namespace, out: Path, depths: str, src: Path | None = None
) -> tuple[dict, float]:
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
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=child_env(src))
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
    parser.add_argument("--limit", type=float, default=1.05, help="sweep wall / sum of points")
    parser.add_argument("--other", type=Path, help="another tree's src, run in turns")
    parser.set_defaults(sweep_jobs=None)
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="dbstor-bench-startup-"))
    scratch = Path(tempfile.mkdtemp(prefix="dbstor-bench-fio-"))
    walls: dict[str, list[float]] = {"fio": [], "dbstor": [], "aa_fio": [], "aa_dbstor": []}
    timings: dict[str, list[float]] = {}
    loads: list[str] = []
    sweeps: list[dict[str, float]] = []  # each sweep round's walls by arm, and its load
    late: list[str] = []  # points whose started_at was not when their load began
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
        for number in range(args.sweeps):
            sweep_round(args, out, scratch, number, sweeps, late)
    finally:
        for leftover in args.target.glob("dbstor-io-*.dat"):
            leftover.unlink()
        (args.target / ".dbstor-owned.json").unlink(missing_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    report(args, walls, timings, loads, singles)
    return report_sweeps(args, sweeps, late)


def report(
    args: argparse.Namespace,
    walls: dict[str, list[float]],
    timings: dict[str, list[float]],
    loads: list[str],
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


def sweep_round(
    args: argparse.Namespace,
    out: Path,
    scratch: Path,
    number: int,
    sweeps: list[dict[str, float]],
    late: list[str],
) -> None:
    """One 3-point sweep by each arm (dbstor, plain fio on dbstor's job files, --other's
    dbstor), the arms' order turning each round; walls and the points' own walls kept."""
    arms = ["dbstor", "fio"] + (["other"] if args.other else [])
    shift = number % len(arms)
    found: dict[str, float] = {"load": os.getloadavg()[0]}
    for arm in arms[shift:] + arms[:shift]:
        if arm == "fio":
            jobs = sorted(Path(args.sweep_jobs).glob("point-*.fio")) if args.sweep_jobs else []
            if not jobs:  # the first sweep's jobs: dbstor writes them
                run, _ = dbstor_io(args, out, args.sweep)
                jobs = sorted((Path(run["folder"]) / "jobs").glob("point-*.fio"))
                args.sweep_jobs = str(jobs[0].parent)
            started = time.monotonic()
            for sweep_job in jobs:
                plain_fio(sweep_job, scratch)
            found["fio"] = time.monotonic() - started
            continue
        launched = time.time()
        run, wall = dbstor_io(args, out, args.sweep, args.other if arm == "other" else None)
        found[arm], found[f"{arm}_points"] = wall, sum(p["wall_s"] for p in run["points"])
        late.extend(f"{arm}: {why}" for why in started_late(run, launched))
    sweeps.append(found)
    print(
        f"sweep {number + 1} (load {found['load']:.1f}): "
        + ", ".join(f"{k} {v:.2f} s" for k, v in found.items() if k != "load"),
        file=sys.stderr,
    )


def started_late(run: dict, launched: float) -> list[str]:
    """Points whose `started_at` (whole seconds) is not when their load began: the first
    before the launch or after its first load's start, each next one more than 2 s from
    the point before's start plus its wall."""
    timings = run.get("timings") or {}
    first = launched + timings.get("first_load_after_launch_s", 0.0)
    out, expected = [], first
    for number, point in enumerate(run["points"], 1):
        began = datetime.fromisoformat(point["started_at"]).timestamp()
        if not expected - 2.0 <= began <= expected + 2.0:
            out.append(
                f"point {number} started_at {point['started_at']}, its load at {expected:.1f}"
            )
        expected = began + point["wall_s"]
    return out


def report_sweeps(args: argparse.Namespace, sweeps: list[dict[str, float]], late: list[str]) -> int:
    """The sweeps' ratios, medians over sweep rounds, with the A/A arm (each arm's ratio in
    one round over the next), and the verdict: 1 when the limit is passed."""
    if not sweeps:
        return 0
    depths = len(args.sweep.split(","))
    nominal = depths * (args.duration + args.warmup)
    print(
        f"\n{len(sweeps)} sweep rounds of {depths} points (QD {args.sweep}, "
        f"{args.duration + args.warmup} s a point, sum {nominal} s); load average at their "
        f"start: {', '.join(format(s['load'], '.1f') for s in sweeps)}\n"
    )
    arms = ["dbstor", "fio"] + (["other"] if args.other else [])
    print("| sweep (medians of rounds) | ratio | per round | A/A: round r / round r+1 |")
    print("|---|---:|---|---|")
    rows = [(f"{arm}'s wall / sum of points", [s[arm] / nominal for s in sweeps]) for arm in arms]
    rows.append(("dbstor's wall / plain fio's wall", [s["dbstor"] / s["fio"] for s in sweeps]))
    rows.append(
        (
            "dbstor's wall / its points' own walls",
            [s["dbstor"] / s["dbstor_points"] for s in sweeps],
        )
    )
    if args.other:
        rows.append(("dbstor's wall / --other's wall", [s["dbstor"] / s["other"] for s in sweeps]))
    for name, values in rows:
        aa = [a / b for a, b in itertools.pairwise(values)]
        print(
            f"| {name} | {med(values):.3f} | {', '.join(f'{v:.3f}' for v in values)} | "
            f"{', '.join(f'{v:.3f}' for v in aa) or '-'} |"
        )
    ratio = med([s["dbstor"] / nominal for s in sweeps])
    status = 0
    if ratio > args.limit:
        print(
            f"\nFAILED: A {depths}-POINT SWEEP TOOK {ratio:.3f}x THE SUM OF ITS POINTS, OVER THE LIMIT {args.limit}",
            file=sys.stderr,
        )
        status = 1
    if late:
        print(
            "\nFAILED: STARTED_AT IS NOT WHEN THE LOAD BEGAN: " + "; ".join(late), file=sys.stderr
        )
        status = 1
    if status == 0:
        print(f"\nwithin the limit: {ratio:.3f}x the sum of the points (limit {args.limit})")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
