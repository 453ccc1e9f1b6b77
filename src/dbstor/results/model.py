"""The results contract (schema 1): what a run folder's results.json holds.

Fields that do not apply are None (null), never invented. Points are appended as they
finish; peak and knee are recomputed from the points each time the file is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from dbstor.errors import PointFailed, UserError
from dbstor.results.checks import CHECKS, FieldError, check_header, check_value, json_repr

SCHEMA_VERSION = 1
LOAD_KINDS = ("iodepth", "jobs", "rate", "users", "instances", "streams")
# one telemetry sample's figures (telemetry/sampler.py), the columns of samples.csv it fills
SAMPLE_KEYS = (
    "t_s",
    "cpu_util_pct",
    "cpu_user_pct",
    "cpu_system_pct",
    "cpu_iowait_pct",
    "dev_read_iops",
    "dev_write_iops",
    "dev_read_mbps",
    "dev_write_mbps",
    "dev_read_await_ms",
    "dev_write_await_ms",
    "dev_util_pct",
)


@dataclass
class LatencyStats:
    """Latency summary in milliseconds; `count` is how many operations it rests on."""

    mean: float | None = None
    p50: float | None = None
    p95: float | None = None
    p99: float | None = None
    p999: float | None = None
    max: float | None = None
    count: int = 0


@dataclass
class Load:
    """A load point's level; for kind 'rate' the value is the rate asked for, per second."""

    kind: str
    value: float
    jobs: int = 1


@dataclass
class DeviceStats:
    """What /proc/diskstats saw for the target's device(s) during the measured window."""

    name: str | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    read_mbps: float | None = None
    write_mbps: float | None = None
    read_await_ms: float | None = None
    write_await_ms: float | None = None
    util_pct: float | None = None
    # why an await is null though the device did I/O of that kind (telemetry/disk.py)
    read_await_reason: str | None = None
    write_await_reason: str | None = None
    # the workload's shape at the device over the window (telemetry/disk.py): the share of
    # its I/Os that were reads (0-1), the mean read and write size in KiB, and the mean
    # number of I/Os in its queue (iostat's aqu-sz: /proc/diskstats' weighted time in
    # queue over the window's time); None where the device did no I/O of that kind
    read_share: float | None = None
    read_kib_mean: float | None = None
    write_kib_mean: float | None = None
    queue_depth_mean: float | None = None


@dataclass
class CpuStats:
    util_pct: float | None = None
    user_pct: float | None = None
    system_pct: float | None = None
    iowait_pct: float | None = None
    # the run's own processes (analysis/attribution.py), % of all the host's cores
    own_pct: float | None = None  # server + client processes
    server_pct: float | None = None  # a managed server's processes (None: embedded engine)
    client_pct: float | None = None  # dbstor's driver and client processes (embedded engines)
    other_pct: float | None = None  # the host's util_pct less own_pct: other work
    own_source: str | None = None  # cgroup v1 cpuacct, v2 cpu.stat or /proc/PID/stat


@dataclass
class Trust:
    """How far a point's numbers can be trusted."""

    steady: bool | None = None  # IOPS slope over the last window within bounds
    slope_pct: float | None = None  # IOPS change over the last window, % of the mean
    read_ops: int = 0
    write_ops: int = 0
    p999_trusted: bool = False  # enough operations for a p99.9
    p99_trusted: bool = False
    noisy: bool = False  # repeats differ by more than 10%
    notes: list[str] = field(default_factory=list)
    # held until steady (docs/results.md): rounds of the measured window run, seconds the
    # point ran (warm-up and every round), its maximum; null: the point ran its duration
    rounds: int | None = None
    ran_s: float | None = None
    max_s: float | None = None


@dataclass
class Spread:
    minimum: float
    median: float
    maximum: float


