"""One database load point measured from a plain description, on the host that holds the
database instances it drives.

`DbPoint` says how many of the prepared instances take part, how many virtual users per
instance in how many client processes, the rate (open loop) or think time, the measured
window and warm-up, and when to start; `measure_database_point` drives the users with
/proc telemetry and the engines' counters beside them and returns a `TxnOutcome`: the
users' merged result (per-transaction-type latency histograms, commits, errors, retries,
per-second commits, open-loop arrivals, client CPU and memory), the engines' counters over
the point, the host's samples and its CPU and device figures over the measured window.
Both convert to and from plain dicts. Nothing here knows the results folder, the terminal
or the report.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from dbstor.drivers.processes import Hooks, UserLoad, run_in_processes
from dbstor.drivers.tally import DriveResult
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineCounters, sum_counters
from dbstor.engines.cgroup import MemoryCap
from dbstor.events.schedule import point_events
from dbstor.lifeline import boot_id
from dbstor.results.model import CpuStats, DeviceStats
from dbstor.runs.database import durability
from dbstor.runs.measuring import sample_rows, wait_until
from dbstor.telemetry.own import OwnAccounting, own_window
from dbstor.telemetry.sampler import Sampler, device_window


@dataclass(frozen=True)
class DbPoint:
    """One point of a database run, as plain data."""

    index: int  # the point's place in the run (0-based); seeds the users' draws
    instances: int  # the first N prepared instances take part
    users: int  # virtual users per instance
    warmup_s: float
    duration_s: float
    client_processes: int = 1
    think_time_ms: float = 0.0
    seed: int = 1
    rate: float | None = None  # open loop: transactions per second over all instances
    devices: tuple[str, ...] = ()  # /proc/diskstats names to sample, top device first
    start_at: float | None = None  # epoch seconds on the measuring host: start then
    first_user: int = 0  # the users' numbers start here (client hosts sharing one server)
    read_counters: bool = True  # False: another host reads the shared server's counters
    own_accounting: bool = True  # read the own processes' I/O and CPU (telemetry/own.py)
    events: tuple[dict[str, Any], ...] = ()  # study/events.py EventSpec dicts
    event_paths: tuple[str, ...] = ()  # the target's data paths, where events act
    max_s: float | None = None  # held until steady, up to this long (runs/database/steady.py)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DbPoint:
        plain = {k: tuple(data.get(k, ())) for k in ("devices", "events", "event_paths")}
        return cls(**{**data, **plain})


@dataclass
class TxnOutcome:
    """What one database point measured on one host, as plain data."""

    drive: DriveResult
    counters: EngineCounters  # the taking-part instances' counters over the measured window
    samples: list[dict[str, Any]]
    cpu: CpuStats
    device: DeviceStats | None
    alive: bool  # every taking-part instance still up at the end
    started_at: float  # epoch seconds on the measuring host when the users were started
    wall_s: float
    host: str = field(default_factory=socket.gethostname)
    boot_id: str = field(default_factory=boot_id)  # one machine's hosts share one device
    memory_cap: str | None = None  # an embedded engine's cap as applied at this point
    own: dict[str, Any] | None = None  # the own processes' I/O and CPU (telemetry/own.py)
    oom: dict[str, Any] | None = None  # a memory cap's OOM counters when a server stopped
    # every sampled device over the measured window (each role's, telemetry/roles.py)
    devices: dict[str, DeviceStats] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)  # events/schedule.py records
    # held until steady (runs/database/steady.py): rounds measured, seconds the point ran
    # (every round, warm-ups included), the last round's warm-up, the maximum
    rounds: int = 1
    ran_s: float | None = None
    window_warmup_s: float | None = None
    max_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "transactions",
            "memory_cap": self.memory_cap,
            "drive": self.drive.to_dict(),
            "counters": asdict(self.counters),
            "samples": [dict(s) for s in self.samples],
            "cpu": asdict(self.cpu),
            "device": asdict(self.device) if self.device else None,
            "alive": self.alive,
            "started_at": self.started_at,
            "wall_s": self.wall_s,
            "host": self.host,
            "boot_id": self.boot_id,
            "own": self.own,
            "oom": self.oom,
            "devices": {n: asdict(d) for n, d in self.devices.items()} if self.devices else None,
            "events": list(self.events),
            "rounds": self.rounds,
            "ran_s": self.ran_s,
            "window_warmup_s": self.window_warmup_s,
            "max_s": self.max_s,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TxnOutcome:
        return cls(
            drive=DriveResult.from_dict(data["drive"]),
            counters=EngineCounters(**data["counters"]),
            samples=list(data["samples"]),
            cpu=CpuStats(**data["cpu"]),
            device=DeviceStats(**data["device"]) if data.get("device") else None,
            alive=bool(data["alive"]),
            started_at=float(data["started_at"]),
            wall_s=float(data["wall_s"]),
            host=data.get("host", ""),
            boot_id=data.get("boot_id", ""),
            memory_cap=data.get("memory_cap"),
            own=data.get("own"),
            oom=data.get("oom"),
            devices={n: DeviceStats(**d) for n, d in (data.get("devices") or {}).items()} or None,
            events=list(data.get("events", [])),
            rounds=int(data.get("rounds") or 1),
            ran_s=data.get("ran_s"),
            window_warmup_s=data.get("window_warmup_s"),
            max_s=data.get("max_s"),
        )


def user_load(point: DbPoint, active: list[Instance], crashes: bool) -> UserLoad:
    """What the point's users do, as the client processes drive it: its users on every
    instance taking part, their think time (none in an open loop), the point's seed."""
    return UserLoad.of(
        active,
        point.users,
        point.warmup_s,
        point.duration_s,
        think_time_ms=0.0 if point.rate else point.think_time_ms,
        seed=point.seed + point.index,
        rate=point.rate,
        first_user=point.first_user,
        survive_restarts=crashes,
        second_bins=bool(point.events),
    )


