"""A study's telemetry settings: from --prometheus/--storage/... or a [telemetry] table.

Plain settings, no credentials (those stay in the environment). telemetry/config.py's
Layers turns them into Prometheus sources; runs/telemetry.py into a run's layers and live
figures.
"""

from __future__ import annotations

import difflib
import ipaddress
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dbstor.errors import UserError
from dbstor.units import parse_duration

TABLE_KEYS = {
    "prometheus",
    "storage",
    "storage_select",
    "storage_queries",
    "db_host",
    "db_host_queries",
    "db_host_preset",
    "host",
    "metrics_port",
    "metrics_address",
    "step",
}


@dataclass(frozen=True)
class TelemetryConfig:
    """Telemetry settings of a run. `storage` is a preset name or a preset file's path;
    `db_host`/`host` are label selections of node_exporter series (the database server's
    device, this host's device as Prometheus sees it). `storage_queries`/`db_host_queries`
    are the user's own PromQL by key (read_latency_us -> PromQL, docs/telemetry.md): alone
    they are the layer's preset, beside a preset they replace or add to its quantities."""

    prometheus: str | None = None
    storage: str | None = None
    storage_select: str = ""
    db_host: str | None = None
    db_host_preset: str = "node-exporter"
    host: str | None = None
    metrics_port: int | None = None
    metrics_address: str | None = None  # where --metrics-port listens (None: 127.0.0.1)
    step_s: float = 1.0
    storage_queries: Mapping[str, str] = field(default_factory=dict)
    db_host_queries: Mapping[str, str] = field(default_factory=dict)
    origin: str = field(default="", compare=False)  # the study file ("" for flags), for messages

    def __post_init__(self) -> None:
        texts = ("prometheus", "storage", "storage_select", "db_host", "db_host_preset", "host")
        for key in (*texts, "metrics_address"):
            value = getattr(self, key)
            flag = "--" + key.replace("_", "-")
            if value is not None and not value.strip() and key != "storage_select":
                raise UserError(f"{flag} is empty: give a value or leave it out")
            if value is not None and not value.isprintable():
                raise UserError(f"{flag} {value!r} holds a control character: remove it")
        if self.prometheus is not None:
            check_url(self.prometheus)
        needs = [
            (self.storage, "--storage"),
            (self.storage_queries, "--storage-query"),
            (self.db_host, "--db-host"),
            (self.db_host_queries, "--db-host-query"),
            (self.host, "host"),
        ]
        for value, flag in needs:
            if value and not self.prometheus:
                raise UserError(f"{flag} needs --prometheus URL (the Prometheus that scrapes it)")
        if self.storage_select and not self.storage:
            if self.storage_queries:
                raise UserError(
                    "--storage-select picks a preset's series; with --storage-query alone "
                    "write the labels into each query"
                )
            raise UserError("--storage-select needs --storage PRESET (e.g. ontap-harvest, purefa)")
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise UserError(f"--metrics-port {self.metrics_port} is not a port number (0-65535)")
        if self.metrics_address is not None:
            check_listen_address(self.metrics_address, self.metrics_port)
        if self.step_s <= 0:
            raise UserError("telemetry step must be above zero, e.g. 1s")

    @property
    def reads_prometheus(self) -> bool:
        return bool(
            self.storage
            or self.db_host
            or self.host
            or self.storage_queries
            or self.db_host_queries
        )

    def describe(self) -> dict[str, Any]:
        """Plain data for the run's header (the URL carries no credentials: they are refused)."""
        return {
            k: dict(v) if isinstance(v, Mapping) else v
            for k, v in self.__dict__.items()
            if v not in (None, "") and not (isinstance(v, Mapping) and not v) and k != "origin"
        }


def check_listen_address(address: str, port: int | None) -> None:
    """--metrics-address: an IP address of this host, and only beside --metrics-port."""
    if port is None:
        raise UserError("--metrics-address needs --metrics-port N (the port to serve on)")
    try:
        ipaddress.ip_address(address)
    except ValueError:
        raise UserError(
            f"--metrics-address {address!r} is not an IP address: give one of this host's, "
            "e.g. 10.0.0.5, or 0.0.0.0 for every interface (the default is 127.0.0.1)"
        ) from None


def config_from_table(table: Any, source: str) -> TelemetryConfig:
    """A study file's [telemetry] table; errors name the file and the field."""
    if not isinstance(table, Mapping):
        raise UserError(f"{source}: telemetry: must be a table")
    unknown = sorted(set(table) - TABLE_KEYS)
    if unknown:
        hint = difflib.get_close_matches(unknown[0], TABLE_KEYS, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise UserError(
            f"{source}: telemetry.{unknown[0] if unknown[0].isprintable() else repr(unknown[0])}: "
            f"unknown field{extra}; "
            f"allowed: {', '.join(sorted(TABLE_KEYS))}"
        )
    if "db_host_preset" in table and "db_host" not in table:  # else silently unused
        raise UserError(
            f"{source}: telemetry.db_host_preset: needs db_host (the host it describes)"
        )
    values: dict[str, Any] = {}
    strings = ("prometheus", "storage", "storage_select", "db_host", "db_host_preset", "host")
    for key in (*strings, "metrics_address"):
        if key in table:
            if not isinstance(table[key], str):
                raise UserError(f"{source}: telemetry.{key}: must be a string")
            values[key] = table[key]
    for key in ("storage_queries", "db_host_queries"):
        if key in table:
            queries = table[key]
            if not isinstance(queries, Mapping) or not all(
                isinstance(q, str) for q in queries.values()
            ):
                raise UserError(
                    f"{source}: telemetry.{key}: must be a table of PromQL strings, "
                    "e.g. read_latency_us = 'avg(...)'"
                )
            values[key] = dict(queries)
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
        config = TelemetryConfig(**values, origin=source)
    except UserError as exc:
        raise UserError(f"{source}: telemetry: {exc}") from None
    if config.prometheus and not config.reads_prometheus:  # else silently unused
        raise UserError(
            f"{source}: telemetry.prometheus: reads nothing alone; add storage, db_host or host "
            "(or their queries), or drop it"
        )
    return config


def check_url(url: str) -> None:
    """A Prometheus URL: http(s) with a host (credentials are refused by the client)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"--prometheus {url!r} is not an http(s) URL; give e.g. http://prom:9090")


def queries_name(config: TelemetryConfig, layer: str) -> str:
    """How messages name a layer's own queries: the flag, or the study file's table."""
    flag, key = {
        "storage": ("--storage-query", "storage_queries"),
        "remote_device": ("--db-host-query", "db_host_queries"),
    }[layer]
    return f"{config.origin}: telemetry.{key}" if config.origin else flag
