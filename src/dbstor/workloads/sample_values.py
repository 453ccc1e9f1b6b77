"""Sample values in place of the driver's placeholders (?, %s or Oracle's :b1), so that a statement
`dbstor sql` prints can be pasted into the engine's own client: each placeholder takes a
literal of the type of the column it is compared with, added to, or inserted into (the
workload's neutral column types, workloads/tables.py); an IN list counts 1, 2, 3. A
DECIMAL's sample is a decimal literal (10.00, a rate 0.1000), a date and time the dialect's
literal (PostgreSQL, MariaDB and Oracle: TIMESTAMP '2026-01-01 00:00:00'; SQLite and T-SQL:
the ISO text)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.tables import Table

SAMPLE_TIME = 1767225600  # 2026-01-01 00:00 UTC, in the workloads' integer seconds
SAMPLE_MOMENT = datetime(2026, 1, 1)  # the same, for a date-and-time column


def literal(value: Any, dialect: str | None = None) -> str:
    """A SQL literal: NULL, a number, a date and time (the dialect's literal; without a
    dialect ISO text, which SQLite, PostgreSQL, MariaDB and SQL Server all read), or quoted
    text with quotes doubled."""
    if value is None:
        return "NULL"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        iso = value.isoformat(sep=" ", timespec="seconds")
        return registry.get(dialect).time_literal(iso) if dialect else f"'{iso}'"
    return "'" + str(value).replace("'", "''") + "'"


def decimal_sample(precision: int, scale: int) -> str:
    """A DECIMAL(precision, scale) literal that fits: 10.00 for money, 0.1000 for a rate."""
    whole = min(precision - scale, 2)
    if whole == 0:
        return "0." + "1".ljust(scale, "0")
    return ("10" if whole == 2 else "1") + ("." + "0" * scale if scale else "")


def column_types(tables: Sequence[Table]) -> dict[str, str]:
    """column -> its neutral type (without the NULL mark) over a workload's tables."""
    return {c: t.rstrip("?") for table in tables for c, t in table.columns}


def sample_value(
    column: str, types: Mapping[str, str], position: int = 0, dialect: str | None = None
) -> str:
    """A literal for a column by its neutral type (workloads/tables.py); `position` counts
    the values of an IN list. A column not in `types` takes an integer."""
    kind = types.get(column, "int")
    if kind.startswith("str:"):
        text = "BARBARBAR" if column.endswith("_last") else "SAMPLE"
        return literal(text[: int(kind[4:])])
    if kind.startswith("dec:"):
        precision, scale = (int(n) for n in kind[4:].split(":"))
        return decimal_sample(precision, scale)
    if kind == "datetime":
        return literal(SAMPLE_MOMENT, dialect)
    if kind == "ts":
        return str(SAMPLE_TIME)
    if kind == "money":
        return "1000"
    return str(1 + position)


_INSERT = re.compile(r"INSERT INTO \w+ \(([^)]*)\) VALUES \(([^)]*)\)", re.I)
_COMPARED = re.compile(r"(\w+)\s*(?:=|<|>|<=|>=|\+|-)\s*$")
_IN_LIST = re.compile(r"(\w+)\s+IN\s*\(([^()]*)$", re.I)
_PLACEHOLDER = re.compile(r"\?|%s|:b\d+\b")  # qmark, format, Oracle's numbered binds


def with_samples(statement: str, types: Mapping[str, str], dialect: str | None = None) -> str:
    """A client-side statement with each placeholder (? or %s) replaced by a sample literal
    of its column's type (a date and time in the dialect's form)."""
    insert = _INSERT.search(statement)
    if insert:
        columns = [c.strip() for c in insert.group(1).split(",")]
        values = [
            sample_value(col, types, 0, dialect) if _PLACEHOLDER.fullmatch(v.strip()) else v.strip()
            for col, v in zip(columns, insert.group(2).split(","), strict=True)
        ]
        return statement[: insert.start(2)] + ", ".join(values) + statement[insert.end(2) :]
    parts = _PLACEHOLDER.split(statement)
    text = parts[0]
    for part in parts[1:]:
        listed = _IN_LIST.search(text)
        if listed:
            count = listed.group(2).count(",")
            text += sample_value(listed.group(1), types, count, dialect) + part
            continue
        compared = _COMPARED.search(text)
        text += sample_value(compared.group(1) if compared else "", types, 0, dialect) + part
    return text
