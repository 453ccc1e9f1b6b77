"""A database's two sizes, named for what they count: the tables and indexes on disk at
the end of the run (the engine's own listing) and the row data the load wrote (before
keys, indexes and page overhead). They differ, and the report says which is which."""

from __future__ import annotations

from dbstor.results.model import Run


def objects_on_disk(run: Run) -> tuple[int, float] | None:
    """(count, bytes) of the tables and indexes the engine listed at the end of the run."""
    objects = [o for o in (run.engine_stats or {}).get("objects") or [] if isinstance(o, dict)]
    if not objects:
        return None
    return len(objects), float(sum(o.get("size_bytes") or 0 for o in objects))


def row_data_loaded(run: Run) -> float | None:
    """The bytes of row data the load wrote (before keys, indexes and page overhead)."""
    loads = [x for x in (run.workload or {}).get("load") or [] if isinstance(x, dict)]
    total = sum(x.get("bytes") or 0 for x in loads)
    return float(total) if total else None


def databases_loaded(run: Run) -> int:
    """How many databases the load built (one per instance); the objects listed on disk are
    the first instance's (engine_stats.instance), each other instance holds its own copy."""
    return len([x for x in (run.workload or {}).get("load") or [] if isinstance(x, dict)])
