"""Telemetry from Prometheus: an HTTP API client, exporter presets as data, and the source.

See docs/telemetry.md. The presets live in exporters/*.toml, one per exporter, each citing
the exporter's documentation for its metric names and units.
"""

from dbstor.telemetry.prometheus.client import PrometheusClient, PrometheusError
from dbstor.telemetry.prometheus.presets import Preset, QuerySpec, load_preset, preset_names
from dbstor.telemetry.prometheus.source import PrometheusSource

__all__ = [
    "Preset",
    "PrometheusClient",
    "PrometheusError",
    "PrometheusSource",
    "QuerySpec",
    "load_preset",
    "preset_names",
]
