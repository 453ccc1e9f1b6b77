"""fio's interim status while a point runs (--status-interval=1 with json+), as running figures.

With --status-interval fio appends, once a second, the same json+ object it writes at the
end, its figures so far: total I/Os and the clat histogram's bins since its warm-up
(ramp_time) ended, when fio resets them. StatusTail reads the newest whole object from the
output file as it grows; status_figures() turns it into the running figures the live
endpoint takes (drivers/running.py's shape): ops, errors, elapsed_s and the histogram,
of reads when the point reads, else of writes, as the finished point's percentiles are.
The point's final figures still come from fio's final object only (fio_output).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dbstor.drivers.fio_output import parse_fio_data

WARMUP_MARGIN_S = (
    1.0  # fio's `elapsed` is whole seconds: statuses this near the ramp's end are skipped
)


class StatusTail:
    """The newest whole status object in a growing fio output file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._pending = ""
        self._decoder = json.JSONDecoder()

    def poll(self) -> dict[str, Any] | None:
        """The newest object completed since the last poll, or None."""
        try:
            with self.path.open("rb") as f:
                f.seek(self._offset)
                chunk = f.read()
                self._offset = f.tell()
        except OSError:
            return None
        self._pending += chunk.decode("utf-8", errors="replace")
        newest = None
        pos = self._pending.find("{")
        while pos >= 0:
            try:
                data, end = self._decoder.raw_decode(self._pending, pos)
            except ValueError:  # not whole yet: wait for the rest
                break
            if isinstance(data, dict):
                newest = data
            self._pending = self._pending[end:]
            pos = self._pending.find("{")
        return newest


def status_figures(status: dict[str, Any], warmup_s: float) -> dict[str, Any] | None:
    """Running figures from one interim status: None while fio is still in its warm-up
    (its figures are reset when the ramp ends) or when the status has no jobs."""
    jobs = status.get("jobs") or []
    if not jobs:
        return None
    elapsed = max(float(job.get("elapsed", 0)) for job in jobs)
    if warmup_s > 0 and elapsed <= warmup_s + WARMUP_MARGIN_S:
        return None
    try:
        run = parse_fio_data(status)
    except (ValueError, KeyError, TypeError):
        return None
    side = run.read if run.read.ios else run.write
    return {
        "ops": run.read.ios + run.write.ios,
        "errors": len(run.errors),
        "elapsed_s": run.runtime_s,
        "histogram": side.histogram.to_dict(),
    }
