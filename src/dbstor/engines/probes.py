"""What a DBA checks before a study: the queries an engine's counters need, each with the
privilege or feature it needs, so `dbstor engines --check` can run every one once and say
plainly which work and which are missing (and what to grant)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CounterQuery:
    """One query an engine's counters run at a measured window's edges."""

    name: str  # what it feeds, in a DBA's words: "per-file I/O", "wait statistics"
    sql: str  # the query exactly as the counters run it
    needs: str  # the privilege, role, version or setting it needs ("VIEW SERVER STATE")
    params: Any = None  # the DB-API parameters the counters pass with it, if any
    # a problem its rows show although it ran (a feature off), as one line with the fix
    verdict: Callable[[Sequence[Sequence[Any]]], str | None] | None = None
