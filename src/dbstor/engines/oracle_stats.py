"""Oracle's statistics at a measured window's edges: the dynamic performance views behind
counters() and object_io(), and the arithmetic on their rows (tested on recorded output,
tests/fixtures/oracle/).

- v$filestat joined with v$datafile (and v$tempstat with v$tempfile): per file, reads and
  writes (PHYRDS, PHYWRTS), blocks (PHYBLKRD, PHYBLKWRT, times the file's BLOCK_SIZE gives
  bytes) and time spent (READTIM, WRITETIM, in hundredths of a second);
- v$sysstat: 'session logical reads', 'physical reads', 'physical writes' (blocks; the
  buffer cache's counters), 'physical read total bytes' and 'physical write total bytes'
  (every file the instance reads and writes, redo and temp included), 'physical read
  total IO requests', 'physical write total IO requests', 'user commits', 'redo size';
- v$system_event: 'db file sequential read' (single-block reads: the storage's read
  latency as Oracle saw it) and 'log file sync' (a commit waiting for redo), total waits
  and TIME_WAITED_MICRO.

Each needs SELECT_CATALOG_ROLE or SELECT ANY DICTIONARY (v$ views are not visible to
an ordinary user). All figures are instance-wide except the per-file rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dbstor.engines.base import EngineCounters, ObjectIO
from dbstor.engines.probes import CounterQuery
from dbstor.engines.window import Edge, failed, figures, unread
from dbstor.engines.window import wait as window_wait
from dbstor.results.finite import checked_figure

CATALOG = "SELECT_CATALOG_ROLE (or SELECT ANY DICTIONARY)"
SYSSTATS = (
    "session logical reads",
    "physical reads",
    "physical writes",
    "physical read total bytes",
    "physical write total bytes",
    "physical read total IO requests",
    "physical write total IO requests",
    "user commits",
    "redo size",
)
EVENTS = ("db file sequential read", "log file sync")
_FILE_COLUMNS = "f.phyrds, f.phywrts, f.phyblkrd, f.phyblkwrt, f.readtim, f.writetim"

FILESTAT_SQL = (
    f"SELECT d.name, t.name, {_FILE_COLUMNS}, d.bytes, d.block_size FROM v$filestat f"
    " JOIN v$datafile d ON d.file# = f.file# JOIN v$tablespace t ON t.ts# = d.ts#"
)
TEMPSTAT_SQL = (
    f"SELECT d.name, t.name, {_FILE_COLUMNS}, d.bytes, d.block_size FROM v$tempstat f"
    " JOIN v$tempfile d ON d.file# = f.file# JOIN v$tablespace t ON t.ts# = d.ts#"
)
SYSSTAT_SQL = "SELECT name, value FROM v$sysstat WHERE name IN ({})".format(
    ", ".join(f"'{n}'" for n in SYSSTATS)
)
EVENTS_SQL = (
    "SELECT event, total_waits, time_waited_micro FROM v$system_event WHERE event IN ({})"
).format(", ".join(f"'{e}'" for e in EVENTS))
VERSION_SQL = "SELECT banner FROM v$version WHERE ROWNUM = 1"


def counter_queries() -> list[CounterQuery]:
    """Every query counters() and object_io() run, with what each needs."""
    return [
        CounterQuery("per-file I/O (data files)", FILESTAT_SQL, CATALOG),
        CounterQuery("per-file I/O (temp files)", TEMPSTAT_SQL, CATALOG),
        CounterQuery("instance statistics (cache, bytes, commits, redo)", SYSSTAT_SQL, CATALOG),
        CounterQuery("wait events (single-block reads, log file sync)", EVENTS_SQL, CATALOG),
    ]


@dataclass(frozen=True)
class FileStat:
    """One file's cumulative counters as v$filestat / v$tempstat print them."""

    name: str
    tablespace: str
    kind: str  # file | temp
    reads: float
    writes: float
    blocks_read: float
    blocks_written: float
    read_cs: float  # READTIM, hundredths of a second
    write_cs: float
    size_bytes: int
    block_size: int