@dataclass
class Point:
    load: Load
    duration_s: float
    warmup_s: float = 0.0
    status: str = "ok"  # ok | failed | interrupted (dbstor stood still during it: paused_s)
    error: str | None = None
    series: str = "main"  # main | discovery (auto mode's search for the peak)
    tps: float | None = None
    tpm: float | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    read_mbps: float | None = None
    write_mbps: float | None = None
    read_lat_ms: LatencyStats | None = None
    write_lat_ms: LatencyStats | None = None
    txn_lat_ms: LatencyStats | None = None  # open loop: from each transaction's intended start
    service_lat_ms: LatencyStats | None = None  # open loop: from pick-up to commit
    device: DeviceStats | None = None
    cpu: CpuStats | None = None
    cache_hit_ratio: float | None = None
    txn_types: dict[str, LatencyStats] | None = None  # per transaction type
    engine_io: dict[str, float | None] | None = None  # engine counters over the point, per txn
    # the engine's own waits, rates and ratios over the window (engines/window.py's shape)
    engine_window: dict[str, Any] | None = None
    workload_metrics: dict[str, float] | None = None  # the workload's own figures, e.g. NOPM
    client: dict[str, Any] | None = None  # the load generator: processes, CPU, memory per user
    open_loop: dict[str, Any] | None = None  # rate points: arrivals due, achieved, backlog
    queries: list[dict[str, Any]] | None = None  # query workloads: one entry per query run
    errors: int = 0
    retries: int = 0  # retried transactions (serialisation failures, deadlocks, busy)
    error_messages: list[str] = field(default_factory=list)
    saturated: bool = False
    saturation_reason: str | None = None
    # a closed-loop database point: the figures whose CPU saturated was decided from, and
    # the decision (runs/database/saturation.py): by server, client, host or None
    saturation: dict[str, Any] | None = None
    repeats: int = 1
    iops_spread: Spread | None = None
    tps_spread: Spread | None = None  # database and query points measured more than once
    trust: Trust = field(default_factory=Trust)
    # how sure the throughput is (analysis/interval.py): "tps"/"iops" -> mean, se, df, method
    uncertainty: dict[str, dict[str, Any]] | None = None
    started_at: str | None = None
    wall_s: float | None = None
    hosts: list[dict[str, Any]] | None = None  # a cluster point: each host's own figures
    start_skew_ms: float | None = None  # a cluster point: last host's start - first host's
    # With telemetry beyond this host (docs/telemetry.md): the point by layer (client,
    # host_device, remote_device, storage), each with its source and figures or `missing`.
    layers: dict[str, dict[str, Any]] | None = None
    paused_s: float | None = None  # how long dbstor stood still during it (runs/pauses.py)
    # The run's own processes' block I/O (analysis/attribution.py, docs/results.md) and the
    # share of the device's I/O in the window that was not theirs (null: foreign_io_reason).
    own_io: dict[str, Any] | None = None
    foreign_io_share: float | None = None
    foreign_io_reason: str | None = None
    shared_device: bool = False  # foreign_io_share over 10%
    # a database point's write bursts (checkpoints) in its per-second device writes:
    # count, period_s, mb_mean, peak_mbps, base_mbps, starts_s (analysis/bursts.py)
    write_bursts: dict[str, Any] | None = None
    # each role's device over the point's window (telemetry/roles.py): data, log, temp, fast
    roles: dict[str, dict[str, Any]] | None = None
    # Events inside the point (study/events.py): what happened and the load's dip and
    # recovery around each (events/impact.py); None when the study names no events.
    events: list[dict[str, Any]] | None = None

    @property
    def iops(self) -> float | None:
        """Reads plus writes per second; None when neither was measured (a target with no
        block device under it): missing is never 0."""
        if self.read_iops is None and self.write_iops is None:
            return None
        return (self.read_iops or 0.0) + (self.write_iops or 0.0)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


CLUSTER_POINT_FIELDS = ("hosts", "start_skew_ms")