def measure_database_point(
    instances: list[Instance],
    point: DbPoint,
    sampler: Sampler | None = None,
    on_running: Callable[[dict[str, Any]], None] | None = None,
) -> TxnOutcome:
    """Drive the point's users against the first `point.instances` instances;
    `on_running(figures)` gets their running figures once a second (drivers.running)."""
    active = instances[: point.instances]
    sampler = sampler or Sampler(point.devices)
    group = embedded_cap(active)
    wait_until(point.start_at)
    marks: dict[str, list[EngineCounters]] = {}
    caps = memory_caps(active)
    own = (
        OwnAccounting(point.devices, str(point.index), capped=bool(caps))
        if point.own_accounting
        else None
    )
    own_marks: dict[str, dict[str, Any]] = {}
    name = f"point-{point.index + 1:02d}"
    engines = tuple(i.engine for i in active)

    def restarted() -> None:  # a crash event's new servers join the server's group
        if own is not None:
            own.add_server(server_pids(active))

    events = point_events(
        point.events, point.event_paths, point.devices, point.duration_s, name, engines, restarted
    )

    def read_counters(mark: str) -> None:  # at the measured window's start and end
        if mark == "measure_start":
            events.start(time.monotonic())
        if own is not None:
            own_marks[mark] = own.read()
        if point.read_counters:
            marks[mark] = [i.engine.counters() for i in active]

    crashes = any(e["kind"] == "crash" for e in point.events)
    rows_before = durability.count_rows(active) if crashes else None
    for cap in caps:
        cap.reset_peak()
    caps_before = [cap.counters() for cap in caps]
    if own is not None:
        own.start(server_pids(active), [os.getpid()])
    sampler.start()
    started_at, started = time.time(), time.monotonic()
    try:
        hooks = Hooks(on_mark=read_counters, group=group, on_running=on_running)
        result = run_in_processes(user_load(point, active, crashes), point.client_processes, hooks)
    finally:
        happened = events.stop()
        samples = sampler.stop()
        if own is not None:
            own.stop()
    wall = time.monotonic() - started
    if crashes:
        checked = durability.check(active, rows_before, result.acknowledged)
        for record in happened:
            if record["kind"] == "crash":
                record["details"] = {**record["details"], "durability": checked}
                record["details"]["client_reconnects"] = result.reconnects
    alive = all(i.engine.alive() for i in active) if result.fatal or crashes else True
    if crashes and not alive and not result.fatal:  # the users survived, the server did not
        failed = next((r["error"] for r in happened if r["kind"] == "crash" and r["error"]), "")
        result.fatal = f"the server was not running after the crash event: {failed}".rstrip(": ")
    before, after = marks.get("measure_start"), marks.get("end")
    cpu, device = sampler.summarise(samples, start_s=point.warmup_s)
    return TxnOutcome(
        drive=result,
        counters=sum_counters(
            i.engine.over_window(b, a) for i, a, b in zip(active, after, before, strict=True)
        )
        if before and after
        else EngineCounters(),
        samples=sample_rows(samples),
        cpu=cpu,
        device=device,
        alive=alive,
        started_at=started_at,
        wall_s=wall,
        memory_cap=group.describe() if group else None,
        own=own_window(own_marks["measure_start"], own_marks["end"])
        if {"measure_start", "end"} <= own_marks.keys()
        else None,
        oom=cap_window(caps, caps_before),
        devices=device_window(samples, start_s=point.warmup_s) or None,
        events=happened,
    )


def server_pids(active: list[Instance]) -> list[int]:
    """The managed servers' process trees (an embedded engine runs in the client processes)."""
    return [pid for instance in active for pid in instance.engine.server_pids()]


def memory_caps(active: list[Instance]) -> list[MemoryCap]:
    """The memory caps (engines/cgroup.py MemoryCap) in force: a managed server's, or the
    one around an embedded engine's client processes."""
    return [cap for instance in active for cap in instance.engine.memory_caps()]


def cap_window(caps: list[MemoryCap], before: list[Any]) -> dict[str, Any] | None:
    """The first cap's counters over the point (the one that counted an OOM kill, if any):
    its limit, peak usage, and how many OOM kills and limit hits the point added."""
    found = None
    for cap, start in zip(caps, before, strict=True):
        end = cap.counters()
        if not end or not start:
            continue
        window = {
            "limit": end.get("limit"),
            "given": cap.given,
            "peak": end.get("peak"),
            "held": end.get("held"),
            "oom_kills": (end.get("oom_kill") or 0) - (start.get("oom_kill") or 0),
            "limit_hits": (end.get("failcnt") or 0) - (start.get("failcnt") or 0),
        }
        if found is None or window["oom_kills"] > found["oom_kills"]:
            found = window
    return found


def embedded_cap(active: list[Instance]) -> Any:
    """The memory cap of an embedded engine's client processes (engines/embedded_cap.py),
    when one is in force: the database's files are dropped from the page cache first, so
    that pages the loading process read do not serve the capped clients."""
    caps = [i.engine.client_cap for i in active]
    group = next((c for c in caps if c is not None and c.active), None)
    if group is not None:
        for instance in active:
            instance.engine.drop_cache()
    return group
