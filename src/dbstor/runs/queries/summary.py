"""A query point summarised: a QueryOutcome (every query's record, the engine's counters,
the host's telemetry) into a Point result with TR-3476's figures (total elapsed, queries
per hour, geometric mean, read MB), a note when memory served the reads, and the lines the
terminal shows for a point and for each query."""

from __future__ import annotations

import os
from dataclasses import asdict, replace
from typing import Any

from dbstor.analysis.attribution import (
    SHARED_DEVICE_SHARE,
    attribution_notes,
    foreign_share,
    own_cpu,
    own_io,
)
from dbstor.analysis.queries import elapsed_stats, point_metrics
from dbstor.analysis.trust import (
    STEADY_MAX_DRIFT_PCT,
    held_note,
    held_words,
    round_words,
    rounds_note,
)
from dbstor.results.model import DeviceStats, Load, Point, Trust
from dbstor.runs.database.summary import device_await
from dbstor.runs.queries.point import QueryOutcome
from dbstor.runs.queries.steady import MIN_ROUNDS, rounds_verdict
from dbstor.telemetry.disk import await_notes

MEMORY_SHARE = 0.1  # a point whose device read less than this share of the database: memory


def ordered(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: (r["stream"], r["position"]))


def query_point(
    load: Load,
    outcome: QueryOutcome,
    started_at: str | None,
    database_bytes: int | None,
    cache: str,
) -> Point:
    """The point result of a finished query point."""
    records = ordered(outcome.records)
    metrics = point_metrics(records, outcome.stream_s, int(load.value))
    ok = [r for r in records if r["status"] == "ok"]
    total = metrics["total_elapsed_s"]
    wall, device, engine = outcome.wall_s, outcome.device, outcome.counters
    if device is not None and device.read_mbps is not None:
        metrics["read_mb"] = device.read_mbps * wall
    trust = held_trust(outcome)
    trust.read_ops = round((device.read_iops or 0) * wall) if device else 0
    trust.write_ops = round((device.write_iops or 0) * wall) if device else 0
    if outcome.cold_note:  # the first note: what the point's (every round's) start was
        trust.notes.insert(0, outcome.cold_note)
    mine = own_io(outcome.own, device, len(ok)) if outcome.own else None
    share, share_reason = foreign_share(mine, device, wall) if mine else (None, "not measured")
    cpu = outcome.cpu
    if outcome.own:
        cpu = replace(cpu, **own_cpu(outcome.own, cpu, wall, os.cpu_count() or 1))
    trust.notes.extend(attribution_notes(share, asdict(cpu), device))
    trust.notes.extend(await_notes(device))
    seen = device  # the memory check: the own processes' reads where a cgroup counted them
    if device is not None and mine and mine["read_bytes"] is not None and wall > 0:
        seen = replace(device, read_mbps=mine["read_bytes"] / 1e6 / wall)
    memory = memory_note(seen, wall, database_bytes, cache)
    if memory:
        trust.notes.append(memory)
    bad = [r for r in records if r["status"] != "ok"]
    messages = list(dict.fromkeys(f"{r['name']} {r['status']}: {r['error']}" for r in bad))
    return Point(
        load=load,
        duration_s=wall,
        warmup_s=0.0,
        tps=len(ok) / total if total > 0 else None,
        read_iops=device.read_iops if device else None,
        write_iops=device.write_iops if device else None,
        read_mbps=device.read_mbps if device else None,
        write_mbps=device.write_mbps if device else None,
        read_lat_ms=device_await(device.read_await_ms if device else None, trust.read_ops),
        write_lat_ms=device_await(device.write_await_ms if device else None, trust.write_ops),
        txn_lat_ms=elapsed_stats([r["elapsed_s"] for r in ok]),
        device=device,
        cpu=cpu,
        cache_hit_ratio=engine.hit_ratio if engine else None,
        engine_io={
            "storage_read_bytes": engine.storage_read_bytes if engine else None,
            "storage_write_bytes": engine.storage_write_bytes if engine else None,
        },
        engine_window=engine.window if engine else None,
        workload_metrics=metrics,
        queries=records,
        errors=len(bad),
        error_messages=messages[:10],
        trust=trust,
        started_at=started_at,
        wall_s=wall,
        own_io=mine,
        foreign_io_share=share,
        foreign_io_reason=share_reason,
        shared_device=share is not None and share > SHARED_DEVICE_SHARE,
    )


