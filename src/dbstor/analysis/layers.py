"""Where the time goes: a point's latency layer by layer, and layers normalised to a baseline.

TR-4367 (its Figures 1 and 2) compared latency at the database server and at the storage
controller, normalised to FC = 100, to show there was no hidden bottleneck in the stack.
These functions take the per-point "layers" dict of results.json (telemetry.layers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from dbstor.analysis.curve import curve_points, value_at_knee
from dbstor.results.model import LatencyStats, Point, Run

LAYER_WORDS = {
    "client": "the client",
    "host_device": "this host's device",
    "remote_device": "the database host's device",
    "storage": "the storage system",
}
LAYER_ORDER = ("client", "host_device", "remote_device", "storage")
DEVICE_LAYERS = ("remote_device", "host_device")  # the database's own device first

Layers = Mapping[str, Mapping[str, object]]


def layer_figure(layers: Layers | None, layer: str, key: str) -> float | None:
    """One figure of one layer of a point's "layers" (None when absent or missing)."""
    return _figure(layers or {}, layer, key)


def remote_view(point: Point) -> Point | None:
    """The point as the database server's own device saw it (the remote_device layer, from
    its node_exporter through --db-host); None where that layer has no IOPS."""
    reads = layer_figure(point.layers, "remote_device", "read_iops")
    writes = layer_figure(point.layers, "remote_device", "write_iops")
    if reads is None and writes is None:
        return None
    read_ms = layer_figure(point.layers, "remote_device", "read_latency_ms")
    write_ms = layer_figure(point.layers, "remote_device", "write_latency_ms")
    engine_io = dict(point.engine_io or {})
    per_txn = reads / point.tps if reads is not None and point.tps else None
    engine_io["device_reads_per_txn"] = per_txn  # reads not measured: None, never 0
    return replace(
        point,
        read_iops=reads,
        write_iops=writes,
        read_lat_ms=LatencyStats(mean=read_ms) if read_ms is not None else None,
        write_lat_ms=LatencyStats(mean=write_ms) if write_ms is not None else None,
        engine_io=engine_io,
    )


def device_points(points: Sequence[Point]) -> tuple[list[Point], str | None]:
    """The points as the database's own device saw them, and the layer that saw them: this
    host's device when it measured any point (layer None), else the database server's
    device (`remote_device`) when --db-host gave it figures."""
    if any(p.ok and (p.read_iops is not None or p.write_iops is not None) for p in points):
        return list(points), None
    remote = [remote_view(p) if p.ok else None for p in points]
    if not any(r is not None for r in remote):
        return list(points), None
    return [r if r is not None else p for r, p in zip(remote, points, strict=True)], (
        "remote_device"
    )


def has_layer(points_layers: list[Layers | None], layer: str) -> bool:
    """Whether any point has this layer (even one that went missing)."""
    return any(layer in (layers or {}) for layers in points_layers)


TXN_KEYS = ("tps", "txn_latency_ms")  # what a database run's client measured


def _figure(layers: Layers, layer: str, key: str) -> float | None:
    entry = layers.get(layer) or {}
    if layer == "client" and entry.get("tps") is not None and key not in TXN_KEYS:
        return None  # a database client times transactions; its I/O figures are the device's
    value = entry.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _ms(value: float) -> str:
    """Milliseconds to two significant figures, never in exponent form."""
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.2g}"


