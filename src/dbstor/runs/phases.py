"""How long each phase of a run took, for the run's `timings` (docs/results.md): from
dbstor's launch to the run's start, the target's check and layout, the check of the data
written, preconditioning, the points' load and what dbstor did between them. The clock is
injected, so tests need no sleeping."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def process_age_s(pid: int | None = None) -> float | None:
    """Seconds since this process (or `pid`) was started, from /proc (10 ms resolution);
    None where /proc or a boot-time clock is missing."""
    try:
        raw = Path(f"/proc/{pid or os.getpid()}/stat").read_text()
        ticks = int(raw[raw.rfind(")") + 2 :].split()[19])
        boot_clock = time.clock_gettime(time.CLOCK_BOOTTIME)
        hertz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return max(0.0, boot_clock - ticks / hertz)


class Phases:
    """Seconds per named phase, added up when a phase happens more than once."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.timings: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.timings[name] = round(self.timings.get(name, 0.0) + max(0.0, seconds), 3)

    def set(self, name: str, seconds: float | None) -> None:
        """Record a phase measured elsewhere once (None: left out)."""
        if seconds is not None:
            self.timings[name] = round(seconds, 3)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = self.clock()
        try:
            yield
        finally:
            self.add(name, self.clock() - started)
