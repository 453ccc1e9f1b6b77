"""The shape of a results.json: every key path with the JSON type found there.

A refactor must leave a fresh run's results.json field-for-field the same: the same keys at
the same places with the same types. Values differ from run to run, so only the shape is
compared; null matches any type (a percentile is null when a point is too short for it).
"""

from __future__ import annotations

import re
from typing import Any


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# maps whose keys are data (names of transactions, queries, tables), not fields
DATA_KEYED = {"mix", "txn_types", "tables", "workload_metrics", "facts", "paths"}


def shape(
    value: Any, path: str = "$", out: dict[str, set[str]] | None = None
) -> dict[str, set[str]]:
    """{key path: set of JSON types seen there}; list items share the path `[]`."""
    out = {} if out is None else out
    out.setdefault(path, set()).add(json_type(value))
    if isinstance(value, dict):
        data_keyed = path.rsplit(".", 1)[-1] in DATA_KEYED
        for key, item in value.items():
            shape(item, f"{path}.{'*' if data_keyed else key}", out)
    elif isinstance(value, list):
        for item in value:
            shape(item, f"{path}[]", out)
    return out


def as_json(shapes: dict[str, set[str]]) -> dict[str, list[str]]:
    return {path: sorted(types) for path, types in sorted(shapes.items())}


def differences(before: dict[str, list[str]], after: dict[str, set[str]]) -> list[str]:
    """What differs: key paths missing or new, and types that changed (null aside)."""
    problems = []
    for path in sorted(set(before) - set(after)):
        if not _inside_empty_list(path, after):
            problems.append(f"missing: {path}")
    for path in sorted(set(after) - set(before)):
        if not _inside_empty_list(path, before):
            problems.append(f"new: {path}")
    for path in sorted(set(before) & set(after)):
        old, new = set(before[path]) - {"null"}, set(after[path]) - {"null"}
        if old and new and not (old & new):
            problems.append(f"type: {path} was {sorted(old)}, now {sorted(new)}")
    return problems


def _inside_empty_list(path: str, other: dict) -> bool:
    """Whether `path` lies under a list the other shape saw only empty, or under a value the
    other shape saw only as null (a point's notes are empty in one run and not in the next;
    a short query point has no device figures): that is a value, not a shape."""
    for cut in (m.start() for m in re.finditer(r"\.|\[\]", path)):
        holder = path[:cut]
        if holder not in other:
            continue
        if path[cut:].startswith("[]") and f"{holder}[]" not in other:
            return True
        if set(other[holder]) <= {"null"}:
            return True
    return False
