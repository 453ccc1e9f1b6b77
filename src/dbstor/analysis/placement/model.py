"""What the placement advisor works on: database objects with their I/O counters.

An object is a file (SQL Server, Oracle v$filestat), a segment (DBA_HIST_SEG_STAT), a
table or an index (PostgreSQL, dbstor runs). Counters are cumulative in the sources; two
snapshots give deltas, one snapshot is taken as counted since the counters were reset.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dbstor.errors import UserError

# Counters that only ever grow while the database runs; a drop means a restart/reset.
COUNTERS = (
    "reads",
    "writes",
    "bytes_read",
    "bytes_written",
    "read_stall_ms",
    "write_stall_ms",
    "stall_ms",
    "cache_hits",
)


@dataclass
class DbObject:
    """One database object and its I/O counters (cumulative or over an interval)."""

    name: str
    kind: str  # data | log | temp | table | index | lob | ... (lower case)
    size_bytes: int
    reads: int
    writes: int
    bytes_read: int | None = None
    bytes_written: int | None = None
    read_stall_ms: float | None = None
    write_stall_ms: float | None = None
    stall_ms: float | None = None  # total; read + write when those are known
    cache_hits: int | None = None  # PostgreSQL: blocks found in shared buffers
    # why `writes` is not a count (the engine keeps no per-object writes): then the
    # writes are unknown, not 0, and the object's I/O is its reads alone
    writes_reason: str | None = None

    @property
    def ios(self) -> int:
        return self.reads + self.writes

    def total_stall_ms(self) -> float | None:
        """Total stall: the total column, else read + write stall, else None."""
        if self.stall_ms is not None:
            return self.stall_ms
        if self.read_stall_ms is not None or self.write_stall_ms is not None:
            return (self.read_stall_ms or 0.0) + (self.write_stall_ms or 0.0)
        return None


@dataclass
class Snapshot:
    """One reading of the counters of every object, as a source printed them."""

    objects: dict[str, DbObject]
    label: str  # where it came from: a file name, a DSN (masked), a run folder
    notes: list[str] = field(default_factory=list)


def delta(before: Snapshot, after: Snapshot) -> tuple[list[DbObject], list[str]]:
    """Counters of `after` minus `before`, object by object; sizes from `after`.

    Raises UserError when a counter went backwards (a restart or swapped files).
    """
    notes: list[str] = []
    result: list[DbObject] = []
    fresh: list[str] = []
    for name, new in after.objects.items():
        old = before.objects.get(name)
        if old is None:
            fresh.append(name)
            result.append(new)
            continue
        changes: dict[str, int | float | None] = {}
        for counter in COUNTERS:
            a, b = getattr(old, counter), getattr(new, counter)
            if a is None or b is None:
                changes[counter] = None
                continue
            if b < a:
                raise UserError(
                    f"counter {counter} of {name!r} went backwards between snapshots "
                    f"({a:g} in {before.label}, {b:g} in {after.label}): the instance "
                    "restarted or the files are in the wrong order; give the older "
                    "snapshot first, both taken since the same restart"
                )
            changes[counter] = b - a
        result.append(replace(new, **changes))
    missing = sorted(set(before.objects) - set(after.objects))
    for names, what in (
        (fresh, "not in the first snapshot, counted from zero"),
        (missing, "only in the first snapshot, left out"),
    ):
        if names:
            shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
            notes.append(f"{len(names)} object(s) {what}: {shown}")
    return result, notes
