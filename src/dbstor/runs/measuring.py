"""What measuring a point shares across run kinds: waiting for the start moment on the
measuring host's clock, telemetry samples as plain rows, and the per-host figures of a
point measured on several hosts."""

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


def add_host_views(point: Any, worker: Any, load: Any, duration_s: float, warmup_s: float) -> None:
    """A point measured on several hosts (a cluster worker): each host's own figures and
    the start skew, with a note when the hosts started further apart than the limit."""
    views = worker.host_views(load, duration_s, warmup_s)
    if views is None:  # measured on this host only
        return
    point.hosts, point.start_skew_ms = views["hosts"], views["start_skew_ms"]
    if views["start_skew_flagged"]:
        point.trust.notes.append(
            f"hosts started {views['start_skew_ms']:.0f} ms apart "
            f"(limit {views['start_skew_limit_ms']:.0f} ms)"
        )
