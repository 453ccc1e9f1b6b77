"""A small real fio worker for cluster checks: random 4 KiB reads on one test file.

It has the worker shape (prepare / measure / cleanup with plain dicts) the run kinds have,
and is what `dbstor hosts --check` style tests and the cluster's own tests measure with:
real fio, its json+ bins, a real start instant.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from dbstor.drivers.fio_runner import run_job
from dbstor.safefs import create_file, new_dir, remove_tree

CHUNK = 1 << 20


def wait_until(start_at: float | None) -> float:
    """Sleep until start_at (this host's epoch clock); return when the start really was."""
    if start_at is not None:
        while (left := start_at - time.time()) > 0:
            time.sleep(min(left, 0.5) if left > 0.002 else 0)
    return time.time()


def histogram_dict(hist: Any) -> dict[str, Any]:
    return {
        "bins": {str(value): count for value, count in sorted(hist.bins.items())},
        "total_ns": hist.total_ns,
        "max_ns": hist.max_ns,
    }


class FioProbe:
    kind = "probe"

    def __init__(self, safety: dict) -> None:
        self.safety = safety
        self.folder: Path | None = None
        self.file: Path | None = None

    def prepare(self, setup: dict) -> dict:
        target = Path(setup["target"])
        self.folder = target / f"dbstor-probe-{os.getpid()}"
        new_dir(self.folder, fix="choose another target")
        self.file = self.folder / "probe.0"
        size = int(setup.get("size_bytes", 8 * CHUNK))
        create_file(self.file, exclusive=True)  # in a folder just made: never a link
        with self.file.open("r+b") as out:
            for _ in range(max(1, size // CHUNK)):
                out.write(os.urandom(CHUNK))
        # A secret arrives opened on this host (actor.unseal); say which, never what.
        received = sorted(setup.get("secrets", {}))
        return {
            "created": [str(self.folder)],
            "files": [str(self.file)],
            "secrets_received": received,
        }

    def measure(self, point: dict) -> dict:
        assert self.folder is not None and self.file is not None
        duration = max(1, round(float(point.get("duration_s", 1))))
        job = "\n".join(
            [
                "[global]",
                "ioengine=psync",
                "rw=randread",
                "bs=4k",
                f"filename={self.file}",
                "allow_file_create=0",
                "time_based=1",
                f"runtime={duration}s",
                f"numjobs={int(point.get('jobs', 1))}",
                "group_reporting=0",
                "randrepeat=0",
                "norandommap=1",
                "",
                "[probe]",
                "",
            ]
        )
        started_at = wait_until(point.get("start_at"))
        result = run_job(
            job,
            self.folder / f"point{int(point.get('index', 0))}.fio",
            str(self.folder),
            timeout_s=duration + 60,
        )
        run = result.run
        return {
            "started_at": started_at,
            "ended_at": time.time(),
            "ops": run.read.ios,
            "iops": run.read.iops,
            "read": histogram_dict(run.read.histogram),
            "error": None,
        }

    def cleanup(self) -> dict:
        removed = []
        if self.folder is not None and self.folder.exists():
            remove_tree(self.folder)
            removed.append(str(self.folder))
        self.folder = self.file = None
        return {"removed": removed}
