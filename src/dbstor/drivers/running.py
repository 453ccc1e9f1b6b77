"""The users' running figures while a point is measured, for live figures (--metrics-port).

A snapshot of the users' tallies so far, merged: transactions finished in the measured
window, errors, and the merged latency histogram (the same 2% bins the point's result
merges, so the live percentiles are the running histogram's, never averaged ones). The
users keep recording while it is taken: each of their counters is copied in one step
(dict.copy holds the interpreter lock), so a snapshot never stops or slows them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from dbstor.drivers.tally import Tally


def running_figures(tallies: Sequence[Tally], elapsed_s: float) -> dict[str, Any]:
    """{"ops", "errors", "elapsed_s", "histogram": {"bins": {ns: n}, "total_ns", "max_ns"}}
    of the users' tallies so far (plain data, as a client process could send it)."""
    bins: Counter[int] = Counter()
    total_ns = max_ns = 0.0
    errors = 0
    for tally in tallies:
        for per_type in dict.copy(tally.bins).values():
            bins.update(dict.copy(per_type))
        total_ns += sum(dict.copy(tally.total_ns).values())
        max_ns = max([max_ns, *dict.copy(tally.max_ns).values()])
        errors += tally.errors
    return {
        "ops": sum(bins.values()),
        "errors": errors,
        "elapsed_s": max(0.0, elapsed_s),
        "histogram": {"bins": dict(bins), "total_ns": total_ns, "max_ns": max_ns},
    }


def merge_figures(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Running figures of several client processes added up (the latest of each): counts
    and bins summed, the longest elapsed time, the largest maximum."""
    bins: Counter[int] = Counter()
    for part in parts:
        bins.update({int(k): int(v) for k, v in part["histogram"]["bins"].items()})
    return {
        "ops": sum(int(p["ops"]) for p in parts),
        "errors": sum(int(p["errors"]) for p in parts),
        "elapsed_s": max((float(p["elapsed_s"]) for p in parts), default=0.0),
        "histogram": {
            "bins": dict(bins),
            "total_ns": sum(float(p["histogram"]["total_ns"]) for p in parts),
            "max_ns": max((float(p["histogram"]["max_ns"]) for p in parts), default=0.0),
        },
    }
