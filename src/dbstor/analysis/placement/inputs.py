"""Per-object I/O statistics from files: SQL Server and Oracle CSV exports, dbstor runs.

SQL Server: sys.dm_io_virtual_file_stats (or fn_virtualfilestats, whose older column
names are accepted too) joined with sys.master_files for names, types and sizes.
Oracle: v$filestat joined with v$datafile / dba_data_files, or DBA_HIST_SEG_STAT joined
with DBA_HIST_SEG_STAT_OBJ. Header names are matched without regard to case, spaces or
underscores; rows with the same name in one snapshot (RAC instances) are added up.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbstor.analysis.placement.model import DbObject, Snapshot, delta
from dbstor.errors import UserError

PAGE = 8192  # SQL Server page: sys.master_files.size and sysaltfiles.size count these


def _norm(header: str) -> str:
    return re.sub(r"[^a-z0-9#]", "", header.strip().lower().lstrip("\ufeff"))


@dataclass
class Table:
    """A CSV file: normalised header -> column, rows as dicts of raw strings."""

    path: Path
    columns: dict[str, str]  # normalised -> as written
    rows: list[tuple[int, dict[str, str]]]  # (line number, normalised -> text)

    def pick(self, aliases: Iterable[str]) -> str | None:
        """The first alias present in the header (normalised), or None."""
        for alias in aliases:
            if _norm(alias) in self.columns:
                return _norm(alias)
        return None


def read_table(path: Path) -> Table:
    """Read a CSV (comma, semicolon, tab or pipe separated) with a header line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; give the CSV export of the statistics") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read it ({exc}); give a UTF-8 CSV file") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise UserError(f"{path}: empty file; export the statistics with a header line")
    try:
        dialect: Any = csv.Sniffer().sniff(lines[0], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(lines, dialect)
    header = next(reader)
    columns = {_norm(h): h.strip() for h in header if _norm(h)}
    keys = [_norm(h) for h in header]
    rows = []
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        rows.append((number, {k: c.strip() for k, c in zip(keys, cells, strict=False) if k}))
    return Table(path, columns, rows)


def _number(table: Table, line: int, key: str, text: str | None) -> float | None:
    if text is None or text.strip().upper() in ("", "NULL", "NONE", "NAN"):
        return None
    cleaned = text.replace(",", "").replace("_", "").replace(" ", "")
    try:
        return float(cleaned)
    except ValueError:
        raise UserError(
            f"{table.path} line {line}: {table.columns[key]} {text!r} is not a number; "
            "export full numbers (no truncated or formatted cells)"
        ) from None


def _missing(table: Table, required: dict[str, tuple[str, ...]], what: str) -> None:
    absent = [
        f"{label} ({' or '.join(aliases)})"
        for label, aliases in required.items()
        if table.pick(aliases) is None
    ]
    if absent:
        raise UserError(
            f"{table.path}: missing required column(s) {'; '.join(absent)}; "
            f"export {what} (see docs/advise.md)"
        )


def _add(objects: dict[str, DbObject], obj: DbObject) -> None:
    """Keep one object per name: counters added up, the largest size kept."""
    old = objects.get(obj.name)
    if old is None:
        objects[obj.name] = obj
        return
    for counter in (
        "reads",
        "writes",
        "bytes_read",
        "bytes_written",
        "read_stall_ms",
        "write_stall_ms",
        "stall_ms",
        "cache_hits",
    ):
        a, b = getattr(old, counter), getattr(obj, counter)
        setattr(old, counter, None if a is None and b is None else (a or 0) + (b or 0))
    old.size_bytes = max(old.size_bytes, obj.size_bytes)


_LOG_NAME = re.compile(r"(?i)((^|[^a-z])(log|redo|wal|xlog)([^a-z]|$))|templog|\.ldf$")


def guess_kind(name: str, path: str = "") -> str:
    """'log' for names that look like transaction logs, 'temp' for tempdb, else 'data'."""
    if _LOG_NAME.search(name) or path.lower().endswith(".ldf"):
        return "log"
    if re.search(r"(?i)temp", name):
        return "temp"
    return "data"


# --- SQL Server ------------------------------------------------------------------------

SQLSERVER_COLUMNS = {
    "name": ("name", "logical_name", "file_name", "FileName", "physical_name", "FilePath"),
    "reads": ("num_of_reads", "NumberReads"),
    "writes": ("num_of_writes", "NumberWrites"),
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
    _missing(
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
        values = {
            f: _number(table, line, k, row.get(k)) if k else None for f, k in optional.items()
        }
        size = _number(table, line, size_key, row.get(size_key)) or 0.0
        obj = DbObject(
            name=name,
            kind=kind,
            size_bytes=int(size * _SIZE_SCALE[size_key]),
            reads=int(_number(table, line, reads_key, row.get(reads_key)) or 0),
            writes=int(_number(table, line, writes_key, row.get(writes_key)) or 0),
            bytes_read=_int_or_none(values["bytes_read"]),
            bytes_written=_int_or_none(values["bytes_written"]),
            read_stall_ms=values["read_stall_ms"],
            write_stall_ms=values["write_stall_ms"],
            stall_ms=values["stall_ms"],
        )
        _add(objects, obj)
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


# --- Oracle --------------------------------------------------------------------------

FILESTAT_COLUMNS = {
    "name": ("NAME", "FILE_NAME", "FILE#"),
    "reads": ("PHYRDS",),
    "writes": ("PHYWRTS",),
    "size": ("BYTES", "BLOCKS"),
}
SEGSTAT_COLUMNS = {
    "name": ("OBJECT_NAME",),
    "reads": ("PHYSICAL_READS_TOTAL", "PHYSICAL_READS_DELTA"),
    "writes": ("PHYSICAL_WRITES_TOTAL", "PHYSICAL_WRITES_DELTA"),
    "size": ("SPACE_ALLOCATED_TOTAL", "BYTES", "SPACE_USED_TOTAL"),
}


def parse_oracle(path: Path) -> tuple[list[Snapshot], bool]:
    """Oracle v$filestat or DBA_HIST_SEG_STAT export -> (snapshots in time order, cumulative).

    A DBA_HIST_SEG_STAT export with *_TOTAL columns over several SNAP_IDs gives its
    first and last snapshot; one with only *_DELTA columns gives one non-cumulative one.
    """
    table = read_table(path)
    if table.pick(("PHYRDS",)):
        return [_filestat(table)], True
    if table.pick(("PHYSICAL_READS_TOTAL", "PHYSICAL_READS_DELTA")):
        return _segstat(table)
    raise UserError(
        f"{path}: missing required column(s) PHYRDS (v$filestat) or PHYSICAL_READS_TOTAL "
        "(DBA_HIST_SEG_STAT); export one of those views (see docs/advise.md)"
    )


def _filestat(table: Table) -> Snapshot:
    _missing(table, FILESTAT_COLUMNS, "v$filestat joined with v$datafile (NAME, BYTES)")
    name_key = table.pick(FILESTAT_COLUMNS["name"])
    bytes_key, blocks_key = table.pick(("BYTES",)), table.pick(("BLOCKS",))
    bs_key = table.pick(("BLOCK_SIZE",))
    if bytes_key is None and bs_key is None:
        raise UserError(
            f"{table.path}: missing required column BYTES (or BLOCK_SIZE beside "
            "BLOCKS); export v$datafile.BYTES (see docs/advise.md)"
        )
    ts_key = table.pick(("TABLESPACE_NAME", "TABLESPACE"))
    keys = {
        k: table.pick((k,))
        for k in ("PHYRDS", "PHYWRTS", "PHYBLKRD", "PHYBLKWRT", "READTIM", "WRITETIM")
    }
    objects: dict[str, DbObject] = {}
    for line, row in table.rows:

        def num(key: str | None, line: int = line, row: dict[str, str] = row) -> float | None:
            return _number(table, line, key, row.get(key)) if key else None

        block = num(bs_key)
        size = num(bytes_key) if bytes_key else (num(blocks_key) or 0) * (block or 0)
        name = row.get(name_key) or f"file#{row.get(table.pick(('FILE#',)) or '', '?')}"
        space = (row.get(ts_key) or "").upper() if ts_key else ""
        kind = "temp" if "TEMP" in space else "undo" if "UNDO" in space else "data"
        rtim, wtim = num(keys["READTIM"]), num(keys["WRITETIM"])  # centiseconds
        blkrd, blkwr = num(keys["PHYBLKRD"]), num(keys["PHYBLKWRT"])
        _add(
            objects,
            DbObject(
                name=name,
                kind=kind,
                size_bytes=int(size or 0),
                reads=int(num(keys["PHYRDS"]) or 0),
                writes=int(num(keys["PHYWRTS"]) or 0),
                bytes_read=int(blkrd * block) if blkrd is not None and block else None,
                bytes_written=int(blkwr * block) if blkwr is not None and block else None,
                read_stall_ms=None if rtim is None else rtim * 10.0,
                write_stall_ms=None if wtim is None else wtim * 10.0,
            ),
        )
    return Snapshot(objects, label=str(table.path))


def _segstat(table: Table) -> tuple[list[Snapshot], bool]:
    _missing(
        table,
        SEGSTAT_COLUMNS,
        "DBA_HIST_SEG_STAT joined with DBA_HIST_SEG_STAT_OBJ (OBJECT_NAME, SPACE_ALLOCATED_TOTAL)",
    )
    cumulative = table.pick(("PHYSICAL_READS_TOTAL",)) is not None
    reads_key = table.pick(SEGSTAT_COLUMNS["reads"])
    writes_key = table.pick(SEGSTAT_COLUMNS["writes"])
    size_key = table.pick(SEGSTAT_COLUMNS["size"])
    owner_key, sub_key = table.pick(("OWNER",)), table.pick(("SUBOBJECT_NAME",))
    type_key, snap_key = table.pick(("OBJECT_TYPE",)), table.pick(("SNAP_ID",))
    name_key = table.pick(SEGSTAT_COLUMNS["name"])
    by_snap: dict[float, dict[str, DbObject]] = {}
    for line, row in table.rows:
        parts = [
            row.get(owner_key, "") if owner_key else "",
            row.get(name_key, ""),
            row.get(sub_key, "") if sub_key else "",
        ]
        name = ".".join(p for p in parts if p)
        snap = _number(table, line, snap_key, row.get(snap_key)) if snap_key else 0.0
        kind = (row.get(type_key) or "segment").lower() if type_key else "segment"
        obj = DbObject(
            name=name,
            kind=kind,
            size_bytes=int(_number(table, line, size_key, row.get(size_key)) or 0),
            reads=int(_number(table, line, reads_key, row.get(reads_key)) or 0),
            writes=int(_number(table, line, writes_key, row.get(writes_key)) or 0),
        )
        _add(by_snap.setdefault((snap or 0.0) if cumulative else 0.0, {}), obj)
    snaps = [Snapshot(by_snap[k], label=f"{table.path} snap {k:g}") for k in sorted(by_snap)]
    if cumulative and len(snaps) > 2:
        snaps = [snaps[0], snaps[-1]]
    return snaps, cumulative


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
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: cannot read it as JSON ({exc})") from None
    objects = (data.get("engine_stats") or {}).get("objects") if isinstance(data, dict) else None
    if not objects:
        raise UserError(
            f"{path}: no engine_stats.objects (per-table I/O); this run did not "
            "save per-object statistics, use --sqlserver, --oracle or --postgres"
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
                    reads=int(item["reads"]),
                    writes=int(item["writes"]),
                    read_stall_ms=_opt_float(item.get("read_stall_ms")),
                    write_stall_ms=_opt_float(item.get("write_stall_ms")),
                )
            )
        except (TypeError, ValueError):
            raise UserError(
                f"{path}: engine_stats.objects[{i}] has a non-numeric counter or size"
            ) from None
    return result


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def load_files(fmt: str, paths: list[Path]) -> tuple[list[DbObject], list[str], str]:
    """Read one or two exports -> (objects, notes, how they were counted)."""
    if len(paths) > 2:
        raise UserError(f"--{fmt}: give one file (counted since reset) or two (before, after)")
    snaps: list[Snapshot] = []
    cumulative = True
    for path in paths:
        if fmt == "sqlserver":
            snaps.append(parse_sqlserver(path))
        else:
            found, cumulative = parse_oracle(path)
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
