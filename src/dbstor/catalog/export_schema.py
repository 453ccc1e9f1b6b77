"""The export's one declared schema: each column's SQL type comes from the results model
(results/model.py's type hints; the runs table's headline figures declared here), never
from which values happen to be null in this export (a knee was BIGINT in one export and
DOUBLE in another, an all-null p99 BIGINT); and column names that need no quoting.

A free-form field (the user's facts and tags, an engine's settings) has no declared type:
its numbers are DOUBLE, its true/false BOOLEAN, anything else TEXT."""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any

from dbstor.results.model import Point

DOUBLE, BIGINT, BOOLEAN, TEXT = "DOUBLE", "BIGINT", "BOOLEAN", "TEXT"
_SCALARS = {float: DOUBLE, int: BIGINT, bool: BOOLEAN, str: TEXT}
RESERVED = frozenset((
    "all", "and", "as", "by", "case", "check", "column", "create", "default", "desc",
    "distinct", "from", "group", "having", "in", "limit", "not", "null", "offset", "on",
    "or", "order", "primary", "references", "select", "table", "to", "union", "unique",
    "when", "where", "with",
))  # fmt: skip

RUN_TYPES = {  # catalog/entries.py run_entry and headline
    "id": TEXT, "folder": TEXT, "status": TEXT, "created_at": TEXT, "target": TEXT,
    "engine": TEXT, "workload": TEXT, "load_kind": TEXT, "series": TEXT, "host": TEXT,
    "key": TEXT, "repeats": BIGINT, "spread_pct": DOUBLE, "points": BIGINT, "report": TEXT,
    "unit": TEXT, "peak": DOUBLE, "peak_load": DOUBLE, "knee": DOUBLE, "knee_load": DOUBLE,
    "latency_metric": TEXT, "latency_at_load": DOUBLE, "latency_load": DOUBLE,
}  # fmt: skip
POINT_KEYS = {"run_id": TEXT, "point": BIGINT}
SAMPLE_TYPES = {"run_id": TEXT, "point": BIGINT, "repeat": BIGINT, "load_kind": TEXT}


def _unwrap(hint: Any) -> Any:
    """X | None -> X."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else Any
    return hint


def model_types(cls: type = Point, prefix: str = "") -> tuple[dict[str, str], dict[str, str]]:
    """(exact column -> type, column prefix -> type) from a dataclass's hints, flattened as
    catalog.export.flatten names them: {"read_lat_ms_p99": DOUBLE}, {"engine_io_": DOUBLE}."""
    exact: dict[str, str] = {}
    prefixed: dict[str, str] = {}
    for field in dataclasses.fields(cls):
        hint = _unwrap(typing.get_type_hints(cls)[field.name])
        name = f"{prefix}{field.name}"
        if dataclasses.is_dataclass(hint):
            inner_exact, inner_prefixed = model_types(hint, f"{name}_")  # type: ignore[arg-type]
            exact |= inner_exact
            prefixed |= inner_prefixed
        elif hint in _SCALARS:
            exact[name] = _SCALARS[hint]
        elif typing.get_origin(hint) is dict:
            value = _unwrap(typing.get_args(hint)[1])
            if value in _SCALARS:
                prefixed[f"{name}_"] = _SCALARS[value]
            elif dataclasses.is_dataclass(value):  # txn_types: a name, then its stats
                inner, _ = model_types(value)  # type: ignore[arg-type]
                prefixed |= {f"{name}_*_{key}": kind for key, kind in inner.items()}
        elif typing.get_origin(hint) is list:
            exact[name] = TEXT  # JSON text
    return exact, prefixed


POINT_EXACT, POINT_PREFIXED = model_types()


def declared_type(table: str, column: str, values: list[Any]) -> str:
    """The column's SQL type: declared by the model, else by the kind of field it is."""
    if table == "runs" and column in RUN_TYPES:
        return RUN_TYPES[column]
    if table == "samples" and column in SAMPLE_TYPES:
        return SAMPLE_TYPES[column]
    if table == "points":
        if column in POINT_KEYS:
            return POINT_KEYS[column]
        if column in POINT_EXACT:
            return POINT_EXACT[column]
        for prefix, kind in POINT_PREFIXED.items():
            head, _, tail = prefix.partition("*_")
            if column.startswith(head) and (not tail or column.endswith(f"_{tail}")):
                found = free_form_type(values)  # a value against the model's word: TEXT
                return TEXT if found == TEXT and any(v is not None for v in values) else kind
    return free_form_type(values)


def free_form_type(values: list[Any]) -> str:
    """A field without a declared type: DOUBLE for numbers (never BIGINT: 48 and 48.5 are
    one kind of figure), BOOLEAN for true/false, TEXT for anything else or nothing."""
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return BOOLEAN
    if kinds and kinds <= {int, float}:
        return DOUBLE
    return TEXT


def column_names(columns: list[str]) -> list[str]:
    """Names that need no quoting in any SQL: lower case letters, digits and _, not
    starting with a digit, no reserved word, unique ('Drive-Type' -> 'drive_type')."""
    used: set[str] = set()
    out = []
    for column in columns:
        base = re.sub(r"[^a-z0-9]+", "_", column.lower()).strip("_") or "column"
        if base[0].isdigit():
            base = f"c_{base}"
        if base in RESERVED:
            base = f"{base}_"
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}_{n}"
        used.add(name)
        out.append(name)
    return out
