"""Layers: a study's telemetry settings turned into Prometheus sources (docs/telemetry.md).

Layers builds the sources from TelemetryConfig (study/telemetry.py), runs their preflight
before any load and fetches each point's window, giving per point the layers side by
side for results.json.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from dbstor.study.telemetry import TelemetryConfig, queries_name
from dbstor.telemetry.prometheus.client import PrometheusClient
from dbstor.telemetry.prometheus.own import own_preset, with_own_queries
from dbstor.telemetry.prometheus.presets import Preset, load_preset
from dbstor.telemetry.prometheus.source import PrometheusSource
from dbstor.telemetry.sources import Fetched, Source, layers_side_by_side

__all__ = ["Layers", "TelemetryConfig"]


class Layers:
    """The Prometheus sources of one run: preflight once, then one fetch per point."""

    def __init__(
        self,
        config: TelemetryConfig,
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.config = config
        self.sources: list[Source] = []
        if not config.reads_prometheus or not config.prometheus:
            return
        client = PrometheusClient(config.prometheus, env=env, timeout=timeout)
        if config.host:
            preset = load_preset(config.db_host_preset)
            self.sources.append(PrometheusSource(client, preset, config.host, "host_device"))
        if config.db_host or config.db_host_queries:
            base = load_preset(config.db_host_preset) if config.db_host else None
            where = queries_name(config, "remote_device")
            preset = _with_own(base, config.db_host_queries, "remote_device", where)
            self.sources.append(
                PrometheusSource(client, preset, config.db_host or "", "remote_device")
            )
        if config.storage or config.storage_queries:
            base = load_preset(config.storage) if config.storage else None
            where = queries_name(config, "storage")
            preset = _with_own(base, config.storage_queries, "storage", where)
            self.sources.append(PrometheusSource(client, preset, config.storage_select, "storage"))

    def __bool__(self) -> bool:
        return bool(self.sources)

    def preflight(self, window_s: float) -> None:
        """Every configured query once, before any load; UserError (one line) on the first fault."""
        for source in self.sources:
            source.preflight(window_s)

    def fetch(self, start: float, end: float) -> list[Fetched]:
        """Each source over one point's measured window [start, end] (epoch seconds)."""
        return [s.fetch(start, end, self.config.step_s) for s in self.sources]

    @property
    def spacing_s(self) -> float | None:
        """The widest spacing between samples preflight saw, None before it or unknown."""
        known = [s for s in (getattr(x, "spacing_s", None) for x in self.sources) if s is not None]
        return max(known) if known else None

    @property
    def settle_s(self) -> float:
        """How long after a window's end its last samples take to land in Prometheus: the
        widest sample spacing preflight saw (one step before preflight), plus half a second."""
        spacings = [getattr(s, "spacing_s", None) for s in self.sources]
        known = [s for s in spacings if s is not None]
        return (max(known) if known else self.config.step_s) + 0.5

    def point_layers(
        self,
        start: float,
        end: float,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> dict[str, dict[str, object]]:
        """The Prometheus layers of one point, by layer, missing ones with their reason;
        waits first until the window's last samples have landed (settle_s after its end)."""
        wait = end + self.settle_s - clock()
        if wait > 0:
            sleep(wait)
        return layers_side_by_side(self.fetch(start, end))


def _with_own(base: Preset | None, queries: Mapping[str, str], layer: str, flag: str) -> Preset:
    """The layer's preset: `base`, the user's own queries, or `base` with them in."""
    if base is None:
        return own_preset(queries, layer, flag)
    return with_own_queries(base, queries, layer, flag) if queries else base