def file_stats(rows: Iterable[tuple[Any, ...]], kind: str = "file") -> list[FileStat]:
    """FileStat per row of FILESTAT_SQL or TEMPSTAT_SQL."""
    out = []
    for name, space, rds, wrts, brd, bwrt, rtim, wtim, size, block in rows:
        numbers = [float(v or 0) for v in (rds, wrts, brd, bwrt, rtim, wtim)]
        out.append(FileStat(str(name), str(space), kind, *numbers, int(size or 0), int(block)))
    return out


@dataclass
class Snapshot:
    """One reading of the views at a window's edge."""

    files: list[FileStat] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)  # v$sysstat name -> value
    events: dict[str, tuple[float, float]] = field(default_factory=dict)  # waits, micro
    awr: int | str | None = None  # the AWR snapshot taken here (?awr=on), or why none was


def snapshot(
    files: Iterable[tuple[Any, ...]],
    temps: Iterable[tuple[Any, ...]],
    stats: Iterable[tuple[Any, ...]],
    events: Iterable[tuple[Any, ...]],
) -> Snapshot:
    """A Snapshot from the rows of the four queries."""
    return Snapshot(
        file_stats(files) + file_stats(temps, "temp"),
        {str(n): float(v) for n, v in stats},
        {str(e): (float(w), float(t)) for e, w, t in events},
    )


def engine_counters(snap: Snapshot) -> EngineCounters:
    """The engine counters of a snapshot (None, with the reason, where a statistic is
    missing from v$sysstat)."""
    out = EngineCounters()
    pairs = {
        "logical_reads": "session logical reads",
        "physical_reads": "physical reads",
        "physical_writes": "physical writes",
        "storage_read_bytes": "physical read total bytes",
        "storage_write_bytes": "physical write total bytes",
    }
    for field_name, stat in pairs.items():
        if stat in snap.stats:
            setattr(out, field_name, snap.stats[stat])
        else:
            out.why_null[field_name] = f"v$sysstat has no '{stat}' on this server"
    return out


def _delta(after: float, before: float, what: str, why: dict[str, str]) -> float | None:
    value, reason = checked_figure(after - before, what)
    if reason:
        why[what] = reason
    return value


def window(before: Snapshot, after: Snapshot) -> dict[str, Any]:
    """The window's figures: per file reads, writes, bytes and read time (ms, from
    hundredths of a second), the mean read time; instance I/O requests, commits and redo
    bytes; each event's waits and mean wait (ms). A counter that went back (a restarted
    instance) is None with the reason; a file present at one edge only is left out."""
    why: dict[str, str] = {}
    was = {(f.kind, f.name): f for f in before.files}
    files = []
    for f in after.files:
        b = was.get((f.kind, f.name))
        if b is None:
            continue
        reads = _delta(f.reads, b.reads, f"reads of {f.name}", why)
        read_ms = _delta(f.read_cs * 10.0, b.read_cs * 10.0, f"read time of {f.name}", why)
        blocks = _delta(f.blocks_read, b.blocks_read, f"blocks read of {f.name}", why)
        written = _delta(f.blocks_written, b.blocks_written, f"blocks written of {f.name}", why)
        files.append(
            {
                "name": f.name,
                "tablespace": f.tablespace,
                "kind": f.kind,
                "reads": reads,
                "writes": _delta(f.writes, b.writes, f"writes of {f.name}", why),
                "read_bytes": None if blocks is None else blocks * f.block_size,
                "write_bytes": None if written is None else written * f.block_size,
                "read_ms": read_ms,
                "mean_read_ms": read_ms / reads if reads and read_ms is not None else None,
            }
        )
    stats = {
        name: _delta(after.stats[name], before.stats[name], name, why)
        for name in SYSSTATS
        if name in after.stats and name in before.stats
    }
    events = {}
    for name in EVENTS:
        if name in after.events and name in before.events:
            waits = _delta(after.events[name][0], before.events[name][0], name, why)
            micro = _delta(after.events[name][1], before.events[name][1], f"{name} time", why)
            events[name] = window_wait(waits, None if micro is None else micro / 1000.0)
    return {"files": files, "stats": stats, "events": events, "why_null": why}


