"""A point killed by dbstor's own memory cap, said as such: from the cap's cgroup OOM
counter (engines/cgroup.py MemoryCap.counters), with what the run needed, extrapolated
from the memory the earlier points' processes held, and the flag to raise."""

from __future__ import annotations

from typing import Any

from dbstor.results.model import Load
from dbstor.units import format_size


def load_words(load: Load, users: int) -> str:
    """'128 users', '4 instances x 8 users', '500/s' for a killed point."""
    if load.kind == "users":
        return f"{load.value:,.0f} users"
    if load.kind == "instances":
        return f"{load.value:,.0f} instances x {users:,} users"
    if load.kind == "rate":
        return f"{load.value:,.0f} transactions/s ({load.jobs:,} users)"
    return f"{load.kind} {load.value:g}"


def needed_bytes(history: list[tuple[int, int]], jobs: int) -> int | None:
    """The memory the processes would hold at `jobs` users: a line through the last two
    points' (users, held), or one point scaled by users; None without a point."""
    if not history:
        return None
    if len(history) == 1 or history[-1][0] == history[-2][0]:
        users, held = history[-1]
        return round(held * max(1.0, jobs / max(1, users)))
    (u1, h1), (u2, h2) = history[-2], history[-1]
    slope = max(0.0, (h2 - h1) / (u2 - u1))
    return round(h2 + slope * (jobs - u2))


def oom_killed(oom: dict[str, Any] | None) -> bool:
    return bool(oom and (oom.get("oom_kills") or 0) > 0)


def oom_message(oom: dict[str, Any], where: str, needed: int | None) -> str:
    """'killed by the 256 MiB memory cap at 128 users (...); the run needed about 300 MiB
    (...): raise --memory-limit, e.g. --memory-limit 512MiB'."""
    limit = int(oom.get("limit") or 0)
    given = oom.get("given")
    cap = f"the {format_size(limit)} memory cap" if limit else "dbstor's memory cap"
    if given and limit:  # an embedded engine: the clients' own memory + the database's share
        cap = (
            f"the {format_size(given)} memory cap (the client processes' own memory + "
            f"{format_size(given)} for the database = {format_size(limit)})"
        )
    kills = f"{oom['oom_kills']} OOM kill{'s' if oom['oom_kills'] != 1 else ''} in its cgroup"
    if needed is not None and needed > limit:
        need = (
            f"the run needed about {format_size(needed)} (its processes' memory and shared "
            "memory, from the points before, before any page cache)"
        )
    elif needed is not None:
        need = (
            f"the run needed more than {format_size(limit)} (its processes and shared memory "
            f"held about {format_size(needed)}, the page cache of its files the rest)"
        )
    else:
        need = f"the run needed more than {format_size(limit)}"
    more = (given or 0) * 2 if given else max(needed or 0, limit) * 2
    example = f"{1 << ((more >> 20) - 1).bit_length()}MiB" if more >> 20 else "1GiB"
    return f"killed by {cap} at {where} ({kills}); {need}: raise --memory-limit, e.g. --memory-limit {example}"
