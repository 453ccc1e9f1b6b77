"""What a database run says, in words shared by the HTML report and the terminal: whether
the storage did the work or memory did, and how many device reads a transaction took.

A database run's read and write latencies are the device's await (diskstats has a mean,
not a distribution); its throughput is transactions; its IOPS are what the device under
the target saw, not what the engine asked for.
"""

from __future__ import annotations

import re
from html import escape

from dbstor.analysis.trust import MEMORY_READS_PER_TXN
from dbstor.report.kit.fmt import fmt_per_txn, fmt_ratio, join_words
from dbstor.report.kit.summary import (
    is_database,
    ok_points,
    peak_of,
    point_label,
    reads_from_memory,
)
from dbstor.results.model import Point, Run

_OPTION = re.compile(r"(--[a-z][a-z-]*)")
MEMORY_LEAD = "Reads came from memory, not the storage"
ADVICE = "a larger --scale or a smaller --buffer/--memory-limit makes the storage do the work"


def is_external(run: Run) -> bool:
    """An engine dbstor did not manage: its device figures are this host's, not the server's."""
    return (run.engine or {}).get("managed") is False


def reads_per_txn(point: Point) -> float | None:
    """Device reads per transaction: the engine_io figure, else device reads over TPS."""
    value = (point.engine_io or {}).get("device_reads_per_txn")
    if isinstance(value, int | float):
        return float(value)
    if point.read_iops is not None and point.tps:
        return point.read_iops / point.tps
    return None


def memory_sentence(run: Run) -> str | None:
    """The honesty callout: reads came from memory, so TPS shows the host, not the storage.

    None for fio runs and for database runs whose storage was read."""
    if not is_database(run):
        return None
    points = ok_points(run)
    memory = [p for p in points if reads_from_memory(p)]
    if not memory:
        return None
    peak = peak_of(run)
    ref = peak if peak in memory else max(memory, key=lambda p: p.tps or 0.0)
    detail = memory_detail(run, ref)
    where = point_label(ref, compact=False)
    if ref is peak:
        where += ", the highest transaction rate"
    if len(memory) == len(points):
        scope, rates = "", "These transaction rates show"
    else:
        scope = ", at " + join_words([point_label(p, compact=False) for p in memory])
        rates = "Those points' transaction rates show"
    return (
        f"{MEMORY_LEAD}{scope}: at {where}, {detail}. {rates} the host's CPU and memory, "
        f"not the storage's speed; {ADVICE}."
    )


def memory_detail(run: Run, point: Point) -> str:
    """Why the point's reads came from memory: few device reads, or few reads by the engine
    (and then what the device saw, which may be other I/O on a shared device)."""
    device = None if is_external(run) else reads_per_txn(point)
    engine = (point.engine_io or {}).get("engine_physical_reads_per_txn")
    ratio = point.cache_hit_ratio
    hit = f"hit ratio {fmt_ratio(ratio)}" if ratio is not None else ""
    if device is not None and device < MEMORY_READS_PER_TXN:
        return f"{fmt_per_txn(device)} device reads per transaction" + (f" ({hit})" if hit else "")
    if isinstance(engine, int | float):
        text = f"the engine read {fmt_per_txn(engine)} pages per transaction from storage"
        text += f" ({hit})" if hit else ""
    elif ratio is not None:
        text = f"the engine found {fmt_ratio(ratio)} of its reads in its cache"
    else:
        return "the engine's counters say so"
    if device is not None:
        text += (
            f"; the device still saw {fmt_per_txn(device)} reads per transaction, from other "
            "I/O on the device or reads the engine does not count"
        )
    return text


def memory_html(sentence: str) -> str:
    """The memory sentence as HTML, its lead in bold."""
    lead, rest = sentence[: len(MEMORY_LEAD)], sentence[len(MEMORY_LEAD) :]
    rest = _OPTION.sub(r'<code class="opt">\1</code>', escape(rest))
    if lead != MEMORY_LEAD:
        return escape(lead) + rest
    return f'<b class="lead">{escape(lead)}</b>{rest}'
