"""Counters around one short window, such as one query: /proc/stat and /proc/diskstats
read at its start and at its end, and the rates between the two readings.

The sampler (sampler.py) reads once a second for a whole load point; a query can last
less than a second, so its figures come from readings taken exactly at its start and end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dbstor.results.model import CpuStats, DeviceStats
from dbstor.telemetry.cpu import PROC_STAT, CpuTimes, cpu_stats, parse_proc_stat
from dbstor.telemetry.disk import (
    PROC_DISKSTATS,
    SECTOR_BYTES,
    DiskCounters,
    device_stats,
    parse_diskstats,
)


@dataclass(frozen=True)
class Reading:
    """Cumulative counters at monotonic time `t`; `cpu` or a device is missing when its
    file could not be read."""

    t: float
    cpu: CpuTimes | None
    disks: dict[str, DiskCounters]


@dataclass(frozen=True)
class WindowStats:
    """What the host and the top device did between two readings."""

    seconds: float
    cpu: CpuStats
    device: DeviceStats | None
    read_bytes: int | None  # bytes the top device read in the window
    write_bytes: int | None


def _text(path: str) -> Callable[[], str]:
    return lambda: Path(path).read_text()


class WindowCounters:
    """Takes readings of host CPU and the given devices (diskstats names, top device
    first); `read_stat` and `read_diskstats` are injectable for tests."""

    def __init__(
        self,
        devices: Sequence[str] = (),
        *,
        clock: Callable[[], float] = time.monotonic,
        read_stat: Callable[[], str] | None = None,
        read_diskstats: Callable[[], str] | None = None,
    ) -> None:
        self.devices = list(dict.fromkeys(devices))
        self._clock = clock
        self._read_stat = read_stat or _text(PROC_STAT)
        self._read_diskstats = read_diskstats or _text(PROC_DISKSTATS)

    def read(self) -> Reading:
        """A reading now; a file that cannot be read leaves its part empty, never raises."""
        now = self._clock()
        try:
            cpu: CpuTimes | None = parse_proc_stat(self._read_stat())
        except (OSError, ValueError):
            cpu = None
        disks: dict[str, DiskCounters] = {}
        if self.devices:
            try:
                table = parse_diskstats(self._read_diskstats())
            except (OSError, ValueError):
                table = {}
            disks = {name: table[name] for name in self.devices if name in table}
        return Reading(now, cpu, disks)


def window_stats(before: Reading, after: Reading) -> WindowStats:
    """CPU shares and top-device rates between two readings (None parts where a reading
    lacked them)."""
    seconds = max(0.0, after.t - before.t)
    cpu = (
        cpu_stats(before.cpu, after.cpu)
        if before.cpu is not None and after.cpu is not None
        else CpuStats()
    )
    top = next(iter(before.disks), None)
    if top is None or top not in after.disks:
        return WindowStats(seconds, cpu, None, None, None)
    a, b = before.disks[top], after.disks[top]
    read_bytes = max(0, b.sectors_read - a.sectors_read) * SECTOR_BYTES
    write_bytes = max(0, b.sectors_written - a.sectors_written) * SECTOR_BYTES
    if seconds <= 0:
        return WindowStats(seconds, cpu, DeviceStats(name=top), read_bytes, write_bytes)
    device = device_stats(before.disks, after.disks, seconds, top)
    return WindowStats(seconds, cpu, device, read_bytes, write_bytes)
