"""Figures from outside dbstor (Prometheus, the user's PromQL, engine counters, study
files, whose own check is study/values.plain_value) checked where they enter: only finite numbers are figures.

A value that is not finite (NaN, +Inf: a ratio whose denominator was 0), or negative
where a figure cannot be (a latency, a count, a rate), is not a measurement: it becomes
null and the reason is kept beside it, never stored as measured and never left to break
the save of a run whose points finished (results.json is JSON without NaN or Infinity).
"""

from __future__ import annotations

import math
from typing import Any


def figure_problem(value: object, negative_ok: bool = False) -> str | None:
    """Why value is not a usable figure, or None when it is one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{value!r} is not a number"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    if value < 0 and not negative_ok:
        return f"{value:g} is negative, which this figure cannot be"
    return None


def checked_figure(
    value: object, what: str, negative_ok: bool = False
) -> tuple[float | None, str | None]:
    """(value, None) for a usable figure, else (None, the reason naming `what`)."""
    problem = figure_problem(value, negative_ok)
    if problem is None:
        return value, None  # type: ignore[return-value]
    return None, f"{what}: {problem}; stored as null"


def finite_tree(data: Any, where: str = "") -> tuple[Any, list[str]]:
    """data with every NaN or infinity replaced by None, and where each one was (as a path
    like points[2].read_iops), so that a save never fails on a figure from outside."""
    if isinstance(data, float) and not math.isfinite(data):
        return None, [where or "(top)"]
    if isinstance(data, dict):
        out, found = {}, []
        for key, value in data.items():
            out[key], more = finite_tree(value, f"{where}.{key}" if where else str(key))
            found += more
        return out, found
    if isinstance(data, list | tuple):
        items, found = [], []
        for i, value in enumerate(data):
            item, more = finite_tree(value, f"{where}[{i}]")
            items.append(item)
            found += more
        return items, found
    return data, []
