"""What a run reads beyond /proc, and serves: from --prometheus/--storage/... or a [telemetry] table.

TelemetryConfig is plain settings (no credentials: those stay in the environment);
Layers builds the Prometheus sources from it, runs their preflight before any load and
fetches each point's window, giving per point the layers side by side for results.json.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.client import PrometheusClient
from dbstor.telemetry.prometheus.presets import load_preset
from dbstor.telemetry.prometheus.source import PrometheusSource
from dbstor.telemetry.sources import Fetched, Source, layers_side_by_side
from dbstor.units import parse_duration

TABLE_KEYS = {
    "prometheus",
    "storage",
    "storage_select",
    "db_host",
    "db_host_preset",
    "host",
    "metrics_port",
    "step",
}


@dataclass(frozen=True)
class TelemetryConfig:
    """Telemetry settings of a run. `storage` is a preset name or a preset file's path;
    `db_host`/`host` are label selections of node_exporter series (the database server's
    device, this host's device as Prometheus sees it)."""

    prometheus: str | None = None
    storage: str | None = None
    storage_select: str = ""
    db_host: str | None = None
    db_host_preset: str = "node-exporter"
    host: str | None = None
    metrics_port: int | None = None
    step_s: float = 1.0

    def __post_init__(self) -> None:
        needs = [
            (self.storage, "--storage"),
            (self.db_host, "--db-host"),
            (self.host, "host"),
        ]
        for value, flag in needs:
            if value and not self.prometheus:
                raise UserError(f"{flag} needs --prometheus URL (the Prometheus that scrapes it)")
        if self.storage_select and not self.storage:
            raise UserError("--storage-select needs --storage PRESET (e.g. ontap-harvest, purefa)")
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise UserError(f"--metrics-port {self.metrics_port} is not a port number (0-65535)")
        if self.step_s <= 0:
            raise UserError("telemetry step must be above zero, e.g. 1s")

    @property
    def reads_prometheus(self) -> bool:
        return bool(self.storage or self.db_host or self.host)

    def describe(self) -> dict[str, Any]:
        """Plain data for the run's header (the URL carries no credentials: they are refused)."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}


def config_from_table(table: Any, source: str) -> TelemetryConfig:
    """A study file's [telemetry] table; errors name the file and the field."""
    if not isinstance(table, Mapping):
        raise UserError(f"{source}: telemetry: must be a table")
    unknown = sorted(set(table) - TABLE_KEYS)
    if unknown:
        hint = difflib.get_close_matches(unknown[0], TABLE_KEYS, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise UserError(
            f"{source}: telemetry.{unknown[0]}: unknown field{extra}; "
            f"allowed: {', '.join(sorted(TABLE_KEYS))}"
        )
    values: dict[str, Any] = {}
    for key in ("prometheus", "storage", "storage_select", "db_host", "db_host_preset", "host"):
        if key in table:
            if not isinstance(table[key], str):
                raise UserError(f"{source}: telemetry.{key}: must be a string")
            values[key] = table[key]
    if "metrics_port" in table:
        port = table["metrics_port"]
        if not isinstance(port, int) or isinstance(port, bool):
            raise UserError(f"{source}: telemetry.metrics_port: must be a port number")
        values["metrics_port"] = port
    if "step" in table:
        try:
            values["step_s"] = parse_duration(str(table["step"]))
        except ValueError as exc:
            raise UserError(f"{source}: telemetry.step: {exc}") from None
    try:
        return TelemetryConfig(**values)
    except UserError as exc:
        raise UserError(f"{source}: telemetry: {exc}") from None


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
        if config.db_host:
            preset = load_preset(config.db_host_preset)
            self.sources.append(PrometheusSource(client, preset, config.db_host, "remote_device"))
        if config.storage:
            preset = load_preset(config.storage)
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
