"""Oracle exports: v$filestat joined with v$datafile / dba_data_files (per file, with
READTIM/WRITETIM in centiseconds), or DBA_HIST_SEG_STAT joined with DBA_HIST_SEG_STAT_OBJ
(per segment: tables, indexes, partitions)."""

from __future__ import annotations

from pathlib import Path

from dbstor.analysis.placement.csvtable import Table, add, number, read_table, require
from dbstor.analysis.placement.model import DbObject, Snapshot
from dbstor.errors import UserError

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
    require(table, FILESTAT_COLUMNS, "v$filestat joined with v$datafile (NAME, BYTES)")
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
            return number(table, line, key, row.get(key)) if key else None

        block = num(bs_key)
        size = num(bytes_key) if bytes_key else (num(blocks_key) or 0) * (block or 0)
        name = row.get(name_key) or f"file#{row.get(table.pick(('FILE#',)) or '', '?')}"
        space = (row.get(ts_key) or "").upper() if ts_key else ""
        kind = "temp" if "TEMP" in space else "undo" if "UNDO" in space else "data"
        rtim, wtim = num(keys["READTIM"]), num(keys["WRITETIM"])  # centiseconds
        blkrd, blkwr = num(keys["PHYBLKRD"]), num(keys["PHYBLKWRT"])
        add(
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
    require(
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
        snap = number(table, line, snap_key, row.get(snap_key)) if snap_key else 0.0
        kind = (row.get(type_key) or "segment").lower() if type_key else "segment"
        obj = DbObject(
            name=name,
            kind=kind,
            size_bytes=int(number(table, line, size_key, row.get(size_key)) or 0),
            reads=int(number(table, line, reads_key, row.get(reads_key)) or 0),
            writes=int(number(table, line, writes_key, row.get(writes_key)) or 0),
        )
        add(by_snap.setdefault((snap or 0.0) if cumulative else 0.0, {}), obj)
    snaps = [Snapshot(by_snap[k], label=f"{table.path} snap {k:g}") for k in sorted(by_snap)]
    if cumulative and len(snaps) > 2:
        snaps = [snaps[0], snaps[-1]]
    return snaps, cumulative
