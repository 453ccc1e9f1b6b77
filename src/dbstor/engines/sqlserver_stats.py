"""SQL Server's statistics: the queries behind counters(), object_io() and `dbstor engines
--check`, and the arithmetic on their rows (pure functions, tested on recorded output).

- per file (h6080's Figure 5): sys.dm_io_virtual_file_stats joined with sys.master_files;
  reads, writes, bytes and stall (ms) are cumulative since the database came online, so a
  window's figures are the difference of two readings;
- waits: sys.dm_os_wait_stats for PAGEIOLATCH_* (data pages read), WRITELOG (log flushes)
  and IO_COMPLETION, cumulative since start or DBCC SQLPERF(..., CLEAR);
- sys.dm_os_performance_counters: a "/sec" counter (cntr_type 272696576,
  PERF_COUNTER_BULK_COUNT) is a cumulative raw count to difference over the window; a
  ratio (537003264, PERF_LARGE_RAW_FRACTION) is divided by its "base" row (1073939712);
  an average (1073874176, PERF_AVERAGE_BULK) is the difference of the value over the
  difference of its base.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dbstor.engines.base import ObjectIO
from dbstor.engines.probes import CounterQuery
from dbstor.engines.window import Edge, failed, figures, unread

BULK_COUNT = 272696576  # cumulative count: difference over the window
RAW_FRACTION = 537003264  # a ratio's numerator
RAW_BASE = 1073939712  # its denominator ("... base")
AVERAGE_BULK = 1073874176  # an average: delta value / delta base
RAW_VALUE = 65792  # the value itself

NEEDS = (
    "VIEW SERVER STATE (SQL Server 2019 and older) or VIEW SERVER PERFORMANCE STATE "
    "(SQL Server 2022 and later)"
)


def file_stats_sql(database: str) -> str:
    """Each file of `database` (dbstor's own: dbstor or dbstor_<n>, written in as a literal
    so the query runs as it is, parameters or none)."""
    return (
        "SELECT f.name, f.type_desc, f.physical_name, s.num_of_reads, s.num_of_writes,"
        " s.num_of_bytes_read, s.num_of_bytes_written, s.io_stall_read_ms, s.io_stall_write_ms,"
        f" s.size_on_disk_bytes FROM sys.dm_io_virtual_file_stats(DB_ID(N'{database}'), NULL) AS s"
        " JOIN sys.master_files AS f ON f.database_id = s.database_id AND f.file_id = s.file_id"
        " ORDER BY f.file_id"
    )


WAIT_TYPES = ("WRITELOG", "IO_COMPLETION")
WAITS_SQL = (
    "SELECT wait_type, waiting_tasks_count, wait_time_ms, signal_wait_time_ms"
    " FROM sys.dm_os_wait_stats WHERE wait_type LIKE 'PAGEIOLATCH%'"
    f" OR wait_type IN ({', '.join(repr(w) for w in WAIT_TYPES)})"
)
PERF_COUNTERS = (
    "Batch Requests/sec",
    "Page lookups/sec",
    "Page reads/sec",
    "Page writes/sec",
    "Buffer cache hit ratio",
    "Buffer cache hit ratio base",
)
PERF_SQL = (
    "SELECT RTRIM(object_name), RTRIM(counter_name), RTRIM(instance_name), cntr_value,"
    " cntr_type FROM sys.dm_os_performance_counters"
    " WHERE (object_name LIKE '%:Buffer Manager%' OR object_name LIKE '%:SQL Statistics%')"
    f" AND counter_name IN ({', '.join(repr(c) for c in PERF_COUNTERS)})"
)
VERSION_SQL = "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)), @@VERSION"


def counter_queries(database: str) -> list[CounterQuery]:
    """Every query the counters run on `database`, with the permission each needs."""
    return [
        CounterQuery("per-file I/O", file_stats_sql(database), NEEDS),
        CounterQuery("wait statistics", WAITS_SQL, NEEDS),
        CounterQuery("buffer and batch counters", PERF_SQL, NEEDS),
    ]


# --- performance counters ------------------------------------------------------------------


def perf_values(rows: Iterable[Sequence[Any]]) -> dict[str, tuple[float, int]]:
    """counter name -> (cntr_value, cntr_type) of PERF_SQL's rows (object_name, counter_name,
    instance_name, cntr_value, cntr_type); names trimmed (the view pads them to 128)."""
    return {str(row[1]).strip(): (float(row[3]), int(row[4])) for row in rows}


def ratio(values: Mapping[str, tuple[float, int]], name: str) -> float | None:
    """A PERF_LARGE_RAW_FRACTION counter over its base row, as a fraction (0..1); None
    without both rows or with a zero base."""
    top, base = values.get(name), values.get(base_of(name, values) or "")
    if top is None or base is None or top[1] != RAW_FRACTION or base[1] != RAW_BASE:
        return None
    return top[0] / base[0] if base[0] else None


def base_of(name: str, values: Mapping[str, Any]) -> str | None:
    """The base row of an average or ratio counter: its name (without a unit in
    parentheses) followed by "base", in any case: 'Average Latch Wait Time (ms)' ->
    'Average Latch Wait Time Base'."""
    stem = name.split(" (")[0].lower()
    return next((n for n in values if n.lower() in (f"{stem} base", f"{name.lower()} base")), None)


def window(
    before: Mapping[str, tuple[float, int]], after: Mapping[str, tuple[float, int]]
) -> dict[str, float | None]:
    """Each cumulative ("/sec") counter's difference over the window; an average counter's
    difference over its base's difference; a counter that went back (the server
    restarted) is None, never negative."""
    out: dict[str, float | None] = {}
    for name, (value, kind) in after.items():
        if name not in before or kind not in (BULK_COUNT, AVERAGE_BULK):
            continue
        delta = value - before[name][0]
        if kind == AVERAGE_BULK:
            base = base_of(name, after)
            if base is None or base not in before:
                continue
            span = after[base][0] - before[base][0]
            out[name] = delta / span if span > 0 and delta >= 0 else None
        else:
            out[name] = delta if delta >= 0 else None
    return out


def buffer_counters(
    values: Mapping[str, tuple[float, int]],
) -> tuple[float | None, float | None, float | None]:
    """Cumulative (page lookups, page reads, page writes) of the buffer manager."""
    found = (values.get(c) for c in ("Page lookups/sec", "Page reads/sec", "Page writes/sec"))
    return tuple(v[0] if v else None for v in found)  # type: ignore[return-value]


# --- waits and files -------------------------------------------------------------------


def waits(rows: Iterable[Sequence[Any]]) -> dict[str, tuple[float, float]]:
    """wait type -> (waiting tasks, wait ms) of WAITS_SQL's rows."""
    return {str(r[0]).strip(): (float(r[1]), float(r[2])) for r in rows}


