"""Checks of the values results.json holds: every failure is a FieldError naming the field
(as a path like points[2].load.value) and what was expected, so a loader can give one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dbstor.study.model import SLO_METRICS


class FieldError(ValueError):
    """A results.json field holds the wrong kind of value: names the field and what fits."""


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_value(value: Any, hint: str, where: str) -> None:
    """Raise FieldError unless value fits the dataclass field's annotation (as written)."""
    optional = hint.endswith(" | None")
    base = hint.removesuffix(" | None")
    if value is None:
        if optional:
            return
        raise FieldError(f"{where}: expected {describe(base)}, got null")
    fits = {
        "float": is_number,
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "bool": lambda v: isinstance(v, bool),
        "list[str]": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
    }.get(base)
    if base.startswith("dict["):
        fits = lambda v: isinstance(v, dict)  # noqa: E731
    elif base.startswith("list["):
        fits = fits or (lambda v: isinstance(v, list))
    if fits is not None and not fits(value):
        shown = json_repr(value)
        raise FieldError(f"{where}: expected {describe(base)}{' or null' * optional}, got {shown}")


def describe(base: str) -> str:
    return {
        "float": "a number",
        "int": "a whole number",
        "str": "a string",
        "bool": "true or false",
        "list[str]": "a list of strings",
    }.get(base, "an object" if base.startswith("dict[") or base[:1].isupper() else "a list")


def json_repr(value: Any) -> str:
    """A short rendering of a JSON value for a message."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_NUMBER_OR_NULL = "float | None"
# Fields inside the free-form objects that the reports read: (object, field) -> annotation.
HEADER_FIELDS = {
    ("target", "label"): "str",
    ("target", "facts"): "dict[str, Any] | None",
    ("target", "device"): "str | None",
    ("target", "paths"): "dict[str, Any] | None",
    ("engine", "name"): "str",
    ("engine", "version"): "str | None",
    ("engine", "managed"): "bool | None",
    ("workload", "name"): "str",
    ("workload", "profile"): "dict[str, Any] | None",
    ("workload", "mix"): "dict[str, Any] | None",
    ("workload", "load"): "list[Any] | None",
    ("workload", "scale"): _NUMBER_OR_NULL,
    ("study", "name"): "str | None",
    ("slo", "metric"): "str | None",
    ("slo", "limit_ms"): _NUMBER_OR_NULL,
    ("engine_stats", "objects"): "list[Any] | None",
}
# engine_stats.objects[i]; the rest are numbers
OBJECT_FIELDS = {"name": "str", "kind": "str", "path": "str | None"}
# engine_stats.paths[i] (runs/path_layout.py); the rest are numbers
PATH_FIELDS = {"role": "str", "path": "str", "device": "str | None"}
NUMBER_SUFFIXES = ("_bytes", "_ms", "_s", "_pct", "_per_s")  # in any header object
SUMMARY_FIELDS = {  # peak and knee
    "load": _NUMBER_OR_NULL,
    "iops": _NUMBER_OR_NULL,
    "tps": _NUMBER_OR_NULL,
    "latency_ms": _NUMBER_OR_NULL,
    "kind": "str | None",
    "within_slo": "bool | None",
    "interpolated": "bool | None",
    "beyond_last": "bool | None",
}


REQUIRED = {
    "slo": ("metric", "limit_ms"),
    "target": ("label",),
    "engine": ("name",),
    "workload": ("name",),
}


def check_header(data: dict[str, Any]) -> None:
    """The reports' fields inside results.json's free-form objects (when present)."""
    for section, keys in REQUIRED.items():
        table = data.get(section)
        for key in keys if isinstance(table, dict) and table else ():  # {}: nothing recorded
            if key not in table:
                raise FieldError(f"{section}: missing field {key!r}")
    for section in ("target", "engine", "workload", "host", "study", "slo"):
        table = data.get(section)
        for key, value in table.items() if isinstance(table, dict) else ():
            hint = HEADER_FIELDS.get((section, key))
            if hint is None and key.endswith(NUMBER_SUFFIXES):
                hint = _NUMBER_OR_NULL
            if hint is not None:
                check_value(value, hint, f"{section}.{key}")
    slo = data.get("slo")
    metric = slo.get("metric") if isinstance(slo, dict) else None
    if metric is not None and metric not in SLO_METRICS:
        raise FieldError(
            f"slo.metric: expected one of {', '.join(SLO_METRICS)}, got {json_repr(metric)}"
        )
    if isinstance(slo, dict) and slo and not _query_run(data):
        if metric is None:
            raise FieldError(
                f"slo.metric: expected one of {', '.join(SLO_METRICS)} (only a query run has "
                "none), got null"
            )
        limit = slo.get("limit_ms")
        if not is_number(limit) or not limit > 0:
            raise FieldError(
                "slo.limit_ms: expected a number above zero (only a query run has none), "
                f"got {json_repr(limit)}"
            )
    for section in ("peak", "knee"):
        table = data.get(section)
        for key, value in table.items() if isinstance(table, dict) else ():
            if key in SUMMARY_FIELDS:
                check_value(value, SUMMARY_FIELDS[key], f"{section}.{key}")
    for section in ("workload", "study"):
        table = data.get(section)
        series = table.get("series") if isinstance(table, dict) else None
        if series is not None:
            check_value(series, "dict[str, Any]", f"{section}.series")
            values = series.get("values")
            check_value(values, "list[Any] | None", f"{section}.series.values")
            for i, value in enumerate(values or []):
                check_value(value, "float", f"{section}.series.values[{i}]")
    workload = data.get("workload")
    mix = workload.get("mix") if isinstance(workload, dict) else None
    check_numbers(mix, "workload.mix")
    workload = data.get("workload")
    steps = workload.get("load") if isinstance(workload, dict) else None
    for i, step in enumerate(steps or []):
        if not isinstance(step, dict):
            raise FieldError(f"workload.load[{i}]: expected an object, got {json_repr(step)}")
        for key in ("instance", "rows", "seconds", "rows_per_s", "bytes"):
            if key in step:
                check_value(step[key], _NUMBER_OR_NULL, f"workload.load[{i}].{key}")
    stats = data.get("engine_stats")
    if stats is not None and not isinstance(stats, dict):
        raise FieldError(f"engine_stats: expected an object or null, got {json_repr(stats)}")
    for i, obj in enumerate((stats or {}).get("objects") or []):
        where = f"engine_stats.objects[{i}]"
        if not isinstance(obj, dict):
            raise FieldError(f"{where}: expected an object, got {json_repr(obj)}")
        for key, value in obj.items():
            check_value(value, OBJECT_FIELDS.get(key, _NUMBER_OR_NULL), f"{where}.{key}")
    paths = (stats or {}).get("paths")
    if paths is not None and not isinstance(paths, list):
        raise FieldError(f"engine_stats.paths: expected a list or null, got {json_repr(paths)}")
    for i, row in enumerate(paths or []):
        where = f"engine_stats.paths[{i}]"
        if not isinstance(row, dict):
            raise FieldError(f"{where}: expected an object, got {json_repr(row)}")
        for key, value in row.items():
            check_value(value, PATH_FIELDS.get(key, _NUMBER_OR_NULL), f"{where}.{key}")


def _query_run(data: dict[str, Any]) -> bool:
    """A query run's points are loads of streams (it has no latency limit)."""
    points = data.get("points")
    kinds = {
        p["load"].get("kind")
        for p in (points if isinstance(points, list) else ())
        if isinstance(p, dict) and isinstance(p.get("load"), dict)
    }
    return kinds <= {"streams"}


