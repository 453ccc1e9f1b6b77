"""One query-run point measured from a plain description, on the host that holds the
database: N query streams at once (N == 1: the power run), every query recorded with what
the device and the CPU did during it.

`QueryPoint` says how many streams, whether to make the caches cold first, the query
timeout and when to start; `measure_query_point` runs the streams with /proc telemetry and
the engine's counters beside them and returns a `QueryOutcome`: every query's record, each
stream's wall time, the engine's counters over the point, the host's samples and its CPU
and device figures, and the fatal error if the point cannot count. Both convert to and
from plain dicts. Nothing here knows the results folder, the terminal or the report.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from dbstor.drivers.capped_streams import CappedStreamsRun, capped_group
from dbstor.drivers.streams import StreamsRun
from dbstor.engines.base import Engine, EngineCounters
from dbstor.results.model import CpuStats, DeviceStats
from dbstor.runs.measuring import sample_rows, wait_until
from dbstor.telemetry.own import OwnAccounting, own_window
from dbstor.telemetry.sampler import Sampler
from dbstor.telemetry.window import WindowCounters


@dataclass(frozen=True)
class QueryPoint:
    """One point of a query run, as plain data."""

    index: int  # the point's place in the run (0-based)
    streams: int  # 1: the power run (stream 0); N > 1: streams 1..N at once
    cache: str  # "warm" or "cold" (restart and drop the page cache first)
    query_timeout_s: float | None = None
    devices: tuple[str, ...] = ()
    start_at: float | None = None
    max_s: float | None = None  # held until steady, up to this long (runs/queries/steady.py)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QueryPoint:
        return cls(**{**data, "devices": tuple(data.get("devices", ()))})


@dataclass
class QueryOutcome:
    """What one query point measured on one host, as plain data."""

    records: list[dict[str, Any]]  # one per query, in the order they finished
    stream_s: dict[int, float]  # each stream's wall seconds
    wall_s: float
    fatal: str | None
    counters: EngineCounters | None  # the engine's counters over the point (None if failed)
    samples: list[dict[str, Any]]
    cpu: CpuStats
    device: DeviceStats | None
    started_at: float  # epoch seconds on the measuring host
    cold_note: str | None = None  # what was done to make the caches cold
    host: str = field(default_factory=socket.gethostname)
    memory_cap: str | None = None  # an embedded engine's cap as applied at this point
    own: dict[str, Any] | None = None  # the own processes' I/O and CPU (telemetry/own.py)
    # held until steady (runs/queries/steady.py): rounds of the query set run, seconds the
    # point ran (every round, cold steps included), the maximum, each round's queries/h
    rounds: int = 1
    ran_s: float | None = None
    max_s: float | None = None
    round_rates: list[float | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "queries",
            "records": [dict(r) for r in self.records],
            "stream_s": {str(k): v for k, v in self.stream_s.items()},
            "wall_s": self.wall_s,
            "fatal": self.fatal,
            "counters": asdict(self.counters) if self.counters else None,
            "samples": [dict(s) for s in self.samples],
            "cpu": asdict(self.cpu),
            "device": asdict(self.device) if self.device else None,
            "started_at": self.started_at,
            "cold_note": self.cold_note,
            "host": self.host,
            "memory_cap": self.memory_cap,
            "own": self.own,
            "rounds": self.rounds,
            "ran_s": self.ran_s,
            "max_s": self.max_s,
            "round_rates": list(self.round_rates),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QueryOutcome:
        return cls(
            records=list(data["records"]),
            stream_s={int(k): float(v) for k, v in data["stream_s"].items()},
            wall_s=float(data["wall_s"]),
            fatal=data["fatal"],
            counters=EngineCounters(**data["counters"]) if data.get("counters") else None,
            samples=list(data["samples"]),
            cpu=CpuStats(**data["cpu"]),
            device=DeviceStats(**data["device"]) if data.get("device") else None,
            started_at=float(data["started_at"]),
            cold_note=data.get("cold_note"),
            host=data.get("host", ""),
            memory_cap=data.get("memory_cap"),
            own=data.get("own"),
            rounds=int(data.get("rounds") or 1),
            ran_s=data.get("ran_s"),
            max_s=data.get("max_s"),
            round_rates=list(data.get("round_rates") or []),
        )


def measure_query_point(
    engine: Engine,
    queries: dict[int, list[tuple[Any, str]]],
    run_query: Callable[[Any, str, str], int],
    point: QueryPoint,
    counters: WindowCounters,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    sampler: Sampler | None = None,
) -> QueryOutcome:
    """Run the streams once. `on_record(record)` sees each query as it finishes (the run
    saves its results there). Ctrl-C stops the streams and goes on up. With an embedded
    engine's memory cap in force the streams run in a client process inside it
    (drivers/capped_streams.py), started before the point's telemetry begins."""
    sampler = sampler or Sampler(point.devices)
    on_query = on_record or (lambda record: None)
    timeout, group = point.query_timeout_s, capped_group(engine)
    capped = None
    if group is not None:
        capped = CappedStreamsRun(
            engine, group, queries, run_query, counters.devices, timeout, point.cache, on_query
        )
    runner = capped or StreamsRun(
        engine, queries, run_query, counters, timeout, point.cache, on_query
    )
    try:
        if capped is not None:
            capped.prepare()
        wait_until(point.start_at)
        before = engine.counters()
        cap_group = engine.cap.group if engine.cap is not None else None
        own = OwnAccounting(
            point.devices, f"q{point.index}", capped=capped is not None or cap_group is not None
        )
        client = capped.process.pid if capped is not None and capped.process else None
        own.start(engine.server_pids(), [os.getpid(), *([client] if client else [])])
        sampler.start()
        started_at = time.time()
        try:
            own_before = own.read()
            outcome = runner.run()
            own_after = own.read()
        finally:
            samples = sampler.stop()
            own.stop()
    finally:
        if capped is not None:
            capped.close()
    after = None if outcome.fatal else engine.counters()
    cpu, device = sampler.summarise(samples)
    return QueryOutcome(
        records=list(outcome.records),
        stream_s=dict(outcome.stream_s),
        wall_s=outcome.wall_s,
        fatal=outcome.fatal,
        counters=engine.over_window(before, after) if after is not None else None,
        samples=sample_rows(samples),
        cpu=cpu,
        device=device,
        started_at=started_at,
        memory_cap=capped.describe() if capped is not None else None,
        own=own_window(own_before, own_after),
    )
