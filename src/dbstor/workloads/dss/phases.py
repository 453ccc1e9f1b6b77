"""What one engine's build of the dss database did and how long each phase took."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

INDEX_CHOICES = ("all", "primary", "none")


@dataclass
class Phases:
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows loaded
    seconds: dict[str, float] = field(default_factory=dict)  # phase -> seconds

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + time.monotonic() - started