@dataclass
class Run:
    run_id: str
    tool_version: str
    study: dict[str, Any]
    target: dict[str, Any]
    engine: dict[str, Any]
    workload: dict[str, Any]
    host: dict[str, Any]
    slo: dict[str, Any]
    created_at: str
    points: list[Point] = field(default_factory=list)
    peak: dict[str, Any] | None = None
    knee: dict[str, Any] | None = None
    status: str = "running"  # running | complete | interrupted | failed
    notes: list[str] = field(default_factory=list)
    engine_stats: dict[str, Any] | None = None  # per-object I/O etc., for the placement advisor
    owner: dict[str, Any] | None = None  # the dbstor process writing it: pid, host, boot_id
    tags: dict[str, str] = field(default_factory=dict)  # the user's KEY=VALUE words
    timings: dict[str, float] | None = None  # seconds per phase (runs/phases.py), io runs
    # a [mix] member run started together with others (runs/mix.py): the mix's workloads,
    # their run ids and this workload's run alone; absent from every other run
    together: dict[str, Any] | None = None
    schema: int = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for point in data["points"]:
            # only runs with telemetry beyond this host have layers; only cluster runs hosts;
            # only a point dbstor stood still in has paused_s; only one with bursts those;
            # only a run measured on this host roles
            keys = ("layers", "paused_s", "write_bursts", "roles", *CLUSTER_POINT_FIELDS)
            for key in keys:
                if point.get(key) is None:
                    point.pop(key, None)
        if data.get("together") is None:
            data.pop("together", None)
        data = {"schema": data.pop("schema"), **data}
        return data


@contextmanager
def run_status(run: Run) -> Iterator[None]:
    """Mark a run complete, interrupted (Ctrl-C) or failed by how the block ends."""
    try:
        yield
    except KeyboardInterrupt:
        run.status = "interrupted"
        raise
    except (UserError, PointFailed):
        run.status = "failed"
        raise
    run.status = "complete"


_NESTED = {
    "load": Load,
    "read_lat_ms": LatencyStats,
    "write_lat_ms": LatencyStats,
    "txn_lat_ms": LatencyStats,
    "service_lat_ms": LatencyStats,
    "device": DeviceStats,
    "cpu": CpuStats,
    "iops_spread": Spread,
    "tps_spread": Spread,
    "trust": Trust,
}


def _build(cls: type, data: Any, where: str) -> Any:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FieldError(f"{where}: expected an object, got {json_repr(data)}")
    known = {f.name: f for f in fields(cls)}
    values = {}
    for key, value in data.items():
        spec = known.get(key)
        if spec is None:
            continue  # a field from a newer or older dbstor: ignored
        name = f"{where}.{key}" if where else key
        if key in _NESTED:
            value = _build(_NESTED[key], value, name)
        else:
            check_value(value, str(spec.type), name)
            if key in CHECKS:
                CHECKS[key](value, name)
        values[key] = value
    missing = [f.name for f in known.values() if f.name not in values and _required(f)]
    if missing:
        raise FieldError(f"{where or 'the top level'}: missing field {missing[0]!r}")
    return cls(**values)


def _required(spec: Any) -> bool:
    return spec.default is MISSING and spec.default_factory is MISSING


def point_from_dict(data: Any, where: str = "points[0]") -> Point:
    if not isinstance(data, dict):
        raise FieldError(f"{where}: expected an object, got {json_repr(data)}")
    data = dict(data)
    types = data.get("txn_types")
    if types is not None:
        if not isinstance(types, dict):
            raise FieldError(f"{where}.txn_types: expected an object, got {json_repr(types)}")
        data["txn_types"] = {
            k: _build(LatencyStats, v, f"{where}.txn_types.{k}") for k, v in types.items()
        }
    point = _build(Point, {k: v for k, v in data.items() if k != "txn_types"}, where)
    if point.load is None:
        raise FieldError(f"{where}.load: expected an object, got null")
    point.txn_types = data.get("txn_types")
    point.trust = point.trust or Trust()
    return point


def run_from_dict(data: Any) -> Run:
    """A Run from results.json's data; FieldError names the first field that does not fit."""
    if not isinstance(data, dict):
        raise FieldError(f"expected a JSON object at the top, got {json_repr(data)}")
    data = dict(data)
    points = data.get("points", [])
    if not isinstance(points, list):
        raise FieldError(f"points: expected a list, got {json_repr(points)}")
    check_header(data)  # before the points become Points: it reads their load kinds
    data["points"] = [point_from_dict(p, f"points[{i}]") for i, p in enumerate(points)]
    run = _build(Run, {k: v for k, v in data.items() if k != "points"}, "")
    run.points = data["points"]
    return run
