"""The load generator's own CPU: the threads that run the users, not their whole process.

When the users run in dbstor's own process (one client process), the process's CPU also
holds the run's sampler, live figures and telemetry: a fixed cost a second that weighs
most where a point does few transactions. Each load thread joins this clock as it starts
and leaves it as it ends, adding what it used; a reading is what the threads that left
used plus what those still running have used so far (each thread's own CPU clock, user and
system time, nanoseconds). The difference of two readings is the load's CPU between them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class LoadCpu:
    """CPU seconds used by the threads that joined, summed; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[int, int] = {}  # thread ident -> its CPU clock id
        self._left = 0.0  # what the threads that left used, in all

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Count the calling thread's CPU from birth until the block ends."""
        ident = threading.get_ident()
        clock = time.pthread_getcpuclockid(ident)
        with self._lock:
            self._running[ident] = clock
        try:
            yield
        finally:
            with self._lock:  # read and dropped at once: a reading sees it once
                del self._running[ident]
                self._left += time.clock_gettime(clock)

    def seconds(self) -> float:
        """The CPU the joined threads have used so far (a thread counts from its birth, so
        only differences between readings mean anything)."""
        with self._lock:
            return self._left + sum(time.clock_gettime(c) for c in self._running.values())


def counted(cpu: LoadCpu, target: Callable[..., Any]) -> Callable[..., Any]:
    """`target` with the thread that runs it counted on `cpu`."""

    def run(*args: Any) -> Any:
        with cpu.counting():
            return target(*args)

    return run