RATES = {  # the window's named rates: v$sysstat statistic over the window per second
    "user commits/s": "user commits",
    "redo bytes/s": "redo size",
    "read I/O requests/s": "physical read total IO requests",
    "write I/O requests/s": "physical write total IO requests",
}


def window_figures(before: Edge | None, after: Edge | None) -> dict[str, Any]:
    """The window's figures in the engines' neutral shape (engines/window.py): the wait
    events' waits, wait time and mean wait, and RATES; each Edge reads a Snapshot of
    v$sysstat and v$system_event."""
    why = unread(before, after)
    if why is not None:
        return failed(why)
    assert before is not None and after is not None
    found = window(before.reading, after.reading)
    counts = {rate: found["stats"].get(stat) for rate, stat in RATES.items()}
    missing = {
        rate: f"v$sysstat has no '{stat}' on this server"
        for rate, stat in RATES.items()
        if stat not in after.reading.stats or stat not in before.reading.stats
    }
    waits, went_back = {}, {}
    for event in EVENTS:  # v$system_event lists an event once it was first waited for
        w0, micro0 = before.reading.events.get(event, (0.0, 0.0))
        w1, micro1 = after.reading.events.get(event, (0.0, 0.0))
        if w1 < w0 or micro1 < micro0:
            waits[event] = window_wait(None, None)
            went_back[event] = "its counters went back in the window (the instance restarted?)"
        else:
            waits[event] = window_wait(w1 - w0, (micro1 - micro0) / 1000.0)
    why = {r: found["why_null"][s] for r, s in RATES.items() if s in found["why_null"]}
    return figures(before, after, waits, counts, None, why | missing | went_back)


def object_io(files: Iterable[FileStat], spaces: Mapping[str, str] | None = None) -> list[ObjectIO]:
    """Per file, cumulative, for `dbstor advise`: reads, writes, bytes (blocks times the
    file's block size), read and write time in ms (hundredths of a second times ten).
    `spaces` (tablespace -> role), when given, keeps only those tablespaces' files."""
    out = []
    for f in files:
        if spaces is not None and f.tablespace.upper() not in spaces:
            continue
        out.append(
            ObjectIO(
                name=f.name,
                kind=f.kind,
                size_bytes=f.size_bytes,
                reads=f.reads,
                writes=f.writes,
                read_bytes=f.blocks_read * f.block_size,
                write_bytes=f.blocks_written * f.block_size,
                read_stall_ms=f.read_cs * 10.0,
                write_stall_ms=f.write_cs * 10.0,
            )
        )
    return out


# ?awr=on: a snapshot at each window's edge, so a DBA can run awrrpt.sql between them
AWR_SNAPSHOT = "BEGIN :snap := DBMS_WORKLOAD_REPOSITORY.CREATE_SNAPSHOT(); END;"
AWR_NEEDS = "EXECUTE on DBMS_WORKLOAD_REPOSITORY, and the Diagnostics Pack licence"


def awr_pair(edges: list[int | str | None]) -> dict[str, Any]:
    """The window's AWR snapshots: both ids and how to read the report between them, or
    why there is none."""
    ids = [e for e in edges if isinstance(e, int)]
    if len(ids) == 2:
        return {
            "begin_snap_id": ids[0],
            "end_snap_id": ids[1],
            "report": f"@?/rdbms/admin/awrrpt.sql with begin_snap {ids[0]}, end_snap {ids[1]}",
        }
    why = next((e for e in edges if isinstance(e, str)), "a snapshot is missing")
    return {"begin_snap_id": None, "end_snap_id": None, "why": f"no AWR snapshot: {why}"}
