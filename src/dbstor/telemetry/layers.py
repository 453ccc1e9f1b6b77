"""A point's layers side by side: the client's and this host's figures beside Prometheus's.

The client layer is what dbstor's own load generator timed (fio's completion latency, or
the transaction latency of a database run); host_device is /proc's view of the target's
device; remote_device and storage come from Prometheus (telemetry.config.Layers). The
result is the plain dict a point keeps in results.json under "layers".
"""

from __future__ import annotations

from collections.abc import Mapping

from dbstor.results.model import Point
from dbstor.telemetry.sources import LAYERS


def client_layer(point: Point, source: str) -> dict[str, object]:
    """What the client measured: per-I/O figures for fio, the transaction's for a database
    (whose read and write figures are the device's, not the client's: host_device has them)."""
    entry: dict[str, object] = {"source": source}
    if point.tps is not None:
        entry["tps"] = point.tps
        if point.txn_lat_ms is not None and point.txn_lat_ms.mean is not None:
            entry["txn_latency_ms"] = point.txn_lat_ms.mean
        return entry
    for key in ("read_iops", "write_iops", "read_mbps", "write_mbps"):
        value = getattr(point, key)
        if value is not None:
            entry[key] = value
    if point.read_lat_ms is not None and point.read_lat_ms.mean is not None:
        entry["read_latency_ms"] = point.read_lat_ms.mean
    if point.write_lat_ms is not None and point.write_lat_ms.mean is not None:
        entry["write_latency_ms"] = point.write_lat_ms.mean
    if point.txn_lat_ms is not None and point.txn_lat_ms.mean is not None:
        entry["txn_latency_ms"] = point.txn_lat_ms.mean
    if point.tps is not None:
        entry["tps"] = point.tps
    return entry


def host_layer(point: Point) -> dict[str, object] | None:
    """This host's device and CPU as /proc saw them over the point, or None without a device."""
    dev = point.device
    if dev is None or dev.name is None:
        return None
    entry: dict[str, object] = {"source": "proc", "device": dev.name}
    pairs = {
        "read_iops": dev.read_iops,
        "write_iops": dev.write_iops,
        "read_mbps": dev.read_mbps,
        "write_mbps": dev.write_mbps,
        "read_latency_ms": dev.read_await_ms,
        "write_latency_ms": dev.write_await_ms,
        "cpu_util_pct": point.cpu.util_pct if point.cpu else None,
    }
    entry.update({k: v for k, v in pairs.items() if v is not None})
    nulled = {
        k: why
        for k, why in (
            ("read_latency_ms", dev.read_await_reason),
            ("write_latency_ms", dev.write_await_reason),
        )
        if why
    }
    if nulled:
        entry["nulled"] = nulled  # the shape Prometheus layers use (telemetry/sources.py)
    return entry


def point_layers(
    point: Point, client_source: str, prometheus: Mapping[str, dict[str, object]]
) -> dict[str, dict[str, object]]:
    """Every layer of one point, nearest the user first. A host_device layer read from
    Prometheus (node_exporter) stands beside /proc's as "host_device" only when /proc has
    none; /proc's figures win otherwise (they bound the window exactly)."""
    out: dict[str, dict[str, object]] = {"client": client_layer(point, client_source)}
    host = host_layer(point)
    if host is not None:
        out["host_device"] = host
    for layer, entry in prometheus.items():
        if layer not in out:
            out[layer] = dict(entry)
    return {layer: out[layer] for layer in LAYERS if layer in out}
