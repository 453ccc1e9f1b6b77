"""The default study (`dbstor run`, what `make demo` runs) measured: its wall time, and
where its SQLite brokerage points sit on the storage's own curve, with the 48 MiB database
memory cap (a cgroup around the client processes) against the same study uncapped, side by
side in one run.

For each database point: TPS, device reads per transaction, the engine's physical reads per
transaction, the combined cache hit ratio, device IOPS, and the read latency the io-oltp
sweep measured on the same target at the same IOPS (interpolated on its curve): where the
database runs on the storage's curve. The targets of issue 15: every point at least one
device read per transaction, hit ratio under 90%, the study within three minutes.

    .venv/bin/python bench/bench_default_study.py --dir /var/tmp/default-bench --rounds 1
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CAPPED = None  # the built-in default study, as make demo runs it
UNCAPPED_STUDY = """
[study]
name = "default study, uncapped"
duration = "5s"
warmup = "2s"
size = "512MiB"
profiles = ["io-oltp"]

[[targets]]
label = "dbstor-data"
path = "{path}"

[[databases]]
engine = "sqlite"
workload = "brokerage"
scale = 1000
users = [1, 2, 4, 8]
"""


def run_study(folder: Path, capped: bool) -> tuple[float, Path]:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    args = [sys.executable, "-m", "dbstor", "run", "--quiet"]
    if not capped:
        target = folder / "dbstor-data"
        target.mkdir()
        study = folder / "uncapped.toml"
        study.write_text(UNCAPPED_STUDY.format(path=target))
        args.insert(4, str(study))
    started = time.monotonic()
    subprocess.run(args, cwd=folder, check=True)
    wall = time.monotonic() - started
    (study_folder,) = (folder / "results").iterdir()
    return wall, study_folder


def latency_at(io_points: list[dict[str, Any]], iops: float) -> float | None:
    """The io sweep's mean read latency at this IOPS, interpolated on its curve."""
    curve = sorted(
        (p["read_iops"] + p["write_iops"], p["read_lat_ms"]["mean"])
        for p in io_points
        if p.get("status", "ok") == "ok" and p.get("read_lat_ms")
    )
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if x0 <= iops <= x1:
            return y0 + (y1 - y0) * (iops - x0) / (x1 - x0)
    return None


def summarise(study_folder: Path) -> list[dict[str, Any]]:
    runs = {}
    for results in study_folder.glob("*/results.json"):
        data = json.loads(results.read_text())
        runs[data["engine"]["name"]] = data
    io, db = runs["fio"], runs["sqlite"]
    rows = []
    for p in db["points"]:
        iops = (p["read_iops"] or 0) + (p["write_iops"] or 0)
        rows.append(
            {
                "users": p["load"]["value"],
                "tps": p["tps"],
                "device_reads_per_txn": p["engine_io"]["device_reads_per_txn"],
                "engine_reads_per_txn": p["engine_io"]["engine_physical_reads_per_txn"],
                "hit_ratio": p["cache_hit_ratio"],
                "device_iops": iops,
                "curve_read_ms_at_iops": latency_at(io["points"], iops),
                "memory_cap": db["engine"].get("memory_cap"),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp/default-bench"))
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for round_no in range(args.rounds):
        for capped in (True, False) if round_no % 2 == 0 else (False, True):
            name = "capped (default)" if capped else "uncapped"
            wall, folder = run_study(args.dir / name.split()[0], capped)
            print(f"round {round_no + 1}, {name}: {wall:.1f} s wall")
            for row in summarise(folder):
                curve = row["curve_read_ms_at_iops"]
                print(
                    f"  {row['users']} users: {row['tps']:,.0f} TPS, device reads/txn "
                    f"{row['device_reads_per_txn']:.2f}, engine reads/txn "
                    f"{row['engine_reads_per_txn'] or 0:.2f}, hit ratio {row['hit_ratio'] or 0:.1%}, "
                    f"{row['device_iops']:,.0f} device IOPS"
                    + (f" (the io curve reads {curve:.2f} ms there)" if curve else "")
                )


if __name__ == "__main__":
    main()
