"""Waiting on a device's own counters: a test goes on once the I/O it started is under way,
not after a sleep that guesses how long that takes."""

from __future__ import annotations

import time

from dbstor.telemetry.disk import parse_diskstats


def reading(device: str, in_flight: int = 0, timeout_s: float = 30.0) -> bool:
    """Wait until something reads the device: its read count grows between two readings
    of /proc/diskstats (with at least `in_flight` requests in flight at the second)."""
    deadline = time.monotonic() + timeout_s
    before = parse_diskstats()[device].reads
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = parse_diskstats()[device]
        if now.reads > before and now.in_progress >= in_flight:
            return True
        before = now.reads
    return False