def check_numbers(table: Any, where: str) -> None:
    """An object whose values are numbers or null (engine_io, workload_metrics)."""
    if isinstance(table, dict):
        for key, value in table.items():
            check_value(value, _NUMBER_OR_NULL, f"{where}.{key}")


def check_engine_io(table: Any, where: str) -> None:
    """engine_io: numbers or null, and `nulled` (a counter -> why it is null: the server
    restarted or its statistics were reset during the point, a crash event) as text."""
    if not isinstance(table, dict):
        return
    nulled = table.get("nulled")
    texts = isinstance(nulled, dict) and all(isinstance(v, str) for v in nulled.values())
    if nulled is not None and not texts:
        raise FieldError(f"{where}.nulled: expected an object of texts, got {json_repr(nulled)}")
    check_numbers({k: v for k, v in table.items() if k != "nulled"}, where)


def check_window(table: Any, where: str) -> None:
    """engine_window: waits per event ({waits, wait_ms, mean_ms}), rates and ratios, each
    a number or null (engines/window.py)."""
    if table is None:
        return
    if not isinstance(table, dict):
        raise FieldError(f"{where}: expected an object or null, got {json_repr(table)}")
    check_value(table.get("seconds"), _NUMBER_OR_NULL, f"{where}.seconds")
    for name, row in (table.get("waits") or {}).items():
        if not isinstance(row, dict):
            raise FieldError(f"{where}.waits.{name}: expected an object, got {json_repr(row)}")
        check_numbers(row, f"{where}.waits.{name}")
    check_numbers(table.get("rates"), f"{where}.rates")
    check_numbers(table.get("ratios"), f"{where}.ratios")


CHECKS: dict[str, Callable[[Any, str], None]] = {
    "engine_io": check_engine_io,
    "engine_window": check_window,
    "workload_metrics": check_numbers,
}
