"""The study model: targets x profiles x a load series, with durations and the SLO."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbstor.study.data import DataPattern
from dbstor.study.events import EventSpec, check_events
from dbstor.study.mix import MixSpec, check_mix
from dbstor.study.profiles import Profile
from dbstor.study.telemetry import TelemetryConfig

LATENCY_STATS = ("mean", "p50", "p95", "p99", "p999")
SLO_METRICS = tuple(
    f"{direction}_lat_{stat}_ms" for direction in ("read", "write", "txn") for stat in LATENCY_STATS
)
SERIES_KINDS = ("iodepth", "jobs", "rate", "auto")
DATABASE_SERIES_KINDS = ("users", "instances", "rate", "streams")
DEFAULT_RATE_USERS = 32  # users serving an open-loop rate when none are given
DEFAULT_SLO_LIMIT_MS = 1.0  # TR-4403 and TR-4415 report the load reached "under 1 ms"


@dataclass(frozen=True)
class Slo:
    """The latency limit: which latency (e.g. read p99) and its limit in ms."""

    metric: str = "read_lat_p99_ms"
    limit_ms: float = DEFAULT_SLO_LIMIT_MS

    def describe(self) -> str:
        direction, _, stat, _ = self.metric.split("_")
        stat_text = {"mean": "average", "p999": "p99.9"}.get(stat, stat)
        direction = {"txn": "transaction"}.get(direction, direction)
        return f"{stat_text} {direction} latency {self.limit_ms:g} ms"


@dataclass(frozen=True)
class Target:
    label: str
    paths: tuple[Path, ...]  # the data paths (fio's test files go here)
    facts: dict[str, Any] = field(default_factory=dict)
    log: tuple[Path, ...] = ()  # a database's log (WAL, redo) when on its own volume
    temp: tuple[Path, ...] = ()  # temp space (tempdb, temp tablespaces)
    fast: tuple[Path, ...] = ()  # a faster tier for the objects [databases] place names
    hosts: tuple[str, ...] = ()  # with [cluster]: the hosts measuring this target together
    clients: tuple[str, ...] = ()  # with [cluster]: client hosts driving one external server
    analyses: dict[str, dict[str, Any]] = field(default_factory=dict)  # its own capacity = {..}

    @property
    def roles(self) -> dict[str, list[Path]]:
        roles = {"data": list(self.paths), "log": list(self.log), "temp": list(self.temp)}
        roles["fast"] = list(self.fast)
        return {role: paths for role, paths in roles.items() if paths}


@dataclass(frozen=True)
class LoadSeries:
    """How load rises: queue depth per job, number of jobs, a target IOPS, or auto."""

    kind: str  # iodepth | jobs | rate | auto | users | instances
    values: tuple[int, ...] = ()
    jobs: int = 1  # jobs at every point of an iodepth or rate series
    iodepth: int = 1  # queue depth at every point of a jobs series
    users: int = 1  # users per instance at every point of an instances or a database rate series
    rate_unit: str = "IOPS"  # what a rate counts: IOPS (fio) or TPS (a database)
    # a database's users or instances "auto": searched upward, then fractions of what was
    # found (runs/auto_search.py); values is then empty
    auto: bool = False

    def label(self, value: float) -> str:
        prefix = {
            "iodepth": "QD",
            "jobs": "jobs ",
            "rate": "",
            "users": "users ",
            "instances": "instances ",
            "streams": "streams ",
        }.get(self.kind, "")
        suffix = f" {self.rate_unit}" if self.kind == "rate" else ""
        return f"{prefix}{value:g}{suffix}"


DEFAULT_ENGINE = "sqlite"  # embedded: runs anywhere, no server to install


@dataclass(frozen=True)
class DatabaseSpec:
    """A real database on each target: engine x workload x scale over a users, instances,
    rate (open loop, transactions per second) or streams (query workloads) series."""

    engine: str = DEFAULT_ENGINE
    workload: str = "brokerage"
    scale: float | None = None  # None: the workload's default scale
    series: LoadSeries = LoadSeries(kind="users", values=(1, 2, 4, 8, 16))
    think_time_ms: float = 0.0
    client_processes: int = 1  # client processes the virtual users are spread over
    cold: bool = False  # query workloads: restart the engine and drop cached files per point
    query_timeout_s: float | None = None  # query workloads: a query running longer fails
    dsn: str | None = None  # an external server; may hold a password, never written out
    buffer_bytes: int | None = None
    memory_limit_bytes: int | None = None
    seed: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    place: dict[str, str] = field(default_factory=dict)  # table/index glob -> target role

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "workload": self.workload,
            "scale": self.scale,
            "series": {
                "kind": self.series.kind,
                "values": list(self.series.values),
                "users": self.series.users,
                **({"auto": True} if self.series.auto else {}),
            },
            "think_time_ms": self.think_time_ms,
            "client_processes": self.client_processes,
            "cold": self.cold,
            "query_timeout_s": self.query_timeout_s,
            "external": self.dsn is not None,
            "buffer_bytes": self.buffer_bytes,
            "memory_limit_bytes": self.memory_limit_bytes,
            "seed": self.seed,
            "options": self.options,
        } | ({"place": dict(self.place)} if self.place else {})


STEADY_MODES = ("auto", "off")
STEADY_DEFAULT_ROUNDS = 4  # the default maximum: the warm-up and four measured windows
STEADY_SETTLE_S = 1.0  # before each further window (runs/database/steady.py), in the maximum


@dataclass(frozen=True)
class Consolidation:
    """[consolidation]: re-run the database on the new storage at the consolidated density
    (study/consolidation.py)."""

    target: str | None = None
    servers_after: int | None = None
    duration_s: float | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "servers_after": self.servers_after,
            "duration_s": self.duration_s,
        }


@dataclass(frozen=True)
class Study:
    name: str
    targets: tuple[Target, ...]
    profiles: tuple[Profile, ...]
    series: LoadSeries | None = None  # None: each profile's default series
    duration_s: float = 30.0
    warmup_s: float = 5.0
    repeats: int = 1
    steady: str = "auto"  # auto: each point held until steady, up to max_duration; off: fixed
    max_duration_s: float | None = None  # None: steady_limit_s()'s default
    file_size: int = 1024**3
    slo_metric: str | None = None  # None: each profile's own (read p99; io-log: write p99)
    slo_limit_ms: float = DEFAULT_SLO_LIMIT_MS
    precondition: bool = False
    baseline: str | None = None  # label of the baseline target; default the first
    source: str = "built-in"
    databases: tuple[DatabaseSpec, ...] = ()
    data: DataPattern = field(default_factory=DataPattern)  # what the io profiles write
    telemetry: TelemetryConfig | None = None  # Prometheus layers, live figures
    cluster: str | None = None  # the Ray head HOST:PORT: targets measured on their hosts
    tags: dict[str, str] = field(default_factory=dict)  # the user's KEY=VALUE words
    analyses: dict[str, dict[str, Any]] = field(default_factory=dict)  # [capacity], [tco]...
    consolidation: Consolidation | None = None  # [consolidation]: verify the cost case
    pdf: bool = False  # [study] pdf = true: report.pdf beside report.html (headless Chromium)
    events: tuple[EventSpec, ...] = ()  # [[events]] / --event: what happens inside each point
    mix: MixSpec | None = None  # [mix]: workloads started together, beside each alone

    def __post_init__(self) -> None:
        check_events(self)  # every way a study is made refuses the same events
        check_mix(self)

    def analysis_table(self, name: str, target: Target | None = None) -> dict[str, Any] | None:
        """A [capacity]/[efficiency]/[placement]/[tco] table, a target's own keys over the
        study's; None when neither gives one."""
        own = target.analyses.get(name) if target is not None else None
        if name not in self.analyses and own is None:
            return None
        return {**self.analyses.get(name, {}), **(own or {})}

    def steady_limit_s(self) -> float | None:
        """How long a point may run to get steady (warm-up included); None: points are
        held for their duration only (steady = "off")."""
        if self.steady == "off":
            return None
        if self.max_duration_s is not None:
            return self.max_duration_s
        rounds = STEADY_DEFAULT_ROUNDS
        return self.warmup_s + rounds * self.duration_s + (rounds - 1) * STEADY_SETTLE_S

    def steady_problem(self, least_words: str) -> str | None:
        """Why max_duration cannot hold a point (shorter than the warm-up and one window).
        Query points (a streams series) have neither: they run rounds of their queries."""
        least = self.warmup_s + self.duration_s
        if self.max_duration_s is None or self.max_duration_s >= least:
            return None
        if not self.profiles and all(d.series.kind == "streams" for d in self.databases):
            return None
        return (
            f"{self.max_duration_s:g}s is shorter than {least_words} ({least:g}s): "
            f"give at least {least:g}s"
        )

    def series_for(self, profile: Profile) -> LoadSeries:
        if self.series is not None:
            return self.series
        return LoadSeries(kind=profile.load_kind, values=profile.default_series)

    def slo_for(self, profile: Profile) -> Slo:
        return Slo(metric=self.slo_metric or profile.slo_metric, limit_ms=self.slo_limit_ms)

    def slo_for_database(self) -> Slo:
        """A database run's SLO: by default the average read latency the host saw at the
        device, as the seeds' server-side read latency (perfmon's Avg. Disk sec/Read)."""
        return Slo(metric=self.slo_metric or "read_lat_mean_ms", limit_ms=self.slo_limit_ms)

    def describe(self) -> dict[str, Any]:
        """The resolved study as plain data (no secrets live in a study)."""
        return (
            {
                "name": self.name,
                "source": self.source,
                "targets": [
                    {
                        "label": t.label,
                        "paths": {r: [str(p) for p in ps] for r, ps in t.roles.items()},
                        "facts": t.facts,
                    }
                    | ({"hosts": list(t.hosts)} if t.hosts else {})
                    | ({"clients": list(t.clients)} if t.clients else {})
                    for t in self.targets
                ],
                "profiles": [p.name for p in self.profiles],
                "series": None
                if self.series is None
                else {
                    "kind": self.series.kind,
                    "values": list(self.series.values),
                    "jobs": self.series.jobs,
                    "iodepth": self.series.iodepth,
                },
                "duration_s": self.duration_s,
                "warmup_s": self.warmup_s,
                "repeats": self.repeats,
                "steady": self.steady,
                "max_duration_s": self.steady_limit_s(),
                "file_size_bytes": self.file_size,
                "slo": {"metric": self.slo_metric, "limit_ms": self.slo_limit_ms},
                "precondition": self.precondition,
                "data": self.data.describe(),
                "baseline": self.baseline,
                "databases": [d.describe() for d in self.databases],
                "tags": dict(self.tags),
            }
            | ({"telemetry": self.telemetry.describe()} if self.telemetry else {})
            | ({"cluster": self.cluster} if self.cluster else {})
            | ({"consolidation": self.consolidation.describe()} if self.consolidation else {})
            | ({"events": [e.to_dict() for e in self.events]} if self.events else {})
            | ({"mix": self.mix.describe()} if self.mix else {})
        )
