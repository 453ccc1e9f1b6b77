"""The user's own PromQL queries for a layer: `--storage-query 'read_latency_us=PROMQL'`.

Each query is given under a key that names the quantity and its unit, and so how dbstor
reads it (the same kinds as a preset's, see presets.py):

  read_iops, write_iops                 operations per second (a figure: rate(...), a gauge)
  read_ops_total, write_ops_total       operations, cumulative (a counter: dbstor takes its increase)
  read_mbps, write_mbps                 MB/s (1,000,000 bytes)
  read_bytes_per_s, write_bytes_per_s   bytes per second
  read_bytes_total, write_bytes_total   bytes, cumulative
  read_latency_s, _ms, _us              mean latency per operation, in s, ms or µs
  read_latency_s_total, _ms_total, _us_total   time spent, cumulative: divided by the
                                        increase of read_ops_total (which must be given too)
  cpu_util_pct, cpu_util_fraction       busy share of the CPUs

The queries become a preset (the same data a preset file holds) and go through its
checks; with --storage PRESET too they replace or add to that preset's quantities.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.presets import Preset, parse_preset

OWN_NAME = "own-queries"


def _keys() -> dict[str, tuple[str, str, str]]:
    """key -> (dbstor's quantity, kind, preset unit)."""
    keys: dict[str, tuple[str, str, str]] = {}
    for d in ("read", "write"):
        keys[f"{d}_iops"] = (f"{d}_iops", "gauge", "ops/s")
        keys[f"{d}_ops_total"] = (f"{d}_iops", "counter", "ops")
        keys[f"{d}_mbps"] = (f"{d}_mbps", "gauge", "MB/s")
        keys[f"{d}_bytes_per_s"] = (f"{d}_mbps", "gauge", "bytes/s")
        keys[f"{d}_bytes_total"] = (f"{d}_mbps", "counter", "bytes")
        for unit in ("s", "ms", "us"):
            keys[f"{d}_latency_{unit}"] = (f"{d}_latency_ms", "gauge", unit)
            keys[f"{d}_latency_{unit}_total"] = (f"{d}_latency_ms", "ratio", unit)
    keys["cpu_util_pct"] = ("cpu_util_pct", "gauge", "percent")
    keys["cpu_util_fraction"] = ("cpu_util_pct", "gauge", "fraction")
    return keys


KEYS = _keys()


def split_query(text: str, flag: str) -> tuple[str, str]:
    """'read_latency_us=PROMQL' -> (key, PromQL); UserError naming `flag` otherwise."""
    key, sep, query = text.partition("=")
    key = key.strip()
    if not sep or not key or not query.strip():
        raise UserError(
            f"{flag} {text!r}: write KEY=PROMQL, e.g. "
            f"{flag} 'read_latency_us=avg(myarray_read_latency_usec{{volume=\"sqldata\"}})'"
        )
    check_key(key, flag)
    return key, query.strip()


def check_key(key: str, where: str) -> tuple[str, str, str]:
    """(quantity, kind, unit) a key stands for; UserError naming the keys there are."""
    if key in KEYS:
        return KEYS[key]
    close = difflib.get_close_matches(key, KEYS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise UserError(
        f"{where} {key!r}: not a quantity with its unit; {hint}use read_iops, read_ops_total, "
        "read_mbps, read_bytes_per_s, read_bytes_total, read_latency_s/_ms/_us (per op), "
        "read_latency_s_total/_ms_total/_us_total (cumulative), the same with write_, "
        "cpu_util_pct or cpu_util_fraction (see docs/telemetry.md)"
    )


def other_kind_key(key: str) -> str | None:
    """The key for the same quantity read the other way (per second/op <-> cumulative):
    read_iops <-> read_ops_total, read_bytes_per_s <-> read_bytes_total,
    read_latency_us <-> read_latency_us_total; None for a key with no such twin."""
    twins = {"iops": "ops_total", "bytes_per_s": "bytes_total", "mbps": "bytes_total"}
    for a, b in twins.items():
        for d in ("read", "write"):
            if key == f"{d}_{a}":
                return f"{d}_{b}"
            if key == f"{d}_{b}" and a != "mbps":
                return f"{d}_{a}"
    if "_latency_" in key:
        return key.removesuffix("_total") if key.endswith("_total") else f"{key}_total"
    return None


def own_preset_data(queries: Mapping[str, str], layer: str, where: str) -> dict[str, Any]:
    """The preset table the queries stand for (as a preset file would hold it)."""
    tables: dict[str, dict[str, Any]] = {}
    keys_of: dict[str, str] = {}
    for key, query in queries.items():
        quantity, kind, unit = check_key(key, where)
        if quantity in tables:
            raise UserError(
                f"{where}: {keys_of[quantity]} and {key} are both {quantity}; give one of them"
            )
        keys_of[quantity] = key
        tables[quantity] = {"kind": kind, "unit": unit, "query": query, "label": f"{where} {key}"}
    for quantity, table in tables.items():
        if table["kind"] != "ratio":
            continue
        key = keys_of[quantity]
        ops_key = key.split("_latency")[0] + "_ops_total"
        ops = tables.get(quantity.replace("latency_ms", "iops"))
        if ops is None or ops["kind"] != "counter":
            raise UserError(
                f"{where} {key} is time spent, cumulative: give {ops_key}= too (the operations "
                f"it divides by), or the mean per operation as {key.removesuffix('_total')}="
            )
        table["per_query"] = ops["query"]
    return {
        "name": OWN_NAME,
        "title": f"the user's own queries ({where})",
        "layers": [layer],
        "quantities": tables,
    }


def own_preset(queries: Mapping[str, str], layer: str, where: str) -> Preset:
    """The user's queries as a preset measuring `layer`; UserError (one line) on a fault."""
    try:
        return parse_preset(own_preset_data(queries, layer, where), where)
    except UserError as exc:
        text = str(exc).removeprefix("preset ")
        raise UserError(text.replace(" (see docs/telemetry.md, 'Presets')", "")) from None


def with_own_queries(base: Preset, queries: Mapping[str, str], layer: str, where: str) -> Preset:
    """`base` with the user's queries replacing or adding to its quantities."""
    own = own_preset(queries, layer, where)
    quantities = {**base.quantities, **own.quantities}
    return replace(base, name=f"{base.name}+{OWN_NAME}", quantities=quantities)
