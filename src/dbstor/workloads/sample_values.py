"""Sample values in place of the driver's placeholders (?, %s or Oracle's :b1), so that a statement
`dbstor sql` prints can be pasted into the engine's own client: each placeholder takes a
literal of the type of the column it is compared with, added to, or inserted into (the
workload's neutral column types, workloads/tables.py); an IN list counts 1, 2, 3."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from dbstor.workloads.tables import Table

SAMPLE_TIME = 1767225600  # 2026-01-01 00:00 UTC, in the workloads' integer seconds


def literal(value: Any) -> str:
    """A SQL literal: NULL, a number, or quoted text with quotes doubled."""
    if value is None:
        return "NULL"
    if isinstance(value, int | float):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def column_types(tables: Sequence[Table]) -> dict[str, str]:
    """column -> its neutral type (without the NULL mark) over a workload's tables."""
    return {c: t.rstrip("?") for table in tables for c, t in table.columns}


def sample_value(column: str, types: Mapping[str, str], position: int = 0) -> str:
    """A literal for a column by its neutral type (workloads/tables.py); `position` counts
    the values of an IN list. A column not in `types` takes an integer."""
    kind = types.get(column, "int")
    if kind.startswith("str:"):
        text = "BARBARBAR" if column.endswith("_last") else "SAMPLE"
        return literal(text[: int(kind[4:])])
    if kind == "ts":
        return str(SAMPLE_TIME)
    if kind == "money":
        return "1000"
    return str(1 + position)


_INSERT = re.compile(r"INSERT INTO \w+ \(([^)]*)\) VALUES \(([^)]*)\)", re.I)
_COMPARED = re.compile(r"(\w+)\s*(?:=|<|>|<=|>=|\+|-)\s*$")
_IN_LIST = re.compile(r"(\w+)\s+IN\s*\(([^()]*)$", re.I)
_PLACEHOLDER = re.compile(r"\?|%s|:b\d+\b")  # qmark, format, Oracle's numbered binds


def with_samples(statement: str, types: Mapping[str, str]) -> str:
    """A client-side statement with each placeholder (? or %s) replaced by a sample literal
    of its column's type."""
    insert = _INSERT.search(statement)
    if insert:
        columns = [c.strip() for c in insert.group(1).split(",")]
        values = [
            sample_value(col, types) if _PLACEHOLDER.fullmatch(v.strip()) else v.strip()
            for col, v in zip(columns, insert.group(2).split(","), strict=True)
        ]
        return statement[: insert.start(2)] + ", ".join(values) + statement[insert.end(2) :]
    parts = _PLACEHOLDER.split(statement)
    text = parts[0]
    for part in parts[1:]:
        listed = _IN_LIST.search(text)
        if listed:
            text += sample_value(listed.group(1), types, listed.group(2).count(",")) + part
            continue
        compared = _COMPARED.search(text)
        text += sample_value(compared.group(1) if compared else "", types) + part
    return text
