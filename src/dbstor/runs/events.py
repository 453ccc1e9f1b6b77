"""A point's events, from its outcomes to results.json and the terminal.

Each repeat's event records (events/schedule.py) get their impact (events/impact.py) from
that repeat's per-second figures: an io point's IOPS (fio's own, reads plus writes) with
the device's mean latency per second, a database point's commits per second with the
transactions' mean latency per second. A command's output goes to the run folder's
events/ and the record keeps its path.
"""

from __future__ import annotations

from typing import Any

from dbstor.events.impact import device_per_second, event_impact, impact_line


def _device_latency(row: dict[str, Any] | None) -> float | None:
    if not row:
        return None
    pairs = [
        (row.get("dev_read_iops"), row.get("dev_read_await_ms")),
        (row.get("dev_write_iops"), row.get("dev_write_await_ms")),
    ]
    pairs = [(n, ms) for n, ms in pairs if n and ms is not None]
    total = sum(n for n, _ in pairs)
    return sum(n * ms for n, ms in pairs) / total if total else None


def io_series(outcome: Any) -> tuple[list[float], list[float | None], str, str]:
    """Per measured second: throughput, latency, the unit, whose latency."""
    reads, writes = outcome.read_iops_per_second, outcome.write_iops_per_second
    n = max(len(reads), len(writes))
    throughput = [
        (reads[s] if s < len(reads) else 0.0) + (writes[s] if s < len(writes) else 0.0)
        for s in range(n)
    ]
    return throughput, [], "IOPS", "device"


def db_series(outcome: Any) -> tuple[list[float], list[float | None], str, str]:
    drive = outcome.drive
    return list(drive.per_second), list(drive.per_second_mean_ms()), "TPS", "transactions"


def point_events(
    outcomes: list[Any], warmup_s: float, folder: Any, say: Any, database: bool
) -> list[dict[str, Any]] | None:
    """The events of all repeats with their impact; None when the point had none."""
    out: list[dict[str, Any]] = []
    for repeat, outcome in enumerate(outcomes):
        throughput, latency, unit, whose = (db_series if database else io_series)(outcome)
        shift = max((r.get("window_shift_s") or 0.0 for r in outcome.events), default=0.0)
        rows = device_per_second(outcome.samples, warmup_s + shift, len(throughput))
        if not latency:
            latency = [_device_latency(r) for r in rows]
        for record in outcome.events:
            record = dict(record)
            details = dict(record.get("details") or {})
            if "output" in details:
                details["output_file"] = folder.keep_event_output(
                    f"{record['name']}-r{repeat + 1}", details.pop("output")
                )
            record["details"] = details
            busy = [
                (r["started_s"], r["ended_s"] if r.get("ended_s") is not None else r["started_s"])
                for r in outcome.events
                if r is not record
                and r.get("started_s") is not None
                and r["name"] != record["name"]
            ]
            bins = outcome.drive.second_bins if database else None
            event = event_impact(record, throughput, latency, rows, unit, busy, bins)
            event["repeat"] = repeat + 1
            if event.get("impact"):
                event["impact"]["latency_of"] = whose
            say(impact_line(event))
            out.append(event)
    return out or None
