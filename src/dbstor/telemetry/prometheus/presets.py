"""Exporter presets: which Prometheus metrics give dbstor's quantities, in which units.

A preset is a TOML file (shipped ones in exporters/, or the user's own) naming, for each
quantity, a metric and its kind:

- counter: a cumulative counter of operations or bytes; dbstor takes its increase over
  the window (never PromQL's extrapolating rate()) and divides by the seconds between
  the bounding samples.
- ratio: the increase of one counter over the increase of another (seconds spent over
  operations completed = mean latency; busy CPU seconds over all CPU seconds = CPU share).
- gauge: a figure the exporter already computed per second or per operation (array
  exporters: IOPS, MB/s, microseconds per operation); dbstor averages it over the window,
  latencies weighted by their operations.

A quantity names either a `metric` (dbstor writes the selector, adding the selection's
labels) or a PromQL `query` of the user's own, taken as it is (a ratio's denominator:
`per` or `per_query`). The user's --storage-query flags are such a preset (own.py).

Every unit is declared, converted to dbstor's (QUANTITIES) and checked against what the
metric's name says (`_seconds_total` is seconds, `_usec` microseconds...).
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.selectors import (
    Matcher,
    is_metric_name,
    parse_matchers,
    plain_selector,
)
from dbstor.telemetry.sources import LAYERS, QUANTITIES
from dbstor.userfiles import STUDY_FILE_BYTES, read_text

KINDS = ("counter", "ratio", "gauge")
# (kind, declared unit) -> (what it measures, factor to dbstor's unit)
UNITS: dict[tuple[str, str], tuple[str, float]] = {
    ("counter", "ops"): ("iops", 1.0),
    ("counter", "bytes"): ("mbps", 1e-6),
    ("ratio", "s"): ("latency", 1e3),
    ("ratio", "ms"): ("latency", 1.0),
    ("ratio", "us"): ("latency", 1e-3),
    ("ratio", "fraction"): ("cpu", 100.0),
    ("gauge", "ops/s"): ("iops", 1.0),
    ("gauge", "bytes/s"): ("mbps", 1e-6),
    ("gauge", "MB/s"): ("mbps", 1.0),
    ("gauge", "s"): ("latency", 1e3),
    ("gauge", "ms"): ("latency", 1.0),
    ("gauge", "us"): ("latency", 1e-3),
    ("gauge", "percent"): ("cpu", 1.0),
    ("gauge", "fraction"): ("cpu", 100.0),
}
DIMENSION = {
    "read_iops": "iops",
    "write_iops": "iops",
    "read_mbps": "mbps",
    "write_mbps": "mbps",
    "read_latency_ms": "latency",
    "write_latency_ms": "latency",
    "cpu_util_pct": "cpu",
}
# What a metric's name says of its unit (Prometheus naming conventions), longest first.
_SUFFIX_UNITS = (
    ("_megabytes_per_second", {"MB/s"}),
    ("_milliseconds", {"ms"}),
    ("_microseconds", {"us"}),
    ("_usec", {"us"}),
    ("_seconds_total", {"s", "fraction"}),
    ("_seconds", {"s", "fraction"}),
    ("_bytes_total", {"bytes"}),
    ("_bytes", {"bytes/s", "bytes"}),
    ("_iops_per_second", {"ops/s"}),
    ("_iops", {"ops/s"}),
)


@dataclass(frozen=True)
class QuerySpec:
    """How one quantity is read: see the module docstring for `kind`. With `query` set the
    PromQL is the user's own, taken as it is; `metric` is then the metric it selects when
    it is a plain selector, else ""."""

    quantity: str
    kind: str
    metric: str
    unit: str
    match: tuple[Matcher, ...] = ()
    per: str | None = None  # ratio: the denominator counter
    per_match: tuple[Matcher, ...] = ()
    per_unit: str | None = None
    drop: tuple[str, ...] = ()  # selection labels that do not apply to this metric
    query: str | None = None  # the user's own PromQL for the quantity
    per_query: str | None = None  # ... and for a ratio's denominator
    label: str = ""  # how messages name it (e.g. "--storage-query read_latency_us")

    @property
    def factor(self) -> float:
        return UNITS[(self.kind, self.unit)][1]


@dataclass(frozen=True)
class Preset:
    """One exporter's metrics for dbstor's quantities, with the documentation they come from."""

    name: str
    title: str
    layers: tuple[str, ...]
    docs: tuple[str, ...]
    example_selection: str
    quantities: dict[str, QuerySpec]
    note: str = ""


def preset_names() -> list[str]:
    """The shipped presets' names."""
    folder = resources.files(__package__).joinpath("exporters")
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def load_preset(name_or_path: str) -> Preset:
    """A shipped preset by name, or the user's own TOML file by path; UserError otherwise."""
    if name_or_path in preset_names():
        res = resources.files(__package__).joinpath("exporters", f"{name_or_path}.toml")
        return parse_preset(tomllib.loads(res.read_text()), name_or_path)
    path = Path(name_or_path)
    if path.suffix == ".toml" and path.is_file():
        try:
            data = tomllib.loads(read_text(path, "a preset", STUDY_FILE_BYTES))
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise UserError(f"preset {path}: {exc}") from None
        return parse_preset(data, str(path))
    close = difflib.get_close_matches(name_or_path, preset_names(), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise UserError(
        f"no preset {name_or_path!r}: {hint}choose one of {', '.join(preset_names())} "
        "or give the path of your own preset .toml (see docs/telemetry.md)"
    )


def parse_preset(data: dict[str, Any], where: str) -> Preset:
    """Check one preset's table (units, kinds, names) and build it; UserError on a fault."""

    def fail(problem: str) -> UserError:
        return UserError(f"preset {where}: {problem} (see docs/telemetry.md, 'Presets')")

    layers = tuple(data.get("layers") or ())
    if not layers or any(layer not in LAYERS or layer == "client" for layer in layers):
        raise fail("'layers' must list some of host_device, remote_device, storage")
    docs = tuple(data.get("docs") or ())
    quantities: dict[str, QuerySpec] = {}
    for quantity, table in (data.get("quantities") or {}).items():
        if quantity not in QUANTITIES:
            raise fail(f"unknown quantity {quantity!r}; known: {', '.join(QUANTITIES)}")
        quantities[quantity] = _spec(quantity, table, fail)
    if not quantities:
        raise fail("no [quantities.*] tables")
    return Preset(
        name=str(data.get("name") or Path(where).stem),
        title=str(data.get("title") or ""),
        layers=layers,
        docs=docs,
        example_selection=str(data.get("example_selection") or ""),
        quantities=quantities,
        note=str(data.get("note") or ""),
    )


def _spec(quantity: str, table: dict[str, Any], fail: Any) -> QuerySpec:
    kind, unit = table.get("kind"), table.get("unit")
    if kind not in KINDS:
        raise fail(f"{quantity}: kind must be one of {', '.join(KINDS)}")
    metric, query = _metric_or_query(quantity, table, "metric", "query", fail)
    if (kind, unit) not in UNITS:
        known = sorted(u for k, u in UNITS if k == kind)
        raise fail(f"{quantity}: unknown unit {unit!r} for a {kind}; use one of {', '.join(known)}")
    if UNITS[(kind, unit)][0] != DIMENSION[quantity]:
        raise fail(f"{quantity}: a {kind} in {unit} cannot give {QUANTITIES[quantity]}")
    if metric:
        check_name_unit(metric, unit, lambda msg: fail(f"{quantity}: {msg}"))
    per, per_query = None, None
    per_unit = table.get("per_unit")
    if kind == "ratio":
        if "per" not in table and "per_query" not in table:
            raise fail(f"{quantity}: a ratio needs 'per' (or 'per_query'), the denominator counter")
        per, per_query = _metric_or_query(quantity, table, "per", "per_query", fail)
        per_unit = per_unit or ("s" if unit == "fraction" else "ops")
        if per:
            check_name_unit(per, per_unit, lambda msg: fail(f"{quantity}: {msg}"))
    elif "per" in table or "per_query" in table:
        raise fail(f"{quantity}: 'per' is only for kind = \"ratio\"")
    if query is not None and ("match" in table or "drop" in table):
        raise fail(f"{quantity}: 'match' and 'drop' are for 'metric'; write labels into the query")
    return QuerySpec(
        quantity=quantity,
        kind=kind,
        metric=metric,
        unit=unit,
        match=parse_matchers(table.get("match", ""), f"{quantity} match"),
        per=per or None,
        per_match=parse_matchers(table.get("per_match", ""), f"{quantity} per_match"),
        per_unit=per_unit,
        drop=tuple(table.get("drop") or ()),
        query=query,
        per_query=per_query,
        label=str(table.get("label") or ""),
    )


def _metric_or_query(
    quantity: str, table: dict[str, Any], name_key: str, query_key: str, fail: Any
) -> tuple[str, str | None]:
    """(metric name, query or None) from `name_key` or `query_key`, exactly one of them;
    a query that is a plain selector names its metric, so its unit can be checked."""
    if (name_key in table) == (query_key in table):
        raise fail(
            f"{quantity}: give either {name_key!r} (a metric name) or {query_key!r} (PromQL)"
        )
    if name_key in table:
        metric = table[name_key]
        if not isinstance(metric, str) or not is_metric_name(metric):
            raise fail(f"{quantity}: {name_key!r} must be a metric name, got {metric!r}")
        return metric, None
    query = table[query_key]
    if not isinstance(query, str) or not query.strip():
        raise fail(f"{quantity}: {query_key!r} must be a PromQL expression")
    return plain_selector(query) or "", " ".join(query.split())


def check_name_unit(metric: str, unit: str, fail: Any) -> None:
    """Raise fail(...) when the metric's name says another unit than the declared one."""
    for suffix, allowed in _SUFFIX_UNITS:
        if metric.endswith(suffix):
            if unit not in allowed:
                raise fail(f"{metric} is in {'/'.join(sorted(allowed))} by its name, not {unit}")
            return
