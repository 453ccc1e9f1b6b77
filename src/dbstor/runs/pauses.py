"""Whether dbstor was stopped during a load point: SIGSTOP (Ctrl-Z), a VM pause, a suspend.

A stopped process's clocks keep running, so a watcher thread that wakes every `tick_s`
sees, on its first wake after the stop, that far more time passed than it slept: the gap.
A suspend shows as CLOCK_BOOTTIME moving away from CLOCK_MONOTONIC (monotonic stands still
while suspended), a clock step (a paused VM's clock set right on resume) as CLOCK_REALTIME
moving away from it. The largest of the three beyond `tolerance_s` marks the point
interrupted: its figures cover a window in which the load (or its measurement) stood still.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

TOLERANCE_S = 2.0  # a scheduling delay on a busy host stays well under this
TICK_S = 0.25


def clock_offsets() -> tuple[float, float]:
    """CLOCK_BOOTTIME and CLOCK_REALTIME, each minus CLOCK_MONOTONIC, in seconds."""
    mono = time.clock_gettime(time.CLOCK_MONOTONIC)
    return (
        time.clock_gettime(time.CLOCK_BOOTTIME) - mono,
        time.clock_gettime(time.CLOCK_REALTIME) - mono,
    )


class PauseWatch:
    """The longest stretch this process did not run (or its clocks jumped) while watching.

    `clock` is the monotonic clock and `offsets` the other clocks' distance from it, both
    injectable so that a unit test can drive `observe()` by hand without a thread.
    """

    def __init__(
        self,
        tolerance_s: float = TOLERANCE_S,
        tick_s: float = TICK_S,
        *,
        clock: Callable[[], float] = time.monotonic,
        offsets: Callable[[], tuple[float, float]] = clock_offsets,
    ) -> None:
        self.tolerance_s, self.tick_s = tolerance_s, tick_s
        self._clock, self._offsets = clock, offsets
        self._last = clock()
        self._first_offsets = offsets()
        self.longest_s = 0.0
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def observe(self) -> None:
        """One wake: the time lost since the last one beyond the tick, and the clocks' drift."""
        now = self._clock()
        lost = now - self._last - self.tick_s
        self._last = now
        drift = max(abs(a - b) for a, b in zip(self._offsets(), self._first_offsets, strict=True))
        self.longest_s = max(self.longest_s, lost, drift)

    def _run(self) -> None:
        while not self._done.wait(self.tick_s):
            self.observe()

    def start(self) -> PauseWatch:
        self._thread = threading.Thread(target=self._run, name="dbstor-pause-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> float | None:
        """The gap in seconds when it passed the tolerance, else None."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self.observe()  # a stop that ended just now
        return round(self.longest_s, 2) if self.longest_s > self.tolerance_s else None

    def __enter__(self) -> PauseWatch:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self._done.set()


def mark_paused(point: Any, gap_s: float | None) -> None:
    """Mark an otherwise finished point interrupted when dbstor stood still during it."""
    if gap_s is None or not point.ok:
        return
    point.status = "interrupted"
    point.paused_s = gap_s
    point.error = (
        f"dbstor was stopped or its clock jumped for {gap_s:.1f} s during the point "
        "(SIGSTOP or Ctrl-Z, a VM pause, a suspend): its figures are not a steady measurement; "
        "run it again without stopping dbstor"
    )
