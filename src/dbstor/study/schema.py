"""The study file as a pydantic model, for the JSON Schema editors use to complete and
check study files (`dbstor study --schema`, docs/study.schema.json). It mirrors the tables
and keys study/load.py reads; load.py stays the checker that gives dbstor's one-line
messages (file, field, allowed values, did you mean), and a test keeps the two in step.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from dbstor.study.analyses import COMMANDS, STUDY_ONLY_KEYS, TABLES

Text = str | int | float  # a number or a string with a unit ("30s", "1GiB", "5%")
Series = list[int]
Paths = str | list[str]
SCHEMA_ID = "https://github.com/dbstor/dbstor/docs/study.schema.json"


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StudyTable(_Table):
    name: str | None = Field(None, description="the study's name (default: the file's name)")
    profiles: str | list[str] | None = Field(None, description="fio profiles to run")
    duration: Text | None = Field(None, description="each load point, e.g. 30s or 5m")
    warmup: Text | None = Field(None, description="warm-up before each point, e.g. 5s")
    repeats: int | None = Field(None, ge=1, description="times each point is measured")
    steady: Literal["auto", "off"] | None = Field(
        None, description="auto (default): each point runs until steady, up to max_duration"
    )
    max_duration: Text | None = Field(
        None, description="the longest a point may run to get steady, warm-up included, e.g. 2m"
    )
    size: Text | None = Field(None, description="fio's test data per target, e.g. 1GiB")
    precondition: bool | None = None
    baseline: str | None = Field(None, description="the label of the baseline target")
    data: str | None = Field(None, description='incompressible, "1.8:1[,dedupe=PCT]" or from:PATH')
    tags: dict[str, str | int | float] | None = Field(
        None, description='your own words on every run, e.g. {firmware = "9.14"}'
    )
    pdf: bool | None = Field(None, description="also print the report to report.pdf")


class SloTable(_Table):
    metric: str | None = Field(None, description="e.g. read_lat_p99_ms, read_lat_mean_ms")
    limit: Text | None = Field(None, description="the latency limit, e.g. 1ms or 20ms")


class LoadTable(_Table):
    kind: Literal["iodepth", "jobs", "rate", "auto"] | None = None
    values: Series | None = None
    jobs: int | None = Field(None, ge=1)
    iodepth: int | None = Field(None, ge=1)


class ClusterTable(_Table):
    address: str = Field(description="the Ray head, HOST:PORT")


class ProfileTable(_Table):
    based_on: str | None = Field(None, description="a built-in profile, e.g. io-oltp")
    description: str | None = None
    source: str | None = None
    pattern: Literal["random", "sequential"] | None = None
    read_pct: Text | None = None
    block_size: Text | None = None
    block_split: dict[str, Text] | None = None
    distribution: str | None = None
    files: int | None = Field(None, ge=1)
    fdatasync: int | None = Field(None, ge=0)
    ioengine: Literal["io_uring", "libaio", "psync", "sync", "posixaio"] | None = None
    load_kind: Literal["iodepth", "jobs"] | None = None
    series: Series | None = None
    slo_metric: str | None = None


class DatabaseTable(_Table):
    engine: str | None = Field(None, description="sqlite, postgres, mariadb, duckdb...")
    workload: str | None = Field(None, description="brokerage, orders, dss...")
    scale: Text | None = None
    users: int | Series | Literal["auto"] | None = Field(
        None, description='a list of users, or "auto": searched upward, then fractions of it'
    )
    instances: Series | Literal["auto"] | None = Field(
        None, description='a list of instance counts, or "auto": searched like users'
    )
    users_per_instance: int | None = Field(None, ge=1)
    rate: Series | None = None
    streams: Series | None = None
    think_time: Text | None = None
    dsn: str | None = Field(None, description="an external server; never with a password")
    dsn_env: str | None = Field(None, description="the environment variable holding the DSN")
    buffer: Text | None = None
    memory_limit: Text | None = None
    seed: int | None = Field(None, ge=1)
    options: dict[str, Any] | None = None
    client_processes: int | None = Field(None, ge=1)
    cold: bool | None = None
    query_timeout: Text | None = None
    place: dict[str, str] | None = Field(
        None, description='named tables or indexes on a role\'s path, e.g. {"t" = "fast"}'
    )


class TelemetryTable(_Table):
    prometheus: str | None = None
    storage: str | None = None
    storage_select: str | None = None
    storage_queries: dict[str, str] | None = None
    db_host: str | None = None
    db_host_queries: dict[str, str] | None = None
    db_host_preset: str | None = None
    host: str | None = None
    metrics_port: int | None = None
    metrics_address: str | None = Field(
        None, description="address the live figures listen on (default 127.0.0.1)"
    )
    step: Text | None = None


def _analysis_model(name: str) -> type[BaseModel]:
    """A model of a [capacity]/[efficiency]/[placement]/[tco] table from its key list."""
    kinds: dict[str, Any] = {
        "text": Text,
        "flag": bool,
        "label": str,
        "roles": Text | dict[str, Text],
    }
    command = COMMANDS[name]
    fields = {
        key: (
            kinds[kind] | None,
            Field(None, description=f"dbstor {command} --{key.replace('_', '-')}")
            if key not in STUDY_ONLY_KEYS
            else Field(None, description="a target's label"),
        )
        for key, kind in TABLES[name].items()
    }
    namespace: dict[str, Any] = {"__annotations__": {k: v[0] for k, v in fields.items()}}
    namespace.update({k: v[1] for k, v in fields.items()})
    namespace["__doc__"] = f"The flags of the matching command, dashes as underscores ({name})."
    return type(f"{name.title()}Table", (_Table,), namespace)


CapacityTable = _analysis_model("capacity")
EfficiencyTable = _analysis_model("efficiency")
PlacementTable = _analysis_model("placement")
TcoTable = _analysis_model("tco")


class TargetTable(_Table):
    label: str | None = Field(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
    path: str | None = None
    paths: list[str] | None = None
    facts: dict[str, Any] | None = None
    log: Paths | None = None
    temp: Paths | None = None
    fast: Paths | None = Field(
        None, description="the fast tier named tables and indexes are put on ([databases] place)"
    )
    hosts: list[str] | None = None
    clients: list[str] | None = None
    storage_class: str | None = Field(
        None, description="a Kubernetes storage class instead of paths (dbstor kube run)"
    )
    capacity: CapacityTable | None = None  # type: ignore[valid-type]
    efficiency: EfficiencyTable | None = None  # type: ignore[valid-type]
    placement: PlacementTable | None = None  # type: ignore[valid-type]


class ConsolidationTable(_Table):
    """Re-run the database on the new storage at the consolidated density (docs/tco.md)."""

    target: str | None = Field(None, description="the target re-run (default: [tco] after)")
    servers_after: int | None = Field(
        None, ge=1, description="servers after consolidating (default: the cost case's)"
    )
    duration: Text | None = Field(None, description="the verify point's duration")


class EventTable(_Table):
    """An event inside each point (docs/events.md): kind, at, every, for and its settings."""

    kind: str = Field(
        description="throttle, snapshot, command, drop-caches, fstrim, crash or checkpoint"
    )
    at: Text = Field(description="when, into the measured window, e.g. 10s")
    every: Text | None = Field(None, description="again every this long")
    for_: Text | None = Field(None, alias="for", description="how long it lasts (throttle)")
    iops: float | None = Field(None, gt=0, description="throttle: the device held to N IOPS")
    mbps: float | None = Field(None, gt=0, description="throttle: the device held to N MB/s")
    direction: str | None = Field(None, description="throttle: both, read or write")
    argv: list[str] | None = Field(None, description="command: the program and its arguments")
    timeout: Text | None = Field(None, description="command: its time limit (default 60s)")


class MixTable(_Table):
    """Workloads of the study started together on one storage, beside each alone (docs/mix.md)."""

    workloads: list[str] = Field(
        min_length=2, description="[[databases]] workloads and fio profiles run together"
    )


class StudyFile(_Table):
    """A dbstor study file (TOML): targets x profiles or databases over a load series."""

    study: StudyTable | None = None
    slo: SloTable | None = None
    load: LoadTable | None = None
    targets: list[TargetTable] = Field(min_length=1)
    profiles: dict[str, ProfileTable] | None = None
    databases: list[DatabaseTable] | None = None
    telemetry: TelemetryTable | None = None
    cluster: ClusterTable | None = None
    capacity: CapacityTable | None = None  # type: ignore[valid-type]
    efficiency: EfficiencyTable | None = None  # type: ignore[valid-type]
    placement: PlacementTable | None = None  # type: ignore[valid-type]
    tco: TcoTable | None = None  # type: ignore[valid-type]
    consolidation: ConsolidationTable | None = None
    events: list[EventTable] | None = None
    mix: MixTable | None = None


def study_schema() -> dict[str, Any]:
    """The JSON Schema of a study file (TOML has no null: a key left out is not given)."""
    schema = _without_null(StudyFile.model_json_schema())
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def _without_null(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_null(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_null(v) for k, v in node.items() if not (k == "default" and v is None)}
    options = [o for o in out.get("anyOf", []) if o != {"type": "null"}]
    if "anyOf" in out and len(options) == 1:
        del out["anyOf"]
        out.update(options[0])
    elif "anyOf" in out:
        out["anyOf"] = options
    return out
