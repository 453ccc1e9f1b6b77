"""Per-object I/O statistics from files: SQL Server and Oracle CSV exports, dbstor runs.

SQL Server: sys.dm_io_virtual_file_stats (or fn_virtualfilestats, whose older column
names are accepted too) joined with sys.master_files for names, types and sizes.
Oracle: v$filestat joined with v$datafile / dba_data_files, or DBA_HIST_SEG_STAT joined
with DBA_HIST_SEG_STAT_OBJ. Header names are matched without regard to case, spaces or
underscores; rows with the same name in one snapshot (RAC instances) are added up.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.analysis.placement.csvtable import add, guess_kind, number, read_table, require
from dbstor.analysis.placement.model import DbObject, Snapshot, delta
from dbstor.analysis.placement.oracle import parse_oracle
from dbstor.errors import UserError
from dbstor.userfiles import RESULTS_BYTES, read_bytes

PAGE = 8192  # SQL Server page: sys.master_files.size and sysaltfiles.size count these


# --- SQL Server ------------------------------------------------------------------------

SQLSERVER_COLUMNS = {
    "name": ("name", "logical_name", "file_name", "FileName", "physical_name", "FilePath"),
    "reads": ("num_of_reads", "NumberReads", "reads"),
    "writes": ("num_of_writes", "NumberWrites", "writes"),
    "size": ("size_on_disk_bytes", "BytesOnDisk", "size_bytes", "size", "FileSize", "size_mb"),
}
_SQL_OPTIONAL = {
    "bytes_read": ("num_of_bytes_read", "BytesRead", "bytes_read"),
    "bytes_written": ("num_of_bytes_written", "BytesWritten", "bytes_written"),
    "read_stall_ms": ("io_stall_read_ms", "IoStallReadMS", "read_stall_ms"),
    "write_stall_ms": ("io_stall_write_ms", "IoStallWriteMS", "write_stall_ms"),
    "stall_ms": ("io_stall", "IoStallMS", "stall_ms"),
}
# size columns: bytes, or 8 KiB pages (sys.master_files.size, sysaltfiles.size), or MB
_SIZE_SCALE = {
    "sizeondiskbytes": 1,
    "bytesondisk": 1,
    "sizebytes": 1,
    "size": PAGE,
    "filesize": PAGE,
    "sizemb": 1024 * 1024,
}


def parse_sqlserver(path: Path) -> Snapshot:
    """One snapshot of SQL Server per-file statistics (see the module docstring)."""
    table = read_table(path)
    require(
        table,
        SQLSERVER_COLUMNS,
        "sys.dm_io_virtual_file_stats joined with sys.master_files (name, size)",
    )
    name_keys = [table.pick([a]) for a in SQLSERVER_COLUMNS["name"]]
    name_keys = [k for k in name_keys if k]
    db_key = table.pick(("database_name", "db_name", "dbname", "database"))
    kind_key = table.pick(("type_desc", "kind", "file_type", "type"))
    path_key = table.pick(("physical_name", "FilePath"))
    size_key = table.pick(SQLSERVER_COLUMNS["size"])
    reads_key = table.pick(SQLSERVER_COLUMNS["reads"])
    writes_key = table.pick(SQLSERVER_COLUMNS["writes"])
    optional = {f: table.pick(a) for f, a in _SQL_OPTIONAL.items()}
    databases = {row.get(db_key, "") for _, row in table.rows} if db_key else set()
    objects: dict[str, DbObject] = {}
    for line, row in table.rows:
        name = next((row[k] for k in name_keys if row.get(k)), "")
        if not name:
            raise UserError(
                f"{path} line {line}: the file name is empty; export sys.master_files.name"
            )
        if db_key and len(databases) > 1:
            name = f"{row.get(db_key, '')}.{name}"
        kind = _sqlserver_kind(
            row.get(kind_key, "") if kind_key else "",
            name,
            row.get(path_key, "") if path_key else "",
        )
        values = {f: number(table, line, k, row.get(k)) if k else None for f, k in optional.items()}
        size = number(table, line, size_key, row.get(size_key)) or 0.0
        obj = DbObject(
            name=name,
            kind=kind,
            size_bytes=int(size * _SIZE_SCALE[size_key]),
            reads=int(number(table, line, reads_key, row.get(reads_key)) or 0),
            writes=int(number(table, line, writes_key, row.get(writes_key)) or 0),
            bytes_read=_int_or_none(values["bytes_read"]),
            bytes_written=_int_or_none(values["bytes_written"]),
            read_stall_ms=values["read_stall_ms"],
            write_stall_ms=values["write_stall_ms"],
            stall_ms=values["stall_ms"],
        )
        add(objects, obj)
    return Snapshot(objects, label=str(path))


def _sqlserver_kind(kind: str, name: str, physical: str) -> str:
    kind = kind.strip().lower()
    if kind in ("log", "1"):
        return "log"
    if kind in ("rows", "0", "data"):
        return "temp" if guess_kind(name) == "temp" else "data"
    if kind:
        return kind
    return guess_kind(name, physical)


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


# --- dbstor run folders -----------------------------------------------------------------

RUN_OBJECT_FIELDS = ("name", "kind", "size_bytes", "reads", "writes")


def parse_run(folder: Path) -> list[DbObject]:
    """Per-table I/O a dbstor run saved: results.json engine_stats.objects (interval counts)."""
    path = folder / "results.json"
    if not folder.is_dir() or not path.is_file():
        raise UserError(
            f"{folder}: not a dbstor run folder (no results.json); give RUN_DIR "
            "or one of --sqlserver, --oracle, --postgres"
        )
    try:
        data = json.loads(read_bytes(path, "a results.json", RESULTS_BYTES))
    except (OSError, ValueError, RecursionError) as exc:
        raise UserError(f"{path}: cannot read it as JSON ({exc})") from None
    stats = data.get("engine_stats") if isinstance(data, dict) else None
    objects = stats.get("objects") if isinstance(stats, dict) else None
    if objects is not None and not isinstance(objects, list):
        raise UserError(f"{path} (engine_stats.objects: expected a list of objects)")
    if not objects:
        raise UserError(
            f"{path}: no engine_stats.objects (per-table I/O); this run did not "
            "save per-object statistics, use --sqlserver, --oracle or --postgres"
        )
    if all(
        isinstance(item, dict) and "reads" in item and item["reads"] is None for item in objects
    ):
        engine_table = data.get("engine")
        engine = (isinstance(engine_table, dict) and engine_table.get("title")) or "this engine"
        raise UserError(
            f"{path}: {engine} recorded object sizes but no per-object I/O; run the study on "
            "postgres or mariadb, or use --sqlserver, --oracle or --postgres"
        )
    result = []
    for i, item in enumerate(objects):
        absent = [f for f in RUN_OBJECT_FIELDS if not isinstance(item, dict) or f not in item]
        if absent:
            raise UserError(
                f"{path}: engine_stats.objects[{i}] lacks {', '.join(absent)}; "
                "each object needs name, kind, size_bytes, reads, writes"
            )
        try:
            result.append(
                DbObject(
                    name=str(item["name"]),
                    kind=str(item["kind"]).lower(),
                    size_bytes=int(item["size_bytes"]),
                    reads=int(item["reads"] or 0),  # None: the engine does not count it
                    writes=int(item["writes"] or 0),
                    writes_reason=None
                    if item["writes"] is not None
                    else f"not kept by {engine_name(data)}",
                    read_stall_ms=_opt_float(item.get("read_stall_ms")),
                    write_stall_ms=_opt_float(item.get("write_stall_ms")),
                )
            )
        except (TypeError, ValueError, OverflowError):
            raise UserError(
                f"{path}: engine_stats.objects[{i}] has a non-numeric counter or size"
            ) from None
        obj = result[-1]
        for field in ("size_bytes", "reads", "writes", "read_stall_ms", "write_stall_ms"):
            value = getattr(obj, field)
            if value is not None and not 0 <= value < 2**63:
                raise UserError(
                    f"{path}: engine_stats.objects[{i}].{field} is {value!r}: counters, sizes "
                    "and times are never negative (nor infinite)"
                )
    return result


def engine_name(data: Any) -> str:
    """The engine a run folder's results name ('this engine' when it names none)."""
    engine = data.get("engine") if isinstance(data, dict) else None
    return str((isinstance(engine, dict) and engine.get("title")) or "this engine")


