"""`dbstor index` over many runs: 1,000 run folders indexed from scratch, then 100 more
added and indexed again (only the new ones are read), side by side with the floor: reading
and parsing every results.json with nothing else done (json.load in a loop). Targets
(issue 24): 1,000 runs in under 10 s, 100 new ones in under 2 s.

The run folders are copies of real runs (tests/golden) with their own run ids, dates and
tags, so the index reads, checks and summarises real results.json files.

    .venv/bin/python bench/bench_index.py --runs 1000 --more 100 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    ROOT / "tests" / "golden" / n for n in ("fc-io-oltp", "iscsi-io-oltp", "sqlite-brokerage")
]
DBSTOR = [sys.executable, "-m", "dbstor"]


def make_runs(into: Path, first: int, count: int) -> None:
    for n in range(first, first + count):
        source = SOURCES[n % len(SOURCES)]
        folder = into / f"run-{n:05d}"
        shutil.copytree(source, folder)
        data = json.loads((folder / "results.json").read_text())
        data["run_id"] = folder.name
        data["created_at"] = (
            f"2026-{1 + n // 2800 % 12:02d}-{1 + n // 100 % 28:02d}T{n % 24:02d}:00:00+00:00"
        )
        data["tags"] = {"release": f"r{n // 50}"}
        (folder / "results.json").write_text(json.dumps(data))


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - started


def floor(root: Path) -> float:
    """Reading and parsing every results.json, in a fresh interpreter as the index runs."""
    code = (
        "import json,pathlib,sys;"
        "[json.loads(p.read_text()) for p in pathlib.Path(sys.argv[1]).rglob('results.json')]"
    )
    return timed([sys.executable, "-c", code, str(root)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--more", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="dbstor-bench-index-") as scratch:
            root = Path(scratch)
            make_runs(root, 0, args.runs)
            load = os.getloadavg()[0]
            read_all = floor(root)
            full = timed([*DBSTOR, "index", str(root), "--quiet"])
            make_runs(root, args.runs, args.more)
            more = timed([*DBSTOR, "index", str(root), "--quiet"])
            index = json.loads((root / "index.json").read_text())
            assert sum(e["kind"] == "run" for e in index["entries"]) == args.runs + args.more
            assert index["read"] == args.more, index["read"]
            size = (root / "index.html").stat().st_size
            rows.append((full, more, read_all, load, size))
            print(
                f"round {round_ + 1}: {args.runs} runs {full:.2f} s, +{args.more} runs {more:.2f} s, "
                f"json.load of all {read_all:.2f} s (index / floor {full / read_all:.2f}), "
                f"load {load:.2f}, index.html {size / 1e6:.2f} MB",
                flush=True,
            )
    med = [statistics.median(r[i] for r in rows) for i in range(3)]
    print(
        f"median: {args.runs} runs {med[0]:.2f} s (target < 10 s), +{args.more} {med[1]:.2f} s "
        f"(target < 2 s), floor {med[2]:.2f} s, index / floor {med[0] / med[2]:.2f}"
    )


if __name__ == "__main__":
    main()
