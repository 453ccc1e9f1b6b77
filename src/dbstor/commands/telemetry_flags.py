"""The telemetry flags of `dbstor io` and `dbstor run`: Prometheus layers and live figures."""

from __future__ import annotations

import argparse
import dataclasses

from dbstor.commands.flagtypes import PORT
from dbstor.errors import UserError
from dbstor.study.model import Study
from dbstor.study.telemetry import TelemetryConfig


def add_telemetry_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "telemetry beyond this host (see docs/telemetry.md)",
        "Credentials for Prometheus come from DBSTOR_PROMETHEUS_TOKEN, or "
        "DBSTOR_PROMETHEUS_USER and DBSTOR_PROMETHEUS_PASSWORD.",
    )
    group.add_argument(
        "--prometheus",
        metavar="URL",
        help="the Prometheus that scrapes the storage and database-host exporters, e.g. http://prom:9090",
    )
    group.add_argument(
        "--storage",
        metavar="PRESET",
        help="the storage system's exporter: ontap-harvest, ontap-harvest-lun, purefa, "
        "powerstore-csm, powerflex-csm, or a preset .toml of your own",
    )
    group.add_argument(
        "--storage-select",
        metavar="LABELS",
        default="",
        help="which of its series are the target, e.g. 'volume=\"sqldata\"'",
    )
    group.add_argument(
        "--storage-query",
        action="append",
        default=[],
        metavar="KEY=PROMQL",
        help="your own PromQL for one of the storage system's quantities, the key naming it "
        "and its unit: read_latency_us=, read_iops=, read_ops_total=, ... (repeatable; "
        "see docs/telemetry.md)",
    )
    group.add_argument(
        "--db-host",
        metavar="LABELS",
        help='the database server\'s node_exporter series, e.g. \'instance="dbhost:9100",device="sdb"\'',
    )
    group.add_argument(
        "--db-host-query",
        action="append",
        default=[],
        metavar="KEY=PROMQL",
        help="your own PromQL for one of the database host device's quantities, as --storage-query",
    )
    group.add_argument(
        "--metrics-port",
        type=PORT,
        metavar="N",
        help="serve dbstor's live figures for Prometheus at http://127.0.0.1:N/metrics",
    )
    group.add_argument(
        "--metrics-address",
        metavar="IP",
        help="listen for --metrics-port on this address instead of 127.0.0.1 "
        "(e.g. a private one, so that a Prometheus on another host can scrape)",
    )


def telemetry_from_args(args: argparse.Namespace) -> TelemetryConfig | None:
    """The flags' settings, or None when none was given."""
    storage_queries = _queries(args.storage_query, "--storage-query")
    db_host_queries = _queries(args.db_host_query, "--db-host-query")
    given = (args.prometheus, args.storage, args.storage_select, args.db_host, args.metrics_port)
    given += (args.metrics_address,)
    if all(v in (None, "") for v in given) and not storage_queries and not db_host_queries:
        return None
    return TelemetryConfig(
        prometheus=args.prometheus,
        storage=args.storage,
        storage_select=args.storage_select or "",
        db_host=args.db_host,
        metrics_port=args.metrics_port,
        metrics_address=args.metrics_address,
        storage_queries=storage_queries,
        db_host_queries=db_host_queries,
    )


def _queries(given: list[str] | None, flag: str) -> dict[str, str]:
    """KEY=PROMQL flags by key; a key given twice is one line."""
    from dbstor.telemetry.prometheus.own import split_query  # Prometheus's client when used

    out: dict[str, str] = {}
    for text in given or ():
        key, query = split_query(text, flag)
        if key in out:
            raise UserError(f"{flag} {key} is given twice; give it once")
        out[key] = query
    return out


def with_telemetry(study: Study, args: argparse.Namespace) -> Study:
    """The study with the flags' telemetry, which replaces a study file's [telemetry] table."""
    config = telemetry_from_args(args)
    return study if config is None else dataclasses.replace(study, telemetry=config)
