"""Placement analysis: I/O density, the skew curve and its skew point, and the objects
that a fast tier of a given capacity should hold to save the most stall time.

The value of moving an object is the stall time it would no longer spend:
ios x (slow latency - fast latency), where the slow latency is the one given
(--slow-latency, --slow-run) or, failing that, the object's own observed stall per I/O.
Without any stall figure the advisor maximises the I/O served by the fast tier instead.
Transaction logs and other sequential writers are poor candidates (EMC h6080, Figure 8:
moving logs to flash gave a slight loss) and are left out unless asked for.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from dbstor.analysis.placement import knapsack
from dbstor.analysis.placement.model import DbObject
from dbstor.errors import UserError
from dbstor.units import format_size, parse_percent, parse_size

GIB = 1024**3
DEFAULT_FAST_LATENCY_MS = 0.5
SEQ_WRITE_SHARE = 0.9  # writes at least this share of the I/O ...
SEQ_WRITE_SIZE = 64 * 1024  # ... in writes of at least this size on average


@dataclass
class Tiers:
    """The fast tier's capacity and latency, the slow tier's latency if known."""

    capacity_bytes: int
    fast_latency_ms: float = DEFAULT_FAST_LATENCY_MS
    fast_source: str = "default"
    slow_latency_ms: float | None = None
    slow_source: str | None = None
    capacity_share: float | None = None  # asked as a share of the database: capacity_bytes follows


@dataclass(frozen=True)
class FastCapacity:
    """The fast tier's usable size as asked: bytes ("300GB") or a share of the database's
    tables and indexes ("50%": h6080's 300 GB of flash for a 600 GB database), which
    follows the database at any scale."""

    size_bytes: int | None = None
    share: float | None = None

    def bytes_for(self, database_bytes: int) -> int:
        if self.share is not None:
            return int(self.share * database_bytes)
        return int(self.size_bytes or 0)


def parse_fast_capacity(text: str) -> FastCapacity:
    """'300GB' or '50%' -> FastCapacity; ValueError with the reason."""
    value = str(text).strip()
    if value.endswith("%"):
        share = parse_percent(value) / 100.0
        if share <= 0:
            raise ValueError(f"{value} leaves no fast tier: give a share above 0%")
        return FastCapacity(share=share)
    size = parse_size(value)
    if size <= 0:
        raise ValueError(f"{value!r} leaves no fast tier: give a size above 0, e.g. 300GB or 50%")
    return FastCapacity(size_bytes=size)


def skew_curve(objects: list[DbObject]) -> list[tuple[float, float]]:
    """(share of capacity, share of I/O), cumulative, densest objects first, from (0, 0)."""
    total_io = sum(o.ios for o in objects)
    total_size = sum(o.size_bytes for o in objects)
    if total_io <= 0 or total_size <= 0:
        return [(0.0, 0.0), (1.0, 1.0)]
    curve = [(0.0, 0.0)]
    x = y = 0.0
    for obj in sorted(objects, key=_density_key):
        x += obj.size_bytes / total_size
        y += obj.ios / total_io
        curve.append((min(x, 1.0), min(y, 1.0)))
    return curve


def skew_point(curve: list[tuple[float, float]]) -> tuple[float, float]:
    """Where the curve crosses x + y = 1: 'y of the I/O lands on x of the capacity'."""
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        s0, s1 = x0 + y0, x1 + y1
        if s0 <= 1.0 <= s1 and s1 > s0:
            t = (1.0 - s0) / (s1 - s0)
            return x0 + t * (x1 - x0), y0 + t * (y1 - y0)
    return 0.5, 0.5


def poor_candidate(obj: DbObject) -> str | None:
    """Why an object gains little on flash (sequential writes), or None."""
    if obj.kind in ("log", "redo", "wal"):
        return (
            "transaction log: sequential writes gain little on flash (h6080 Figure 8: "
            "moving logs to flash gave a slight loss)"
        )
    if obj.ios and obj.writes / obj.ios >= SEQ_WRITE_SHARE and obj.bytes_written:
        size = obj.bytes_written / max(obj.writes, 1)
        if size >= SEQ_WRITE_SIZE:
            return (
                f"sequential writer: {obj.writes / obj.ios:.0%} writes averaging "
                f"{size / 1024:.0f} KiB, like a log (h6080: poor flash candidate)"
            )
    return None


def analyse(
    objects: list[DbObject],
    tiers: Tiers,
    include_logs: bool = False,
    method: str = "auto",
) -> dict[str, Any]:
    """Rank the objects, choose those for the fast tier; a JSON-ready result."""
    total_io, total_size = _totals(objects, tiers)
    stalls = [o.total_stall_ms() for o in objects]
    objective = "stall_ms"
    if tiers.slow_latency_ms is None and any(s is None for s in stalls):
        objective = "io"
    ranked = sorted(objects, key=_density_key)
    values, rows = _ranked_rows(ranked, tiers, objective, include_logs, total_io, total_size)
    weights = [r["size_bytes"] for r in rows]
    picked, used_method, method_note = knapsack.choose(
        weights, values, tiers.capacity_bytes, method
    )
    picked_set = set(picked)
    used = sum(weights[i] for i in picked)
    for i, row in enumerate(rows):
        row["rank"] = i + 1
        row["chosen"] = i in picked_set
        row["reason"] = _reason(row, tiers, objective, tiers.capacity_bytes - used)
    chosen_rows = [r for r in rows if r["chosen"]]
    total_stall = None if any(s is None for s in stalls) else sum(s for s in stalls if s)
    saved_total = (
        sum(r["saved_ms"] or 0.0 for r in chosen_rows) if objective == "stall_ms" else None
    )
    # the stall the model puts on the slow tier today: the given latency, else the observed
    modelled = (
        total_io * tiers.slow_latency_ms if tiers.slow_latency_ms is not None else total_stall
    )
    curve = skew_curve(objects)
    sx, sy = skew_point(curve)
    notes = _advice_notes(objects, rows, method_note, objective, include_logs)
    return {
        "kind": "advise",
        "objective": objective,
        "method": used_method,
        "density_unit": "I/O per GiB",
        "fast_tier": {
            "capacity_bytes": tiers.capacity_bytes,
            "capacity_share": tiers.capacity_share,  # asked as a share of the database
            "latency_ms": tiers.fast_latency_ms,
            "latency_source": tiers.fast_source,
        },
        "slow_tier": {
            "latency_ms": tiers.slow_latency_ms,
            "latency_source": tiers.slow_source
            or ("observed stall per I/O of each object" if objective == "stall_ms" else None),
        },
        "totals": {
            "objects": len(objects),
            "size_bytes": total_size,
            "reads": sum(o.reads for o in objects),
            "writes": None
            if all(o.writes_reason for o in objects)
            else sum(o.writes for o in objects if not o.writes_reason),
            "ios": total_io,
            "stall_ms": total_stall,
        },
        "ranking": rows,
        "chosen": [r["name"] for r in chosen_rows],
        "result": {
            "used_bytes": used,
            "capacity_share": used / total_size if total_size else 0.0,
            "io_share": sum(r["ios"] for r in chosen_rows) / total_io,
            "read_share": (
                sum(r["reads"] for r in chosen_rows) / max(1, sum(r["reads"] for r in rows))
            ),
            "stall_saved_ms": saved_total,
            "stall_saved_share": (
                saved_total / modelled if saved_total is not None and modelled else None
            ),
        },
        "skew": {
            "curve": [[round(x, 6), round(y, 6)] for x, y in curve],
            "point": {"capacity_share": sx, "io_share": sy},
        },
        "notes": notes,
        "assumptions": _assumptions(tiers, objective, include_logs),
    }


def stall_text(ms: float) -> str:
    """Stall time to the digits it has: '16 s', '2.4 s', '180 ms', '0.6 ms' (a saving under
    half a second is not '0 s')."""
    if ms >= 9_950:
        return f"{ms / 1000:,.0f} s"
    if ms >= 995:
        return f"{ms / 1000:.1f} s"
    return f"{ms:.2g} ms" if ms < 10 else f"{ms:.0f} ms"


def _totals(objects: list[DbObject], tiers: Tiers) -> tuple[float, int]:
    """The objects' I/O and bytes, the fast tier's capacity resolved from a share; one
    clear line for an input with no objects, no I/O or no capacity."""
    if not objects:
        raise UserError("no database objects in the input; check the export or the database")
    total_io = sum(o.ios for o in objects)
    if total_io <= 0:
        raise UserError(
            "no I/O counted in the input (all reads and writes are 0); take the "
            "snapshots over an interval with load on the database"
        )
    total_size = sum(o.size_bytes for o in objects)
    if tiers.capacity_share is not None:
        tiers.capacity_bytes = int(tiers.capacity_share * total_size)
    if tiers.capacity_bytes <= 0:
        raise UserError("--fast-capacity must be above 0, e.g. 500GB or 50%")
    return total_io, total_size


def _ranked_rows(
    ranked: list[DbObject],
    tiers: Tiers,
    objective: str,
    include_logs: bool,
    total_io: float,
    total_size: int,
) -> tuple[list[float], list[dict[str, Any]]]:
    """Each object's row (its I/O, shares, stall and what the fast tier would save) and
    its value to the knapsack (0 for a poor candidate left out)."""
    values, rows = [], []
    for obj in ranked:
        stall = obj.total_stall_ms()
        current = tiers.slow_latency_ms
        if current is None and stall is not None and obj.ios:
            current = stall / obj.ios
        saved = None if current is None else max(0.0, obj.ios * (current - tiers.fast_latency_ms))
        poor = poor_candidate(obj)
        candidate = poor is None or include_logs
        value = (saved or 0.0) if objective == "stall_ms" else float(obj.ios)
        values.append(value if candidate else 0.0)
        rows.append(
            {
                "name": obj.name,
                "kind": obj.kind,
                "size_bytes": obj.size_bytes,
                "reads": obj.reads,
                "writes": None if obj.writes_reason else obj.writes,
                "writes_reason": obj.writes_reason,
                "ios": obj.ios,
                "read_pct": round(100.0 * obj.reads / obj.ios, 2)
                if obj.ios and not obj.writes_reason
                else None,
                "density": round(obj.ios / (obj.size_bytes / GIB), 3) if obj.size_bytes else None,
                "io_share": obj.ios / total_io,
                "capacity_share": obj.size_bytes / total_size if total_size else 0.0,
                "bytes_read": obj.bytes_read,
                "bytes_written": obj.bytes_written,
                "stall_ms": stall,
                "avg_stall_ms": round(stall / obj.ios, 3)
                if stall is not None and obj.ios
                else None,
                "latency_now_ms": current,
                "saved_ms": saved,
                "candidate": candidate,
                "poor_reason": poor,
            }
        )
    return values, rows


def _advice_notes(
    objects: list[DbObject],
    rows: list[dict[str, Any]],
    method_note: str | None,
    objective: str,
    include_logs: bool,
) -> list[str]:
    """The method's note, the objective's when stalls were unknown, the poor candidates
    left out, and what the caches say."""
    notes = []
    if method_note:
        notes.append(method_note)
    if objective == "io":
        notes.append(
            "no stall times in the input and no --slow-latency or --slow-run: objects "
            "chosen for the most I/O served by the fast tier; stall saved not estimated"
        )
    excluded = [r["name"] for r in rows if r["poor_reason"] and not include_logs]
    if excluded:
        notes.append(
            f"left out as poor flash candidates: {', '.join(excluded[:6])}"
            + (" ..." if len(excluded) > 6 else "")
            + " (--include-logs to let them compete)"
        )
    notes.extend(_cache_notes(objects))
    return notes


def _reason(row: dict[str, Any], tiers: Tiers, objective: str, free: int) -> str:
    share = f"{row['io_share']:.1%} of the I/O in {row['capacity_share']:.1%} of the capacity"
    saves = ""
    if objective == "stall_ms" and row["saved_ms"] is not None:
        saves = (
            f"saves {stall_text(row['saved_ms'])} of stall "
            f"({row['latency_now_ms']:.3g} -> {tiers.fast_latency_ms:.3g} ms per I/O)"
        )
    if row["chosen"]:
        return f"chosen: {share}" + (f"; {saves}" if saves else "")
    if row["poor_reason"] and not row["candidate"]:
        return f"not chosen: {row['poor_reason']}"
    if row["ios"] == 0:
        return "not chosen: no I/O counted"
    if objective == "stall_ms" and not row["saved_ms"]:
        return (
            f"not chosen: {row['latency_now_ms']:.3g} ms per I/O is already at fast-tier "
            "latency, no stall to save"
        )
    size = format_size(row["size_bytes"])
    if row["size_bytes"] > tiers.capacity_bytes:
        return (
            f"not chosen: {size} is larger than the whole fast tier "
            f"({format_size(tiers.capacity_bytes)}); {share}"
        )
    gain = saves.replace("saves", "would save") if saves else share
    return (
        f"not chosen: {size} does not fit in the {format_size(free)} left; the chosen set "
        f"{'saves more stall' if saves else 'moves more I/O'} in total; {gain}"
    )


def _cache_notes(objects: list[DbObject]) -> list[str]:
    hits = [o.cache_hits for o in objects if o.cache_hits is not None]
    if not hits:
        return []
    total_hits, reads = sum(hits), sum(o.reads for o in objects)
    ratio = total_hits / (total_hits + reads) if total_hits + reads else 0.0
    note = (
        f"{ratio:.1%} of block requests were served from the database cache; the "
        "reads counted here may still come from the OS page cache, not the storage"
    )
    if ratio >= 0.99:
        note += " (the storage barely saw this workload)"
    return [note]


def _assumptions(tiers: Tiers, objective: str, include_logs: bool) -> list[str]:
    share = (
        f" ({tiers.capacity_share:.0%} of the database's tables and indexes)"
        if tiers.capacity_share is not None
        else ""
    )
    out = [
        f"fast tier: {format_size(tiers.capacity_bytes)} usable{share}, "
        f"{tiers.fast_latency_ms:g} ms per I/O ({tiers.fast_source})",
    ]
    if tiers.slow_latency_ms is not None:
        out.append(f"slow tier: {tiers.slow_latency_ms:g} ms per I/O ({tiers.slow_source})")
    elif objective == "stall_ms":
        out.append("slow tier: each object's observed stall per I/O (io_stall / (reads + writes))")
    out.append(
        "stall saved = I/Os × (slow-tier latency − fast-tier latency), at the counted load;"
        " the load itself may rise once the storage is faster (h6080: +48% TPM)"
    )
    out.append(
        "objects move whole (a file, a table or an index); the capacity is the usable "
        "space of the fast tier, no free-space margin kept"
    )
    if not include_logs:
        out.append("transaction logs and sequential writers stay on the slow tier")
    return out


def _density_key(obj: DbObject) -> tuple[int, float, str]:
    if obj.size_bytes <= 0:
        return (0, -float(obj.ios), obj.name)
    return (1, -obj.ios / obj.size_bytes, obj.name)
