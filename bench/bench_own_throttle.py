"""What counting a point's own block I/O costs the I/O itself (issue 22), without a
database's noise: fio alone, in alternating pairs, inside and outside the cgroups dbstor's
own accounting makes (telemetry/own.py). Under cgroup v1 those groups carry a throttle
rule of 2^60 bytes/s on the measured device (it never binds; it only turns counting on),
so every I/O of the group passes the throttle's accounting; under v2 io.stat counts
without a rule.

Each point: fio, 4 KiB random reads, O_DIRECT, libaio, one job at `--iodepth`, for
`--seconds`, on a file on the target's device. Printed: per-pair IOPS and mean latency
ratios (inside / outside) and their medians, and the group's own read count against
fio's (the count the accounting reports for fio's reads).

    .venv/bin/python bench/bench_own_throttle.py --target /var/tmp/own-throttle --pairs 10
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.own import OwnAccounting, own_window


def fio_point(path: Path, seconds: int, iodepth: int) -> dict[str, float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [
            "fio", "--name=r", f"--filename={path}", "--rw=randread", "--bs=4k",
            "--direct=1", "--ioengine=libaio", f"--iodepth={iodepth}", "--size=256M",
            "--time_based", f"--runtime={seconds}", "--output-format=json",
            f"--output={out.name}",
        ]  # fmt: skip
        subprocess.run(command, check=True)
        job = json.loads(Path(out.name).read_text())["jobs"][0]["read"]
    return {"iops": job["iops"], "lat_us": job["lat_ns"]["mean"] / 1e3, "ios": job["total_ios"]}


def inside(path: Path, seconds: int, iodepth: int, n: int) -> dict[str, float]:
    """One fio point with this process (so fio, its child) in the accounting's groups."""
    own = OwnAccounting(tuple(devices_for_path(str(path.parent))), f"throttle{n}")
    own.start([], [os.getpid()])
    try:
        before = own.read()
        result = fio_point(path, seconds, iodepth)
        window = own_window(before, own.read())
    finally:
        own.stop()
    reads = sum(row[0] for row in window["roles"]["client"]["devices"].values())
    return {**result, "own_reads": reads, "source": own.source}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--iodepth", type=int, default=1)
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    path = args.target / "throttle.dat"
    lay = [
        "fio", "--name=lay", f"--filename={path}", "--rw=write", "--bs=1M", "--size=256M",
        "--direct=1", "--output=/dev/null",
    ]  # fmt: skip
    subprocess.run(lay, check=True)
    iops, lat, counted = [], [], []
    try:
        for pair in range(args.pairs):
            order = ("in", "out") if pair % 2 == 0 else ("out", "in")
            got = {}
            for kind in order:
                if kind == "in":
                    got[kind] = inside(path, args.seconds, args.iodepth, pair)
                else:
                    got[kind] = fio_point(path, args.seconds, args.iodepth)
            iops.append(got["in"]["iops"] / got["out"]["iops"])
            lat.append(got["in"]["lat_us"] / got["out"]["lat_us"])
            counted.append(got["in"]["own_reads"] / got["in"]["ios"])
            print(pair, got, flush=True)
    finally:
        path.unlink(missing_ok=True)
    print(f"source: {got['in']['source']}; fio 4 KiB random reads, QD {args.iodepth}")
    print(
        f"IOPS inside / outside: {[round(x, 3) for x in iops]}, median {statistics.median(iops):.3f}"
    )
    print(
        f"mean latency inside / outside: {[round(x, 3) for x in lat]}, median {statistics.median(lat):.3f}"
    )
    print(f"own reads counted / fio's reads: median {statistics.median(counted):.3f}")


if __name__ == "__main__":
    main()
