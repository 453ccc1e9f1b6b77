"""CSV exports as tables: header names matched without regard to case, spaces or
underscores, numbers checked with the file and line named, one object per name."""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbstor.analysis.placement.model import DbObject
from dbstor.errors import UserError
from dbstor.userfiles import TABLE_BYTES, read_bytes


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
        text = read_bytes(path, "a CSV file", TABLE_BYTES).decode("utf-8-sig")
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
    columns: dict[str, str] = {}
    for number, name in enumerate(header, start=1):
        key = _norm(name)
        if key in columns:  # one copy would be used and the other dropped without a word
            raise UserError(
                f"{path}: the header has {columns[key]!r} and {name.strip()!r} (column "
                f"{number}), read as the same column: keep one, or rename the other"
            )
        if key:
            columns[key] = name.strip()
    keys = [_norm(h) for h in header]
    rows = []
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        rows.append((number, {k: c.strip() for k, c in zip(keys, cells, strict=False) if k}))
    return Table(path, columns, rows)


MAX_VALUE = 2.0**63  # the counters are 64-bit integers in every engine


def number(table: Table, line: int, key: str, text: str | None) -> float | None:
    """A counter, size or time from one cell: None when empty or NULL; a UserError naming
    the file, line and column for text, a negative, an infinite or an absurd value."""
    if text is None or text.strip().upper() in ("", "NULL", "NONE", "NAN"):
        return None
    cleaned = text.replace(",", "").replace("_", "").replace(" ", "")
    where = f"{table.path} line {line}: {table.columns[key]}"
    try:
        value = float(cleaned)
    except ValueError:
        raise UserError(
            f"{where} {_cell(text)} is not a number; "
            "export full numbers (no truncated or formatted cells)"
        ) from None
    if not math.isfinite(value) or value >= MAX_VALUE:
        raise UserError(
            f"{where} {_cell(text)} is not a finite number below 2^63; export the raw counter"
        )
    if value < 0:
        raise UserError(
            f"{where} is {_cell(text)}: counters, sizes and times are never negative; "
            "export the raw values (no differences or offsets)"
        )
    return value


def _cell(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def require(table: Table, required: dict[str, tuple[str, ...]], what: str) -> None:
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


def add(objects: dict[str, DbObject], obj: DbObject) -> None:
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
