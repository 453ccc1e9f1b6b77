"""Engines that are planned, not built: listed by `dbstor engines` with what each needs.

Each names the three things the engine contract asks of a new engine: its SQL dialect,
its Python driver, and the query that gives per-file I/O statistics.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlannedEngine:
    name: str
    title: str
    dialect: str
    driver: str
    file_stats_query: str


# Every engine once planned is built; a new one is listed here until it is.
PLANNED: tuple[PlannedEngine, ...] = ()
