"""MariaDB's and MySQL's statistics: InnoDB's buffer pool counters and per-file I/O from
performance_schema.file_summary_by_instance (timers in picoseconds)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from dbstor.engines.base import MARKER_TABLE, ObjectIO
from dbstor.engines.probes import CounterQuery

COUNTERS = (
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_buffer_pool_pages_flushed",
)
FILE_STATS_SQL = (
    "SELECT FILE_NAME, EVENT_NAME, COUNT_READ, COUNT_WRITE, SUM_NUMBER_OF_BYTES_READ,"
    " SUM_NUMBER_OF_BYTES_WRITE, SUM_TIMER_READ, SUM_TIMER_WRITE"
    " FROM performance_schema.file_summary_by_instance WHERE EVENT_NAME IN"
    " ('wait/io/file/innodb/innodb_data_file', 'wait/io/file/innodb/innodb_log_file')"
)
SIZES_SQL = (
    "SELECT TABLE_NAME, coalesce(DATA_LENGTH, 0) + coalesce(INDEX_LENGTH, 0)"
    " FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME <> %s"
)
_NAMES = ", ".join(f"'{c}'" for c in COUNTERS)
COUNTERS_SQL = f"SHOW GLOBAL STATUS WHERE Variable_name IN ({_NAMES})"
PS_SQL = "SELECT @@performance_schema"
PS_ON = "performance_schema=ON in the server's my.cnf (a restart)"


def _ps_off(rows: Sequence[Sequence[Any]]) -> str | None:
    if rows and int(rows[0][0]):
        return None
    return f"performance_schema is OFF: per-file I/O (dbstor advise) is missing; set {PS_ON}"


def _no_files(rows: Sequence[Sequence[Any]]) -> str | None:
    if rows:
        return None
    return (
        "no InnoDB file I/O recorded: performance_schema is off or its file instruments "
        f"are: set {PS_ON} and performance-schema-instrument='wait/io/file/innodb/%=ON'"
    )


BUFFER = CounterQuery(
    "InnoDB buffer pool: page requests, misses, pages flushed (SHOW GLOBAL STATUS)",
    COUNTERS_SQL,
    "any user that can connect",
)
PERFORMANCE_SCHEMA = CounterQuery(
    "whether performance_schema is on (per-file I/O)", PS_SQL, PS_ON, verdict=_ps_off
)
FILES = CounterQuery(
    "per-file reads, writes, bytes and stall (performance_schema.file_summary_by_instance;"
    " dbstor advise)",
    FILE_STATS_SQL,
    f"SELECT on performance_schema (GRANT SELECT ON performance_schema.* TO the user) and {PS_ON}",
    verdict=_no_files,
)


def sizes_query(database: str) -> CounterQuery:
    """Table sizes of dbstor's database (information_schema), as object_io() runs it."""
    return CounterQuery(
        "table sizes (information_schema.TABLES)",
        SIZES_SQL,
        "any user with a privilege on dbstor's database",
        (database, MARKER_TABLE),
    )


def counter_queries(database: str) -> list[CounterQuery]:
    """Every query counters() and object_io() run, in the order they run them."""
    return [BUFFER, sizes_query(database), PERFORMANCE_SCHEMA, FILES]


def file_objects(
    rows: Iterable[Sequence[Any]],
    sizes: dict[str, int],
    database: str,
    datadir: Path | None,
    with_log: bool,
) -> list[ObjectIO]:
    """FILE_STATS_SQL rows as ObjectIO: one per .ibd file of `database` (a table with its
    indexes) and, when `with_log`, one per redo log file. A file's size is read from disk
    (relative names under `datadir`), else taken from `sizes` by table name."""
    out = []
    for file, event, reads, writes, rbytes, wbytes, rtime, wtime in rows:
        path = Path(str(file))
        if str(event).endswith("log_file") and with_log:
            kind, name = "log", path.name
        elif path.suffix == ".ibd" and path.parent.name == database and path.stem != MARKER_TABLE:
            kind, name = "table", path.stem.split("#")[0]
        else:
            continue
        size = sizes.get(name)
        where = path if path.is_absolute() else (datadir / path if datadir else None)
        with contextlib.suppress(OSError):
            size = (where or path).stat().st_size
        out.append(
            ObjectIO(
                name=name,
                kind=kind,
                size_bytes=size,
                reads=float(reads),
                writes=float(writes),
                read_bytes=float(rbytes),
                write_bytes=float(wbytes),
                read_stall_ms=float(rtime) / 1e9,
                write_stall_ms=float(wtime) / 1e9,
                path=str(where) if where else None,
            )
        )
    return sorted(out, key=lambda o: (o.kind, o.name))