def waits_window(
    before: Mapping[str, tuple[float, float]], after: Mapping[str, tuple[float, float]]
) -> dict[str, dict[str, float | None]]:
    """Per wait type over the window: waits, wait ms and the mean wait ms (None when no
    wait ended, or the counters were cleared in the window)."""
    out: dict[str, dict[str, float | None]] = {}
    for name, (count, ms) in after.items():
        c0, m0 = before.get(name, (0.0, 0.0))
        dc, dm = count - c0, ms - m0
        if dc < 0 or dm < 0:
            out[name] = {"waits": None, "wait_ms": None, "mean_ms": None}
            continue
        out[name] = {"waits": dc, "wait_ms": dm, "mean_ms": dm / dc if dc else None}
    return out


def file_objects(rows: Iterable[Sequence[Any]]) -> list[ObjectIO]:
    """file_stats_sql() rows as ObjectIO: one per data file (kind "file": a filegroup's
    file holds tables and indexes mixed) and one per log file (kind "log")."""
    out = []
    for name, type_desc, _path, reads, writes, rbytes, wbytes, rstall, wstall, size in rows:
        out.append(
            ObjectIO(
                name=str(name),
                kind="log" if str(type_desc).upper() == "LOG" else "file",
                size_bytes=int(size) if size is not None else None,
                reads=float(reads),
                writes=float(writes),
                read_bytes=float(rbytes),
                write_bytes=float(wbytes),
                read_stall_ms=float(rstall),
                write_stall_ms=float(wstall),
            )
        )
    return out


def objects_window(before: list[ObjectIO], after: list[ObjectIO]) -> list[ObjectIO]:
    """Each file's I/O over the window (after - before, by file name); a counter that went
    back is None. A file new in the window counts from zero."""
    old = {o.name: o for o in before}
    out = []
    fields = ("reads", "writes", "read_bytes", "write_bytes", "read_stall_ms", "write_stall_ms")
    for obj in after:
        prior = old.get(obj.name)
        values: dict[str, float | None] = {}
        for f in fields:
            a, b = getattr(obj, f), getattr(prior, f) if prior else 0.0
            values[f] = None if a is None or b is None or a < b else a - b
        out.append(ObjectIO(name=obj.name, kind=obj.kind, size_bytes=obj.size_bytes, **values))
    return out


# --- the engine's own window figures ---------------------------------------------------------


def window_figures(before: Edge | None, after: Edge | None) -> dict[str, Any]:
    """The window's figures in the engines' neutral shape (engines/window.py): each wait
    type's waits, wait ms and mean; Batch Requests/sec over the window per second; the
    buffer cache hit ratio as SQL Server computes it, read at the window's end. Each Edge
    reads (perf_values(PERF_SQL rows), waits(WAITS_SQL rows))."""
    why = unread(before, after)
    if why is not None:
        return failed(why)
    assert before is not None and after is not None
    (perf0, waits0), (perf1, waits1) = before.reading, after.reading
    found = waits_window(waits0, waits1)
    nulls = {
        name: "its counters went back in the window (cleared?)"
        for name, row in found.items()
        if row["waits"] is None
    }
    batches = window(perf0, perf1).get("Batch Requests/sec")
    if batches is None:
        nulls["batch requests/s"] = "Batch Requests/sec was not read at both edges or went back"
    hit = ratio(perf1, "Buffer cache hit ratio")
    if hit is None:
        nulls["buffer cache hit ratio"] = "Buffer cache hit ratio or its base was not read"
    return figures(
        before,
        after,
        dict(sorted(found.items())),
        {"batch requests/s": batches},
        {"buffer cache hit ratio": hit},
        nulls,
    )
