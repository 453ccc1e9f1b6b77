"""A database load point summarised: a TxnOutcome (merged users, engine counters, the
host's telemetry) into a Point result with throughput, latency, device and engine I/O per
transaction, the client's cost and open-loop figures; and its line on the terminal."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, replace
from datetime import UTC, datetime
from typing import Any

from dbstor.analysis.attribution import (
    SHARED_DEVICE_SHARE,
    attribution_notes,
    foreign_share,
    own_cpu,
    own_io,
)
from dbstor.analysis.interval import point_uncertainty
from dbstor.analysis.labels import workload_metric_words
from dbstor.analysis.trust import (
    MEMORY_READS_PER_TXN,
    drift_note,
    held_note,
    held_words,
    steadiness,
    withheld_percentiles,
)
from dbstor.drivers.client_watch import per_user_bytes
from dbstor.drivers.tally import DriveResult
from dbstor.results.model import LatencyStats, Load, Point, Trust
from dbstor.runs.database.point import TxnOutcome
from dbstor.telemetry.disk import await_notes

RATE_SHORTFALL = 0.97  # an open-loop point finishing fewer of its arrivals than this is saturated


def database_point(
    load: Load,
    outcome: TxnOutcome,
    duration_s: float,
    warmup_s: float,
    workload_metrics: dict[str, float] | None,
) -> Point:
    """The point result of a finished database point."""
    result, device, engine = outcome.drive, outcome.device, outcome.counters
    tps = result.tps
    dev_reads = device.read_iops if device else None
    dev_writes = device.write_iops if device else None

    def per_txn(value: float | None) -> float | None:
        return None if value is None or not tps else value / tps

    seconds = result.measured_s or duration_s
    mine = own_io(outcome.own, device, tps * seconds) if outcome.own and tps is not None else None
    share, share_reason = (
        foreign_share(mine, device, seconds)
        if mine
        else (None, "the own processes were not measured")
    )
    cpu = outcome.cpu
    if outcome.own:
        cpu = replace(cpu, **own_cpu(outcome.own, cpu, seconds, os.cpu_count() or 1))
    trust = point_trust(outcome, duration_s, dev_reads, dev_writes)
    # the cache-honesty check: the database's own reads when a cgroup counted them
    host_reads_per_txn = per_txn(dev_reads)
    own_reads = mine["reads_per_txn"] if mine and device else None
    reads_per_txn = own_reads if own_reads is not None else host_reads_per_txn
    if reads_per_txn is not None and reads_per_txn < MEMORY_READS_PER_TXN:
        trust.notes.append(
            f"reads came from memory: {reads_per_txn:.3f} device reads per transaction; the storage was barely read"
        )
    point = Point(
        load=load,
        duration_s=duration_s,
        warmup_s=warmup_s,
        tps=tps,
        tpm=tps * 60,
        read_iops=dev_reads,
        write_iops=dev_writes,
        read_mbps=device.read_mbps if device else None,
        write_mbps=device.write_mbps if device else None,
        read_lat_ms=device_await(device.read_await_ms if device else None, trust.read_ops),
        write_lat_ms=device_await(device.write_await_ms if device else None, trust.write_ops),
        txn_lat_ms=result.latency.stats(),
        service_lat_ms=result.service.stats() if result.service else None,
        txn_types={name: h.stats() for name, h in result.per_type.items()},
        device=device,
        cpu=cpu,
        cache_hit_ratio=engine.hit_ratio,
        engine_io=engine_io(
            engine, duration_s, per_txn, reads_per_txn, host_reads_per_txn, per_txn(dev_writes)
        ),
        engine_window=engine.window,
        workload_metrics=workload_metrics or None,
        client=client_cost(result, load.jobs, dev_reads, dev_writes),
        open_loop=open_loop(result, load),
        errors=result.errors,
        retries=result.retries,
        error_messages=result.messages,
        trust=trust,
        # when the users started (warm-up included), not when the point was summed up
        started_at=datetime.fromtimestamp(outcome.started_at, UTC).isoformat(timespec="seconds"),
        wall_s=outcome.wall_s,
        own_io=mine,
        uncertainty=uncertainty(outcome, warmup_s, seconds),
        foreign_io_share=share,
        foreign_io_reason=share_reason,
        shared_device=share is not None and share > SHARED_DEVICE_SHARE,
    )
    trust.notes.extend(attribution_notes(share, asdict(cpu), device))
    trust.notes.extend(await_notes(device))
    if point.open_loop and point.open_loop["finished_share"] < RATE_SHORTFALL:
        point.saturated = True
        point.saturation_reason = (
            f"finished {point.open_loop['finished_share']:.0%} of the transactions that "
            f"arrived at {load.value:,.0f}/s ({tps:,.0f}/s): the database fell behind"
        )
    return point


def point_trust(
    outcome: TxnOutcome, duration_s: float, dev_reads: float | None, dev_writes: float | None
) -> Trust:
    """How far the point can be trusted: steadiness, the device's operations, how long it
    was held, and which percentiles its transactions can carry."""
    result = outcome.drive
    steady, drift = steadiness(result.per_second)
    trust = Trust(
        steady=steady,
        slope_pct=drift,
        read_ops=round((dev_reads or 0) * duration_s),
        write_ops=round((dev_writes or 0) * duration_s),
        rounds=outcome.rounds if outcome.max_s else None,
        ran_s=outcome.ran_s if outcome.max_s else None,
        max_s=outcome.max_s,
    )
    trust.p99_trusted = result.commits >= 1000
    trust.p999_trusted = result.commits >= 10_000
    trust.notes += withheld_percentiles(result.commits, "transactions")
    if trust.steady is False:
        trust.notes.append(drift_note(drift, "transactions per second"))
    if trust.steady is False and trust.max_s:
        trust.notes.append(held_note(trust))
    return trust


def engine_io(
    engine: Any,
    duration_s: float,
    per_txn: Callable[[float | None], float | None],
    reads_per_txn: float | None,
    host_reads_per_txn: float | None,
    writes_per_txn: float | None,
) -> dict[str, Any]:
    """The engine's and the device's I/O per transaction, and the engine's storage bytes."""
    return {
        "device_reads_per_txn": reads_per_txn,
        "host_device_reads_per_txn": host_reads_per_txn,
        "device_writes_per_txn": writes_per_txn,
        "engine_physical_reads_per_txn": per_txn(rate(engine.physical_reads, duration_s)),
        "engine_physical_writes_per_txn": per_txn(rate(engine.physical_writes, duration_s)),
        "storage_read_bytes": engine.storage_read_bytes,
        "storage_write_bytes": engine.storage_write_bytes,
        **({"nulled": engine.why_null} if engine.why_null else {}),
    }


