"""A run's own files, handed over just before the run removes them: a study's efficiency
is measured on the database or test files each run built, which are gone once the run ends
(unless --keep). The wrapper sits around the run's worker, whose cleanup() removes them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Pairs = list[tuple[str, str]]  # (role, path)


def engine_files(engines: list[Any]) -> Pairs:
    """(role, path) of the engines' database files (none for an external server)."""
    return [
        (role, path)
        for engine in engines
        for role, paths in engine.data_paths().items()
        for path in paths
    ]


class ScanBeforeCleanup:
    """A run's worker whose cleanup() first hands the run's own files to `scan`."""

    def __init__(self, worker: Any, scan: Callable[[Pairs], None]):
        self.worker, self.scan = worker, scan

    def __getattr__(self, name: str) -> Any:
        return getattr(self.worker, name)

    def cleanup(self) -> dict[str, Any]:
        try:
            self.scan(self.worker.own_files())
        finally:
            outcome = self.worker.cleanup()
        return outcome
