"""Record tests/fixtures/cluster: an io run and a database run across three loopback Ray hosts
on one target, for the report tests of the cluster overlay. Needs root (cluster_harness).

    .venv/bin/python tests/integration/record_cluster_fixture.py

Keeps each run's results.json (the report reads nothing else for the overlay).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from cluster_harness import LoopbackCluster, can_run

HOSTS = ["h1", "h2", "h3"]
OUT = Path(__file__).resolve().parents[1] / "fixtures" / "cluster"


def main() -> int:
    reason = can_run()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    cluster = LoopbackCluster(HOSTS)
    work = Path(tempfile.mkdtemp(prefix="dbstor-record-", dir="/var/tmp"))  # on a block device
    target = work / "lun1"
    target.mkdir()
    try:
        cluster.start()
        common = ("--cluster", cluster.address, "--hosts", ",".join(HOSTS), "--target")
        runs = {
            "io": [
                "io",
                *common,
                str(target),
                *("--iodepth", "1,4,16", "--duration", "5s", "--warmup", "1s"),
                *("--size", "64MiB", "--out", str(work / "io"), "--quiet"),
            ],
            "database": [
                "run",
                *common,
                str(target),
                *("--engine", "sqlite", "--workload", "orders", "--instances", "1,2,3"),
                *("--users", "2", "--duration", "5s", "--warmup", "1s"),
                *("--out", str(work / "database"), "--quiet"),
            ],
        }
        for name, args in runs.items():
            proc = cluster.dbstor(*args, timeout=900)
            print(name, proc.returncode, proc.stderr[-2000:], file=sys.stderr)
            if proc.returncode != 0:
                return 1
            found = next((work / name).glob("*/results.json"))
            (OUT / name).mkdir(parents=True, exist_ok=True)
            results = json.loads(found.read_text())
            (OUT / name / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