def uncertainty(outcome: TxnOutcome, warmup_s: float, seconds: float) -> dict[str, Any]:
    """Each figure's interval from the point's own per-second spread."""
    result = outcome.drive
    return point_uncertainty(
        {
            "tps": result.per_second,
            "iops": window_iops(outcome, outcome.window_warmup_s or warmup_s, seconds),
            "read_lat_mean_ms": window_iops(
                outcome, outcome.window_warmup_s or warmup_s, seconds, "dev_read_await_ms"
            ),
            "response_ms": [v for v in result.per_second_mean_ms() if v is not None],
            "cpu_pct": window_iops(
                outcome, outcome.window_warmup_s or warmup_s, seconds, "cpu_util_pct"
            ),
        }
    )


def client_cost(
    result: DriveResult, users: int, dev_reads: float | None, dev_writes: float | None
) -> dict[str, Any]:
    """What the load generator cost: CPU over the measured window per transaction and per
    device I/O, and memory per virtual user: the client tree's peak over the point less its
    base before the users connected (drivers/client_watch.py), or, in results of drivers
    without that watch, what one process grew while its users connected."""
    cpu = result.client_cpu_s
    ios = None if dev_reads is None else (dev_reads + (dev_writes or 0)) * result.measured_s
    memory = result.client_memory
    per_user = per_user_bytes(memory)
    connected = result.client_rss_per_user_bytes
    if per_user is None:
        per_user = connected
    return {
        "processes": result.processes,
        "users": users,
        "cpu_s": cpu,
        "cores": None if cpu is None or not result.measured_s else cpu / result.measured_s,
        "cpu_ms_per_txn": None if cpu is None or not result.commits else cpu * 1e3 / result.commits,
        "cpu_us_per_io": None if cpu is None or not ios else cpu * 1e6 / ios,
        "rss_per_user_kib": None if per_user is None else per_user / 1024,
        **(
            {
                "memory_base_kib": memory["base_bytes"] / 1024,
                "memory_peak_kib": memory["peak_bytes"] / 1024,
                "memory_basis": memory["basis"],
                "connected_rss_per_user_kib": None if connected is None else connected / 1024,
                "host_run_queue_mean": memory.get("run_queue_mean"),
                "host_run_queue_max": memory.get("run_queue_max"),
            }
            if memory
            else {}
        ),
    }


