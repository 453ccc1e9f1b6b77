"""The worker contract: what measures load points on one host, from plain descriptions.

A worker (pyperf's worker, locust's runner) lives on the host whose storage and CPU it
measures. The run loop (the manager) gives it plain dicts and gets plain dicts back, so
that the same loop can drive a worker in this process or one on another host:

    prepare(setup)  lay out test files, or create and load a database instance, here
    measure(point)  one load point: a description (what, where, how long, what load,
                    warm-up, when to start) -> an outcome (counters, mergeable latency
                    histograms, telemetry samples, errors)
    latest()        the newest telemetry sample while a point runs (the live line)
    cleanup()       stop what prepare started and remove what it made, unless kept

Outcomes of several workers (hosts) merge exactly with runs/merge.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dbstor.runs.database.worker import DatabaseWorker
from dbstor.runs.io.worker import IoWorker
from dbstor.runs.queries.worker import QueryWorker
from dbstor.testfiles import Safety

WORKERS: dict[str, type] = {"io": IoWorker, "database": DatabaseWorker, "queries": QueryWorker}


class Worker(Protocol):
    kind: str

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]: ...

    def measure(self, point: dict[str, Any]) -> dict[str, Any]: ...

    def latest(self) -> dict[str, Any] | None: ...

    def cleanup(self) -> dict[str, Any]: ...


def make_worker(
    kind: str, safety: dict[str, bool] | Safety, say: Callable[[str], None] | None = None
) -> Worker:
    """A worker of this run kind ("io", "database", "queries") on this host. `safety` is
    a Safety or its fields as a dict (allow_overwrite, destroy_device, keep)."""
    if kind not in WORKERS:
        raise ValueError(f"no worker for run kind {kind!r}; known: {', '.join(WORKERS)}")
    rules = safety if isinstance(safety, Safety) else Safety(**safety)
    return WORKERS[kind](rules, say)