def _opt_float(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(value)
    number = float(value)
    if number != number:
        raise ValueError(value)
    return number


def read_sqlserver(path: Path) -> tuple[list[Snapshot], bool]:
    """One SQL Server export: one snapshot, counted since the counters' reset."""
    return [parse_sqlserver(path)], True


# format (the advise flag's name) -> its reader, named after the reader: read_<format>
READERS: dict[str, Callable[[Path], tuple[list[Snapshot], bool]]] = {
    reader.__name__.removeprefix("read_").removeprefix("parse_"): reader
    for reader in (read_sqlserver, parse_oracle)
}


def load_files(fmt: str, paths: list[Path]) -> tuple[list[DbObject], list[str], str]:
    """Read one or two exports -> (objects, notes, how they were counted)."""
    if len(paths) > 2:
        raise UserError(f"--{fmt}: give one file (counted since reset) or two (before, after)")
    snaps: list[Snapshot] = []
    cumulative = True
    read = READERS[fmt]
    for path in paths:
        found, cumulative = read(path)
        if not cumulative and len(paths) > 1:
            raise UserError(
                f"{path}: *_DELTA columns are already interval counts; give that one file alone"
            )
        snaps.extend(found if len(paths) == 1 else found[-1:])
    if not cumulative:
        return list(snaps[0].objects.values()), [], "interval counts (*_DELTA columns) added up"
    if len(snaps) == 1:
        counted = (
            "one snapshot: counted since the counters were last reset "
            "(instance start); give two snapshots for an interval"
        )
        return list(snaps[0].objects.values()), [], counted
    objects, notes = delta(snaps[0], snaps[1])
    return (
        objects,
        notes,
        f"difference between two snapshots ({snaps[0].label} -> {snaps[1].label})",
    )
