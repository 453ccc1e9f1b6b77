"""Scan speed of `dbstor efficiency` beside qdda and the lz4 / zstd command-line tools.

All tools read the same files in one run, from the page cache (each run is preceded by a
read of every file), so the comparison is of CPU work, not of the disk. For each run the
table gives wall-clock MB/s and MB per CPU-second (user + system time of the process and
its children), which is the speed per core.

    python bench/bench_efficiency.py --qdda /path/to/qdda [--files F...] [--size-mb 384]

Without --files it builds SQLite databases (8 KiB pages, realistic rows) in a temporary
folder. qdda is not part of dbstor: build it yourself from its public repository and pass
the binary; without --qdda its rows are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def build_databases(folder: Path, size_mb: int) -> list[str]:
    """SQLite databases of about size_mb in all: a trade table with indexes, 8 KiB pages."""
    paths = []
    rows_per_mb = 7800
    for n, share in enumerate((0.6, 0.4)):
        path = folder / f"bench{n}.db"
        rng = random.Random(n)
        con = sqlite3.connect(path)
        con.execute("PRAGMA page_size=8192")
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute(
            "CREATE TABLE trade(id INTEGER PRIMARY KEY, cust INT, symbol TEXT, qty INT, "
            "price REAL, ts TEXT, status TEXT, note TEXT)"
        )
        words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
        rows = int(size_mb * share * rows_per_mb)
        con.executemany(
            "INSERT INTO trade VALUES (?,?,?,?,?,?,?,?)",
            (
                (
                    i,
                    rng.randrange(100_000),
                    f"SYM{rng.randrange(800):04d}",
                    rng.randrange(1, 1000),
                    round(rng.uniform(1, 500), 2),
                    f"2015-06-{rng.randrange(1, 31):02d} {rng.randrange(24):02d}:{rng.randrange(60):02d}",
                    rng.choice(["CMPT", "PNDG", "SBMT", "CNCL"]),
                    " ".join(rng.choice(words) for _ in range(rng.randrange(2, 9))),
                )
                for i in range(rows)
            ),
        )
        con.execute("CREATE INDEX trade_cust ON trade(cust)")
        con.execute("CREATE INDEX trade_sym ON trade(symbol, ts)")
        con.commit()
        con.close()
        paths.append(str(path))
    return paths


def warm(files: list[str]) -> None:
    for f in files:
        with open(f, "rb") as fh:
            while fh.read(8 << 20):
                pass


def timed(cmd: list[str], files: list[str], shell: str | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the children, stdout) of one command after a warm-up."""
    warm(files)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    if cmd and cmd[0].endswith("qdda"):
        Path(cmd[cmd.index("--db") + 1]).unlink(missing_ok=True)
    if shell:
        proc = subprocess.run(shell, shell=True, capture_output=True, text=True, check=False)
    else:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {shell or ' '.join(cmd)}\n{proc.stderr}")
    return wall, cpu, proc.stdout


def qdda_ratio(text: str) -> str:
    found = {}
    for line in text.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            found[key.strip()] = value.strip()
    return f"compression {found.get('compression ratio', '?')}, dedup {found.get('deduplication ratio', '?')}"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--files", nargs="*", help="files to scan (default: build SQLite databases)")
    ap.add_argument(
        "--size-mb", type=int, default=384, help="size of the built databases (default 384)"
    )
    ap.add_argument("--qdda", help="path of a qdda binary built beside the project")
    ap.add_argument(
        "--workdir", help="where to build data and qdda's database (default: a temp folder)"
    )
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs of each command; the fastest is kept"
    )
    args = ap.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="dbstor-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    files = args.files or build_databases(work, args.size_mb)
    total = sum(os.path.getsize(f) for f in files)
    cores = len(os.sched_getaffinity(0))
    py = [sys.executable, "-m", "dbstor", "efficiency", *files, "--json", "--quiet"]
    runs: list[tuple[str, list[str] | None, str | None, str]] = [
        ("dbstor --full, lz4+zstd x 8K+32K, all cores", [*py, "--full"], None, "dbstor"),
        (
            "dbstor --full --no-matrix (lz4, 8K), all cores",
            [*py, "--full", "--no-matrix"],
            None,
            "dbstor",
        ),
        (
            "dbstor --full --no-matrix (lz4, 8K), 1 worker",
            [*py, "--full", "--no-matrix", "--workers", "1"],
            None,
            "dbstor",
        ),
        (
            "dbstor --full --array xtremio-x2 --no-matrix, all cores",
            [*py, "--full", "--array", "xtremio-x2", "--no-matrix"],
            None,
            "dbstor",
        ),
        (
            "dbstor default (5% sample, every block fingerprinted)",
            [*py, "--min-sample", "0"],
            None,
            "dbstor",
        ),
        (
            "dbstor --dedup sample (reads the 5% only)",
            [*py, "--min-sample", "0", "--dedup", "sample"],
            None,
            "dbstor",
        ),
    ]
    if args.qdda:
        db = work / "qdda.db"
        qd = [args.qdda, "--db", str(db), "-b", "0"]
        runs.append(("qdda (XtremIO X2 model, lz4, md5), all threads", [*qd, *files], None, "qdda"))
        runs.append(
            (
                "qdda --workers 1 --readers 1",
                [*qd, "--workers", "1", "--readers", "1", *files],
                None,
                "qdda",
            )
        )
    if shutil.which("lz4"):
        cat = " ".join(f"'{f}'" for f in files)
        runs.append(("lz4 -1 (CLI, 1 thread)", None, f"cat {cat} | lz4 -1 -c > /dev/null", "cli"))
    if shutil.which("zstd"):
        cat = " ".join(f"'{f}'" for f in files)
        runs.append(
            ("zstd -3 -T1 (CLI, 1 thread)", None, f"cat {cat} | zstd -3 -T1 -c > /dev/null", "cli")
        )
        runs.append(
            (
                f"zstd -3 -T{cores} (CLI, all cores)",
                None,
                f"cat {cat} | zstd -3 -T{cores} -c > /dev/null",
                "cli",
            )
        )
    mb = total / 1e6
    load = os.getloadavg()[0]
    print(
        f"data: {len(files)} file(s), {mb:.0f} MB, page cache warm; {cores} cores; "
        f"load average {load:.1f} at start; best of {args.repeat}; {time.strftime('%Y-%m-%d')}"
    )
    print()
    print("| run | wall s | MB/s | MB per CPU-second | what it reports |")
    print("|---|---:|---:|---:|---|")
    for label, cmd, shell, kind in runs:
        best = [timed(cmd or [], files, shell) for _ in range(max(1, args.repeat))]
        wall = min(b[0] for b in best)
        cpu = min(b[1] for b in best)
        out = best[0][2]
        if kind == "dbstor":
            r = json.loads(out)
            what = (
                f"compression {r['compression_ratio']}, dedup {r['dedup_ratio']}, "
                f"zero {r['zero_block_pct']}%, sampled {r['effective_sample_pct']}%"
            )
        elif kind == "qdda":
            what = qdda_ratio(out)
        else:
            what = "compressed stream (no ratio model)"
        print(f"| {label} | {wall:.2f} | {mb / wall:.0f} | {mb / cpu if cpu else 0:.0f} | {what} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
