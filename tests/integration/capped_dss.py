"""Helpers for the tests of --memory-limit on dss runs of the embedded engines: whether a
memory cgroup can be made here, and a query's answer as a number that a capped client
process can send back in its record (the process is spawned: it imports this module)."""

from __future__ import annotations

import hashlib
import os
from typing import Any

from dbstor.analysis.dss_answers import normalize
from dbstor.engines.embedded_cap import EmbeddedCap


def cgroup_possible() -> bool:
    probe = EmbeddedCap("probe", os.getpid(), 64 * 2**20)
    probe.create()
    try:
        return probe.active
    finally:
        probe.remove()


def answer_digest(connection: Any, sql: str, dialect: str) -> int:
    """A query's answer as a number (rows normalized, floats to 9 digits, ties sorted), so
    that it comes back from the client process in the record's "rows"."""
    from dbstor.workloads.dss import execute

    def value(v: Any) -> Any:
        v = normalize(v)
        return float(f"{v:.9g}") if isinstance(v, float) else v

    rows = sorted(
        repr(tuple(value(v) for v in row)) for row in execute.answer(connection, sql, dialect)
    )
    return int(hashlib.sha256("\n".join(rows).encode()).hexdigest()[:15], 16)