def open_loop(result: DriveResult, load: Load) -> dict[str, Any] | None:
    """A rate point's arrivals: how many were due in the window and how many finished."""
    if result.arrivals is None:
        return None
    due = result.arrivals
    return {
        "rate_per_s": load.value,
        "arrivals": due,
        "finished": result.commits,
        "backlog": result.backlog,
        "finished_share": result.commits / due if due else 1.0,
        "latency_from": "intended start (arrival); arrivals still waiting at the end count at their age then",
    }


def device_await(mean_ms: float | None, ops: int) -> LatencyStats | None:
    """The device's average wait per I/O: diskstats gives a mean, not a distribution."""
    return None if mean_ms is None else LatencyStats(mean=mean_ms, count=ops)


def rate(total: float | None, seconds: float) -> float | None:
    return None if total is None or seconds <= 0 else total / seconds


def window_iops(
    outcome: TxnOutcome, warmup_s: float, seconds: float, key: str | None = None
) -> list[float]:
    """The device's IOPS (reads and writes) in each whole second of the measured window;
    with `key`, that sample figure instead (the device's read await), where it was had."""
    values = []
    for sample in outcome.samples:
        t, reads = sample.get("t_s"), sample.get("dev_read_iops")
        if t is None or not warmup_s + 0.5 < t <= warmup_s + seconds + 0.5:
            continue
        if key is not None:
            if sample.get(key) is not None:
                values.append(float(sample[key]))
        elif reads is not None:
            values.append(float(reads) + float(sample.get("dev_write_iops") or 0.0))
    return values


def point_line(title: str, point: Point) -> str:
    """The terminal's line for a finished database point."""
    txn, read = point.txn_lat_ms, point.read_lat_ms
    parts = [
        f"  {title:<20}",
        f"{point.tps:>8,.0f} TPS",
        *(
            f"{_figure(v)} {workload_metric_words(k)[0]}"
            for k, v in (point.workload_metrics or {}).items()
            if k != "tpm" and isinstance(v, int | float)  # not measured: left out, never 0
        ),
        f"p99 {txn.p99:.1f} ms" if txn and txn.p99 is not None else "",
        f"{point.iops:,.0f} dev IOPS" if point.read_iops is not None else "",
        f"rd {read.mean:.2f} ms" if read and read.mean is not None else "",
        f"CPU {point.cpu.util_pct:.0f}%" if point.cpu and point.cpu.util_pct is not None else "",
        f"(own {point.cpu.own_pct:.0f}%)" if point.cpu and point.cpu.own_pct is not None else "",
        "SHARED DEVICE" if point.shared_device else "",
        f"errors {point.errors}" if point.errors else "",
        "SATURATED" if point.saturated else "",
        held_words(point.trust) or "",
    ]
    return "  ".join(p for p in parts if p)


def _figure(value: float) -> str:
    """A workload's figure on the live line: whole numbers from 100 up, else three
    significant digits (a 0.07 ms mean visit latency is 0.07, not 0)."""
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"