def where_time_goes(
    layers: Layers,
    direction: str = "read",
    *,
    tolerance_ms: float = 0.1,
    tolerance_share: float = 0.25,
) -> str | None:
    """One sentence when the host's device and the storage system disagree on latency
    beyond the tolerance (absolute and relative), else None.

    "reads: the database host's device saw 4.1 ms, the storage system 0.6 ms: 3.5 ms
    between them, in the path (HBA, network, switches, queues)"
    """
    key = f"{direction}_latency_ms"
    lower = _figure(layers, "storage", key)
    if lower is None:
        return None
    for layer in DEVICE_LAYERS:
        upper = _figure(layers, layer, key)
        if upper is None:
            continue
        gap = upper - lower
        if abs(gap) <= max(tolerance_ms, tolerance_share * lower):
            return None
        if gap > 0:
            return (
                f"{direction}s: {LAYER_WORDS[layer]} saw {_ms(upper)} ms, the storage system "
                f"{_ms(lower)} ms: {_ms(gap)} ms between them, in the path (HBA, network, "
                "switches, queues)"
            )
        return (
            f"{direction}s: the storage system saw {_ms(lower)} ms, more than {LAYER_WORDS[layer]}'s "
            f"{_ms(upper)} ms: its figure covers more than this host's I/O (other hosts, or a "
            "wider selection)"
        )
    return None


def normalise_layers(
    by_target: Mapping[str, Layers], baseline: str, key: str
) -> dict[str, dict[str, float | None]]:
    """Each target's figure `key` at each layer, as a percentage of the baseline target's
    figure at the same layer (baseline = 100); None where either side has no figure."""
    if baseline not in by_target:
        raise KeyError(f"baseline {baseline!r} is not among {', '.join(by_target)}")
    base = by_target[baseline]
    out: dict[str, dict[str, float | None]] = {}
    for label, layers in by_target.items():
        row: dict[str, float | None] = {}
        for layer in LAYER_ORDER:
            value, ref = _figure(layers, layer, key), _figure(base, layer, key)
            if layer in layers or layer in base:
                row[layer] = value / ref * 100.0 if value is not None and ref else None
        out[label] = row
    return out


# compared at each layer; cpu_util_pct: the layer's CPU (the storage system's controllers)
LAYER_KEYS = ("read_latency_ms", "write_latency_ms", "iops", "cpu_util_pct", *TXN_KEYS)


def _compared_figure(layers: Layers | None, layer: str, key: str) -> float | None:
    """A compared figure of one layer: IOPS are reads and writes together."""
    if key != "iops":
        return layer_figure(layers, layer, key)
    parts = [layer_figure(layers, layer, f"{d}_iops") for d in ("read", "write")]
    known = [v for v in parts if v is not None]
    return sum(known) if known else None


def compare_layers(
    runs: Sequence[Run], labels: Sequence[str], baseline: str, load: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Every run's layers at one load (interpolated on its curve, as the comparison's
    same-load figures are), and each layer normalised to the baseline's same layer = 100
    (TR-4367 Figures 1 and 2). None when no run has layers or there is no load."""
    value = (load or {}).get("value")
    points = [curve_points(run.points) for run in runs]
    present = [
        layer
        for layer in LAYER_ORDER
        if any(has_layer([p.layers for p in pts], layer) for pts in points)
    ]
    if value is None or not present:
        return None
    at_load: dict[str, dict[str, dict[str, float | None]]] = {}
    for label, pts in zip(labels, points, strict=True):
        at_load[label] = {
            layer: {
                key: value_at_knee(
                    pts,
                    {"load": value},
                    lambda p, la=layer, k=key: _compared_figure(p.layers, la, k),
                )
                for key in LAYER_KEYS
            }
            for layer in present
        }
    by_key = {key: normalise_layers(at_load, baseline, key) for key in LAYER_KEYS}
    entries = []
    for label, pts in zip(labels, points, strict=True):
        entry: dict[str, Any] = {
            "label": label,
            "values": at_load[label],
            "normalised": {
                layer: {key: by_key[key][label].get(layer) for key in LAYER_KEYS}
                for layer in present
            },
        }
        missing = _missing(pts)
        if missing:
            entry["missing"] = missing
        entries.append(entry)
    return {"load": dict(load or {}), "layers": present, "runs": entries}


def _missing(points: Sequence[Point]) -> dict[str, str]:
    """The first reason each layer went missing on a run's points."""
    out: dict[str, str] = {}
    for point in points:
        for layer, entry in (point.layers or {}).items():
            if "missing" in entry and layer not in out:
                out[layer] = str(entry["missing"])
    return out
