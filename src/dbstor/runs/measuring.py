"""What measuring a point shares across run kinds: waiting for the start moment on the
measuring host's clock, and telemetry samples as plain rows."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from dbstor.results.model import SAMPLE_KEYS
from dbstor.telemetry.sampler import Sample


def sample_rows(samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """Telemetry samples as plain rows (the counter snapshots stay behind)."""
    return [{key: sample.get(key) for key in SAMPLE_KEYS} for sample in samples]


def wait_until(moment: float | None) -> None:
    """Sleep until `moment` (epoch seconds) on this host's clock; at once when None."""
    if moment is None:
        return
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 0.5))
