"""The soak: one long open-loop point of orders on a managed PostgreSQL, the client watched.

`dbstor run --engine postgres --workload orders --rate R` runs as one load point of
`--minutes` minutes at a fixed rate (Poisson arrivals served by `--users` users), with its
per-second samples (commits and mean transaction latency a second, in samples.csv). Beside
it, every `--interval` seconds, this script reads from /proc the resident memory (VmRSS) and
the open file descriptors of the dbstor process and of every process under it (the client
side; the managed PostgreSQL server runs as its own account outside that tree and is not
counted), and the load average of the machine.

At the end it prints, and writes as JSON (`soak.json` in the target folder):

- errors: dbstor's exit status, the point's status, errors, retries and messages;
- the client's RSS and open files at minute 5 of the measured window (`--settle`), at its
  end, the growth between them in %, and the largest value after minute 5; "flat" when both
  grew by less than `--flat-pct` (5%);
- latency drift: per window of `--window` seconds (5 minutes) the mean and the p99 of the
  per-second mean latency, and the ratio of the last window to the first one after minute 5;
- throughput held: the point's TPS against the rate asked, per window too, and the
  open-loop backlog.

If dbstor fails, the script says why (the tail of its log) and still writes what it sampled.

    .venv/bin/python bench/bench_soak.py --minutes 60 --rate 50 --users 8
    .venv/bin/python bench/bench_soak.py --minutes 3 --window 60 --settle 60   # a quick try
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


# ---- reading /proc ----


def descendants(root: int) -> list[int]:
    """root and every process under it, from the parent links in /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone between the listing and the read
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def rss_and_fds(pid: int) -> tuple[int, int, int] | None:
    """(RSS in KiB, open file descriptors, owner uid) of a process, or None once it is gone."""
    try:
        rss, uid = 0, -1
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Uid:"):
                uid = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, ValueError):
        return None
    return rss, fds, uid


def client_sample(root: int) -> dict[str, Any]:
    """One sample of the client side: dbstor and its descendants owned by our own user."""
    me = os.getuid()
    rss = fds = processes = 0
    main_rss = main_fds = None
    for pid in descendants(root):
        got = rss_and_fds(pid)
        if got is None or got[2] != me:
            continue
        rss, fds, processes = rss + got[0], fds + got[1], processes + 1
        if pid == root:
            main_rss, main_fds = got[0], got[1]
    load1 = float(Path("/proc/loadavg").read_text().split()[0])
    return {
        "wall": time.time(),
        "processes": processes,
        "rss_kib": rss,
        "fds": fds,
        "main_rss_kib": main_rss,
        "main_fds": main_fds,
        "load1": load1,
    }


# ---- the arithmetic (pure) ----


def growth_pct(start: float | None, end: float | None) -> float | None:
    """Growth from start to end in % of start."""
    if start is None or end is None or start <= 0:
        return None
    return (end - start) / start * 100


