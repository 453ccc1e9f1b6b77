"""The worker contract: what measures load points on one host, from plain descriptions.

A worker (pyperf's worker, locust's runner) lives on the host whose storage and CPU it
measures. The run loop (the manager) gives it plain dicts and gets plain dicts back, so
that the same loop can drive a worker in this process or one on another host:

    prepare(setup)  lay out test files, or create and load a database instance, here
    measure(point)  one load point: a description (what, where, how long, what load,
                    warm-up, when to start) -> an outcome (counters, mergeable latency
                    histograms, telemetry samples, errors)
    latest()        the newest telemetry sample while a point runs (the live line)
    running()       the running point's own figures (fio's, the users' tallies) or None
    cleanup()       stop what prepare started and remove what it made, unless kept
    hosts           the hosts it measures on (empty: this host)
    host_views(...) each host's figures and the start skew of the last point (None on
                    one host)
    own_files()     (role, path) of what it built on this host (none for other hosts')
    path_layout()   what sits on each of its paths at the run's end ([] where it keeps none)
    plan(setup)     what prepare will lay out, decided and checked, nothing written (an io
                    worker's test files; {} for a database, which lays out its own)
The run loops use exactly these (no probing for what a worker has).

Outcomes of several workers (hosts) merge exactly with runs/merge.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from dbstor.runs.database.worker import DatabaseWorker
from dbstor.runs.io.worker import IoWorker
from dbstor.runs.queries.worker import QueryWorker
from dbstor.testfiles import Safety

WORKERS: dict[str, type] = {"io": IoWorker, "database": DatabaseWorker, "queries": QueryWorker}


class Worker(Protocol):
    kind: str
    hosts: Sequence[str]

    def plan(self, setup: dict[str, Any]) -> dict[str, Any]: ...

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]: ...

    def measure(self, point: dict[str, Any]) -> dict[str, Any]: ...

    def latest(self) -> dict[str, Any] | None: ...

    def running(self) -> dict[str, Any] | None: ...

    def host_views(
        self, load: Any, duration_s: float, warmup_s: float
    ) -> dict[str, Any] | None: ...

    def own_files(self) -> list[tuple[str, str]]: ...

    def path_layout(self) -> list[dict[str, Any]]: ...

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