def held_trust(outcome: QueryOutcome) -> Trust:
    """A point's steadiness over its rounds of queries, when it was held until steady
    (runs/queries/steady.py: the same call that ended it), and how long it was held; a
    point run once is not judged (one round has no round-to-round trend)."""
    if not outcome.max_s:
        return Trust()
    steady, drift = rounds_verdict(outcome.round_rates)
    trust = Trust(
        steady=steady,
        slope_pct=drift,
        rounds=outcome.rounds,
        ran_s=outcome.ran_s,
        max_s=outcome.max_s,
    )
    if len(outcome.round_rates) > 1:
        rates = ", ".join("-" if r is None else f"{r:,.0f}" for r in outcome.round_rates)
        trust.notes.append(f"rounds' queries per hour: {rates} (the last is the measured round)")
    if steady is False and drift is not None:
        rates = [float(r) for r in outcome.round_rates if r is not None]
        trust.notes.append(rounds_note(rates, drift))
        trust.notes.append(held_note(trust))
    elif steady is None:
        trust.notes.append(
            f"steadiness not judged: {outcome.rounds} round{'s' if outcome.rounds != 1 else ''} "
            f"of its queries within its maximum of {outcome.max_s:g} s (the test needs "
            f"{MIN_ROUNDS}, each finishing queries)"
        )
    return trust


def failed_point(
    load: Load, error: str, records: list[dict[str, Any]], wall_s: float, started_at: str | None
) -> Point:
    """A point that cannot count (the server died, Ctrl-C), with the queries that finished."""
    records = ordered(records)
    return Point(
        load=load,
        duration_s=wall_s,
        status="failed",
        error=error,
        queries=records,
        errors=sum(r["status"] != "ok" for r in records),
        started_at=started_at,
        wall_s=wall_s,
    )


def memory_note(
    device: DeviceStats | None, wall: float, database_bytes: int | None, cache: str
) -> str | None:
    """Say when the device read far less than the database: memory served the reads."""
    if device is None or device.read_mbps is None or not database_bytes:
        return None
    read = device.read_mbps * 1e6 * wall
    if read >= MEMORY_SHARE * database_bytes:
        return None
    share = read / database_bytes
    return (
        f"memory served most reads: the device read {read / 1e6:,.1f} MB during the point, "
        f"{share:.0%} of the {database_bytes / 1e6:,.1f} MB database"
        + ("" if cache == "cold" else " (warm: expected; --cold reads from the storage)")
    )


def point_title(index: int, streams: int, cache: str) -> str:
    what = "power run" if streams == 1 else f"throughput run, {streams} streams"
    return f"[{index + 1}] {what} ({cache})"


def query_line(record: dict[str, Any], streams: int) -> str:
    """The terminal's line for one finished query."""
    who = f"s{record['stream']} " if streams > 1 else ""
    name = str(record.get("tr3476") or record.get("title") or "")
    mbps = record.get("read_mbps")
    parts = [
        f"    {who}{record['name']:<4} {name[:34]:<34}",
        f"{record['elapsed_s']:9.3f} s",
        f"{mbps:8.1f} MB/s read" if mbps is not None else "",
        "" if record["status"] == "ok" else f"{record['status'].upper()}: {record['error']}",
    ]
    return "  ".join(p for p in parts if p)


def point_line(title: str, point: Point) -> str:
    """The terminal's line for a finished query point."""
    metrics = point.workload_metrics or {}
    bad = int(metrics.get("queries_failed", 0) + metrics.get("queries_timeout", 0))
    parts = [
        f"  {title}:",
        f"total {metrics.get('total_elapsed_s', 0.0):,.2f} s",
        f"{metrics['queries_per_hour']:,.0f} queries/h" if "queries_per_hour" in metrics else "",
        f"geomean {metrics['geomean_s']:.3g} s" if "geomean_s" in metrics else "",
        f"read {point.read_mbps:,.1f} MB/s" if point.read_mbps is not None else "",
        f"CPU {point.cpu.util_pct:.0f}%" if point.cpu and point.cpu.util_pct is not None else "",
        f"{bad} not ok" if bad else "",
        held_words(point.trust) or "",
    ]
    return "  ".join(p for p in parts if p)


def round_line(facts: dict[str, Any]) -> str:
    """The terminal's line before a further round of a held point: 'round 4 (queries/h so
    far 100, 80, 60): drifting -50% over the last 3 rounds' or '... fewer than 3 rounds to
    judge'."""
    rates = [r for r in facts.get("rates") or [] if r is not None]
    steady, drift = rounds_verdict(rates)
    if steady is False and drift is not None and abs(drift) > STEADY_MAX_DRIFT_PCT:
        why = f"drifting {drift:+.0f}% over {round_words(len(rates))}"
    elif steady is False:  # a level trend, but rounds too far apart (SNIA PTS's range)
        why = rounds_note(rates, drift or 0.0).removeprefix("not steady: ")
    else:
        why = f"fewer than {MIN_ROUNDS} rounds to judge"
    so_far = ", ".join(f"{r:,.0f}" for r in rates)
    return f"    round {facts['round']} (queries/h so far {so_far}): {why}"