def percentile(values: Sequence[float], pct: float) -> float | None:
    """The pct-th percentile, nearest rank (a p99 of 300 values is the 297th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def client_figures(rows: list[dict[str, Any]], settle_s: float, end_s: float) -> dict[str, Any]:
    """RSS and open files at `settle_s`, at `end_s` (the last samples at or before each; `t`
    is seconds into the measured window), their growth, and the largest values between."""
    inside = [r for r in rows if settle_s <= r["t"] <= end_s]
    before = [r for r in rows if r["t"] <= settle_s]
    if not inside:
        return {"samples": len(rows), "enough": False}
    first = before[-1] if before else inside[0]
    last = inside[-1]
    out: dict[str, Any] = {"samples": len(rows), "enough": last["t"] - first["t"] >= 60}
    out["settle_t_s"], out["end_t_s"] = first["t"], last["t"]
    for key in ("rss_kib", "fds"):
        peak = max(r[key] for r in inside)
        out[key] = {
            "at_settle": first[key],
            "at_end": last[key],
            "growth_pct": growth_pct(first[key], last[key]),
            "max_after_settle": peak,
            "max_growth_pct": growth_pct(first[key], peak),
        }
    out["processes"] = sorted({r["processes"] for r in inside})
    return out


def is_flat(figures: dict[str, Any], limit_pct: float) -> bool:
    """Both RSS and open files grew by less than limit_pct from minute 5 to the end."""
    if not figures.get("enough"):
        return False
    return all(
        figures[k]["growth_pct"] is not None and figures[k]["growth_pct"] < limit_pct
        for k in ("rss_kib", "fds")
    )


def per_second(samples: list[dict[str, Any]], warmup_s: float) -> dict[int, dict[str, float]]:
    """samples.csv's measured rows by second of the measured window (0-based), first row of
    a second kept: commits and mean latency in ms."""
    seconds: dict[int, dict[str, float]] = {}
    for row in samples:
        if row.get("phase") != "measure" or row.get("tps") in (None, ""):
            continue
        second = round(float(row["t_s"]) - warmup_s) - 1
        if second >= 0 and second not in seconds:
            latency = row.get("txn_lat_mean_ms")
            seconds[second] = {
                "tps": float(row["tps"]),
                "lat_ms": float(latency) if latency not in (None, "") else math.nan,
                "cpu_pct": float(row.get("cpu_util_pct") or math.nan),
            }
    return seconds


def windows(seconds: dict[int, dict[str, float]], window_s: int) -> list[dict[str, Any]]:
    """Per window of window_s seconds: mean and p99 of the per-second mean latency, mean
    TPS, host CPU; a last window shorter than half a window is left out."""
    if not seconds:
        return []
    out = []
    last = max(seconds)
    for start in range(0, last + 1, window_s):
        rows = [seconds[s] for s in range(start, start + window_s) if s in seconds]
        if len(rows) < window_s / 2:
            continue
        lat = [r["lat_ms"] for r in rows if not math.isnan(r["lat_ms"])]
        cpu = [r["cpu_pct"] for r in rows if not math.isnan(r["cpu_pct"])]
        out.append(
            {
                "from_s": start,
                "to_s": start + window_s,
                "seconds": len(rows),
                "lat_mean_ms": statistics.fmean(lat) if lat else None,
                "lat_p99_ms": percentile(lat, 99),
                "tps": statistics.fmean(r["tps"] for r in rows),
                "host_cpu_pct": statistics.fmean(cpu) if cpu else None,
            }
        )
    return out


def drift(rows: list[dict[str, Any]], settle_s: float) -> dict[str, Any]:
    """Last window over the first window starting at or after settle_s."""
    after = [w for w in rows if w["from_s"] >= settle_s]
    if len(after) < 2:
        return {"windows_after_settle": len(after)}
    first, last = after[0], after[-1]

    def ratio(key: str) -> float | None:
        a, b = first[key], last[key]
        return b / a if a and b is not None else None

    return {
        "windows_after_settle": len(after),
        "first": [first["from_s"], first["to_s"]],
        "last": [last["from_s"], last["to_s"]],
        "lat_mean_ratio": ratio("lat_mean_ms"),
        "lat_p99_ratio": ratio("lat_p99_ms"),
        "tps_ratio": ratio("tps"),
    }


def slope_pct_per_hour(seconds: dict[int, dict[str, float]], key: str, from_s: int) -> float | None:
    """Least-squares slope of a per-second series after from_s, in % of its mean per hour."""
    points = [(s, v[key]) for s, v in sorted(seconds.items()) if s >= from_s]
    points = [(s, y) for s, y in points if not math.isnan(y)]
    if len(points) < 60:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if not sxx or not my:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return slope * 3600 / my * 100


# ---- the run ----


def dbstor_command(args: argparse.Namespace, target: Path) -> list[str]:
    return [
        sys.executable, "-m", "dbstor", "run", "--engine", "postgres", "--workload", "orders",
        "--scale", str(args.scale), "--rate", str(args.rate), "--users", str(args.users),
        "--duration", f"{args.minutes * 60:g}s", "--warmup", f"{args.warmup}s",
        "--target", str(target / "db"), "--out", str(target / "out"),
    ]  # fmt: skip


def watch(proc: subprocess.Popen, path: Path, interval: float) -> list[dict[str, Any]]:
    """Sample the client every interval seconds until dbstor exits, each row written to
    path as it comes (so a killed soak keeps what it saw)."""
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    with open(path, "w", newline="") as handle:
        writer = None
        while proc.poll() is None:
            row = client_sample(proc.pid)
            if row["processes"]:
                rows.append(row)
                if writer is None:
                    writer = csv.DictWriter(handle, fieldnames=list(row))
                    writer.writeheader()
                writer.writerow(row)
                handle.flush()
            next_at = started + interval * (len(rows) + 1)
            while proc.poll() is None and time.monotonic() < next_at:
                time.sleep(min(0.5, max(0.0, next_at - time.monotonic())))
    return rows


def run_folder(target: Path) -> Path | None:
    found = sorted((target / "out").glob("*/results.json"))
    return found[-1].parent if found else None


def analyse(
    args: argparse.Namespace, rc: int, rows: list[dict[str, Any]], target: Path, wall: float
) -> dict[str, Any]:
    folder = run_folder(target)
    result: dict[str, Any] = {
        "command": " ".join(dbstor_command(args, target)[1:]).replace(str(target), "TARGET"),
        "rate": args.rate,
        "users": args.users,
        "minutes": args.minutes,
        "dbstor_exit": rc,
        "wall_s": wall,
        "run_folder": str(folder) if folder else None,
        "host_load1_mean": statistics.fmean(r["load1"] for r in rows) if rows else None,
    }
    point: dict[str, Any] = {}
    samples: list[dict[str, Any]] = []
    if folder:
        run = json.loads((folder / "results.json").read_text())
        result["run_status"] = run.get("status")
        point = run["points"][0] if run.get("points") else {}
        samples_path = folder / "samples.csv"
        if samples_path.exists():
            with open(samples_path, newline="") as handle:
                samples = list(csv.DictReader(handle))
    duration = float(point.get("duration_s") or args.minutes * 60)
    warmup = float(point.get("warmup_s") or args.warmup)
    result["errors"] = {
        "point_status": point.get("status"),
        "point_error": point.get("error"),
        "errors": point.get("errors"),
        "retries": point.get("retries"),
        "messages": point.get("error_messages"),
    }
    # the measured window on the wall clock: the point's start plus its warm-up
    origin = rows[0]["wall"] if rows else 0.0
    if point.get("started_at"):
        origin = datetime.datetime.fromisoformat(point["started_at"]).timestamp() + warmup
    for row in rows:
        row["t"] = row["wall"] - origin
    result["client"] = client_figures(rows, args.settle, duration)
    result["client"]["flat"] = is_flat(result["client"], args.flat_pct)
    seconds = per_second(samples, warmup)
    result["windows"] = windows(seconds, args.window)
    for w in result["windows"]:  # how busy the shared machine was meanwhile
        loads = [r["load1"] for r in rows if w["from_s"] <= r["t"] < w["to_s"]]
        w["host_load1"] = statistics.fmean(loads) if loads else None
    result["drift"] = drift(result["windows"], args.settle)
    result["drift"]["lat_slope_pct_per_hour"] = slope_pct_per_hour(seconds, "lat_ms", args.settle)
    result["drift"]["holds"] = all(
        r is not None and r <= args.drift_limit
        for r in (result["drift"].get("lat_mean_ratio"), result["drift"].get("lat_p99_ratio"))
    )
    loop = point.get("open_loop") or {}
    lat = point.get("txn_lat_ms") or {}
    result["throughput"] = {
        "tps": point.get("tps"),
        "held_share": point["tps"] / args.rate if point.get("tps") else None,
        "min_window_share": (
            min(w["tps"] for w in result["windows"]) / args.rate if result["windows"] else None
        ),
        "finished_share": loop.get("finished_share"),
        "backlog": loop.get("backlog"),
        "txn_lat_ms": {k: lat.get(k) for k in ("mean", "p50", "p99", "p999", "max")},
    }
    return result


def fmt(value: Any, spec: str = ".1f") -> str:
    return "-" if value is None else format(value, spec)


def show(result: dict[str, Any], args: argparse.Namespace) -> None:
    err, client, dr, thr = result["errors"], result["client"], result["drift"], result["throughput"]
    print(f"\nsoak: orders on managed PostgreSQL at {args.rate}/s, {args.users} users, "
          f"{args.minutes:g} min measured; dbstor exit {result['dbstor_exit']}, "
          f"run {result.get('run_status')}; host load average {fmt(result['host_load1_mean'], '.2f')}")  # fmt: skip
    print(f"errors: {err['errors']}  retries: {err['retries']}  point: {err['point_status']}"
          + (f"  ({err['point_error']})" if err["point_error"] else ""))  # fmt: skip
    for message in err["messages"] or []:
        print(f"  {message}")
    if client.get("enough"):
        settle, end = client["settle_t_s"] / 60, client["end_t_s"] / 60
        print(f"client ({'+'.join(map(str, client['processes']))} processes), "
              f"minute {settle:.1f} -> minute {end:.1f} of the measured window:")  # fmt: skip
        for key, name in (("rss_kib", "RSS KiB"), ("fds", "open files")):
            f = client[key]
            print(f"  {name:11} {f['at_settle']:>9} -> {f['at_end']:>9}  growth "
                  f"{fmt(f['growth_pct'], '+.2f')}%  max after minute {settle:.0f} "
                  f"{f['max_after_settle']} ({fmt(f['max_growth_pct'], '+.2f')}%)")  # fmt: skip
        verdict = "flat" if client["flat"] else "NOT flat"
        print(f"  -> {verdict} (rule: under {args.flat_pct:g}% growth after minute "
              f"{args.settle / 60:g})")  # fmt: skip
    else:
        print(f"client: not enough samples after minute {args.settle / 60:g} to judge")
    print(f"per {args.window // 60 if args.window % 60 == 0 else args.window}"
          f"{' min' if args.window % 60 == 0 else ' s'} window (per-second mean latency):")  # fmt: skip
    print(f"  {'from min':>8} {'mean ms':>8} {'p99 ms':>8} {'TPS':>7} {'host CPU%':>9} {'load':>5}")
    for w in result["windows"]:
        print(f"  {w['from_s'] / 60:8.1f} {fmt(w['lat_mean_ms'], '8.2f')} "
              f"{fmt(w['lat_p99_ms'], '8.2f')} {w['tps']:7.1f} {fmt(w['host_cpu_pct'], '9.0f')} "
              f"{fmt(w.get('host_load1'), '5.2f')}")  # fmt: skip
    if dr.get("first"):
        print(f"drift, last window over the first after minute {args.settle / 60:g}: mean "
              f"x{fmt(dr['lat_mean_ratio'], '.3f')}, p99 x{fmt(dr['lat_p99_ratio'], '.3f')}, "
              f"TPS x{fmt(dr['tps_ratio'], '.3f')}; slope of the per-second mean "
              f"{fmt(dr['lat_slope_pct_per_hour'], '+.1f')}%/hour -> "
              f"{'no drift' if dr['holds'] else 'DRIFT'} (limit x{args.drift_limit:g})")  # fmt: skip
    else:
        print("drift: fewer than two windows after the settling time")
    print(f"throughput: {fmt(thr['tps'], '.2f')} TPS of {args.rate}/s asked "
          f"({fmt(thr['held_share'] and thr['held_share'] * 100, '.1f')}%; lowest window "
          f"{fmt(thr['min_window_share'] and thr['min_window_share'] * 100, '.1f')}%), "
          f"finished share {fmt(thr['finished_share'], '.4f')}, backlog {thr['backlog']}; "
          f"txn latency mean {fmt(thr['txn_lat_ms']['mean'], '.2f')} ms, "
          f"p99 {fmt(thr['txn_lat_ms']['p99'], '.2f')} ms, max {fmt(thr['txn_lat_ms']['max'], '.1f')} ms")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60, help="measured time (default 60)")
    parser.add_argument("--rate", type=int, default=50, help="transactions/s (default 50)")
    parser.add_argument("--users", type=int, default=8, help="users serving it (default 8)")
    parser.add_argument("--scale", type=int, default=1, help="warehouses (default 1)")
    parser.add_argument("--warmup", type=int, default=10, help="warm-up seconds (default 10)")
    parser.add_argument("--interval", type=float, default=5, help="client sample period, s")
    parser.add_argument("--window", type=int, default=300, help="latency window, s (300)")
    parser.add_argument("--settle", type=float, default=300, help="settling time, s (300)")
    parser.add_argument("--flat-pct", type=float, default=5.0, help="growth limit, %% (5)")
    parser.add_argument("--drift-limit", type=float, default=1.2, help="window ratio limit")
    parser.add_argument("--target", type=Path, help="folder to use (default: a new one here)")
    args = parser.parse_args()
    if args.target:
        target = args.target.resolve()
        target.mkdir(parents=True, exist_ok=True)
        if any(target.iterdir()):
            raise SystemExit(f"--target {target} is not empty: give a new or empty folder")
    else:
        target = Path(tempfile.mkdtemp(prefix="soak-", dir=REPO))
    (target / "db").mkdir()
    command = dbstor_command(args, target)
    print(f"target {target}\n$ {' '.join(command)}", flush=True)
    started = time.monotonic()
    with open(target / "dbstor.log", "w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=target)
        try:
            rows = watch(proc, target / "client.csv", args.interval)
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            proc.wait()
            rows = []
            print("interrupted: dbstor stopped; what it finished is in its folder")
    rc = proc.wait()
    if rc != 0:
        tail = (target / "dbstor.log").read_text(errors="replace").strip().splitlines()[-8:]
        print(f"dbstor exited with status {rc}:\n  " + "\n  ".join(tail), file=sys.stderr)
    if not rows and (target / "client.csv").exists():
        with open(target / "client.csv", newline="") as handle:
            rows = [{k: float(v) if v else None for k, v in r.items()} for r in csv.DictReader(handle)]  # fmt: skip
    result = analyse(args, rc, rows, target, time.monotonic() - started)
    (target / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
    show(result, args)
    print(f"\nwritten: {target / 'soak.json'} (client samples: {target / 'client.csv'})")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
