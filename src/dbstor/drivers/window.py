"""A load point's time window on the driving host: when its users start, when measuring
starts (after the warm-up) and when it ends, in time.monotonic() seconds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Window:
    """When a point's users start, when measuring starts and when it ends (monotonic s)."""

    start: float
    measure_start: float
    end: float
