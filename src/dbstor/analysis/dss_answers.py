"""Comparing one query's answers from two engines: same rows, numbers within a tolerance.

Engines return the same answer in different types: PostgreSQL's numeric (Decimal) and
blank-padded char(N), DuckDB's DECIMAL and DATE, SQLite's REAL and ISO-text dates. Values
are made comparable (numbers as floats, dates as ISO text, text without trailing blanks);
rows are compared in the order returned, and, when that differs (ties in ORDER BY may come
out in either order), as sorted lists.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

Row = tuple[Any, ...]


def normalize(value: Any) -> Any:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float | Decimal):
        return float(value)
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str):
        return value.rstrip()
    return value


def _same_value(a: Any, b: Any, rel: float, abs_tol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)
    return a == b


def _sort_key(row: Row) -> tuple[Any, ...]:
    """Numbers rounded to 6 significant digits so near-equal values sort alike."""
    return tuple(
        (0, float(f"{v:.6g}")) if isinstance(v, float) else (1, "" if v is None else str(v))
        for v in row
    )


def difference(
    a: Sequence[Sequence[Any]],
    b: Sequence[Sequence[Any]],
    rel: float = 1e-6,
    abs_tol: float = 1e-6,
) -> str | None:
    """None when the two answers are the same, else what differs first."""
    left = [tuple(normalize(v) for v in row) for row in a]
    right = [tuple(normalize(v) for v in row) for row in b]
    if len(left) != len(right):
        return f"{len(left)} rows against {len(right)}"
    if _first_mismatch(left, right, rel, abs_tol) is None:
        return None
    left, right = sorted(left, key=_sort_key), sorted(right, key=_sort_key)
    mismatch = _first_mismatch(left, right, rel, abs_tol)
    if mismatch is None:
        return None
    i = mismatch
    return f"row {i} (sorted) differs: {left[i]!r} against {right[i]!r}"


def _first_mismatch(left: list[Row], right: list[Row], rel: float, abs_tol: float) -> int | None:
    for i, (x, y) in enumerate(zip(left, right, strict=True)):
        if len(x) != len(y) or not all(
            _same_value(p, q, rel, abs_tol) for p, q in zip(x, y, strict=True)
        ):
            return i
    return None
