"""What the terminal shows during a run: the point, time elapsed, live IOPS.

On a terminal a live line is redrawn every half second; elsewhere (CI, pipes) one line
per finished point is printed, so logs stay readable.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from rich.console import Console


def live_device_iops(sample: dict | None) -> float | None:
    """Read plus write IOPS of the device in a telemetry sample, for the live line."""
    if not sample or sample.get("dev_read_iops") is None:
        return None
    return (sample["dev_read_iops"] or 0) + (sample["dev_write_iops"] or 0)


class Progress:
    """Progress lines on stderr (none when quiet) and a live line per point."""

    def __init__(self, console: Console | None = None, quiet: bool = False):
        self.console = console or Console(stderr=True)
        self.quiet = quiet
        self.live = self.console.is_terminal and not quiet

    def say(self, message: str) -> None:
        if not self.quiet:
            self.console.print(message, highlight=False)

    def tell(self, message: str) -> None:
        """A line the user needs even with --quiet (where the live figures are served)."""
        self.console.print(message, highlight=False, soft_wrap=True)

    def point(
        self, title: str, total_s: float, live_iops: Callable[[], float | None]
    ) -> _PointDisplay:
        return _PointDisplay(self, title, total_s, live_iops)


class _PointDisplay:
    """The live line of one point: title, seconds elapsed of the total, device IOPS."""

    def __init__(
        self, progress: Progress, title: str, total_s: float, live_iops: Callable[[], float | None]
    ):
        self.progress, self.title, self.total_s, self.live_iops = (
            progress,
            title,
            total_s,
            live_iops,
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start = 0.0

    def __enter__(self) -> _PointDisplay:
        self._start = time.monotonic()
        if self.progress.live:
            self._thread = threading.Thread(target=self._draw, daemon=True)
            self._thread.start()
        return self

    def _line(self) -> str:
        elapsed = time.monotonic() - self._start
        iops = self.live_iops()
        live = f"{iops:>9,.0f} IOPS (device)" if iops is not None else ""
        return f"  {self.title:<28} {elapsed:5.0f}/{self.total_s:.0f} s  {live}"

    def _draw(self) -> None:
        while not self._stop.wait(0.5):
            sys.stderr.write("\r" + self._line()[:120].ljust(80))
            sys.stderr.flush()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()
