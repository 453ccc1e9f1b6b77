"""What dbstor's start-up imports cost: `dbstor --help` (the parser, every command
registered) and what a `dbstor io` run imports before its first point, in fresh
interpreters, this tree against another (`--other`, e.g. main's src), in alternating
pairs. CPU seconds of the importing process (time.process_time: less sensitive than wall
time to other work on a shared host) and the dbstor modules imported; medians.

    .venv/bin/python bench/bench_imports.py --other /path/to/main/src --pairs 7
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

PROBES = {
    "help": "import dbstor.cli as c; c.build_parser()",
    # what `dbstor io` builds: its own parser only where the tree has build_parser(only)
    "io": (
        "import dbstor.cli as c; "
        "c.build_parser(*['io'][: c.build_parser.__code__.co_argcount]); "
        "import dbstor.runs.study, dbstor.runs.io.run"
    ),
}
TEMPLATE = (
    "import time, sys, json; t = time.process_time(); {probe}; "
    "print(json.dumps([time.process_time() - t, "
    "sum(1 for m in sys.modules if m.startswith('dbstor.'))]))"
)


def once(src: Path, probe: str) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=str(src))
    code = TEMPLATE.format(probe=PROBES[probe])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr.strip()[-500:])
    cpu, modules = json.loads(out.stdout)
    return float(cpu), int(modules)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, required=True, help="another tree's src folder")
    parser.add_argument("--pairs", type=int, default=7)
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent / "src"
    trees = {"this": here, "other": args.other.resolve()}
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| probe | this: CPU s | other: CPU s | this / other | dbstor modules this / other |")
    print("|---|---:|---:|---:|---:|")
    for probe in PROBES:
        seen: dict[str, list[tuple[float, int]]] = {"this": [], "other": []}
        for n in range(args.pairs):
            for name in ("this", "other") if n % 2 == 0 else ("other", "this"):
                seen[name].append(once(trees[name], probe))
        cpu = {k: statistics.median(c for c, _ in v) for k, v in seen.items()}
        mods = {k: v[0][1] for k, v in seen.items()}
        print(
            f"| {probe} | {cpu['this']:.3f} | {cpu['other']:.3f} | "
            f"{cpu['this'] / cpu['other']:.2f} | {mods['this']} / {mods['other']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
