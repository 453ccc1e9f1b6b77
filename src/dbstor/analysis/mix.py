"""A [mix]'s workloads together beside each alone (docs/mix.md): "OLTP p99 x2.3 while the
DSS scan ran", and each workload's share of the device.

Each member run of a mix (Run.together, written by runs/mix.py) is set against the run of
the same workload alone on the same target, point by point (the same load index):
throughput and p99 latency together over alone, the throughput factor with its interval
where analysis/interval.py gives one (a point's per-second spread, or repeats), and the
member's own block I/O (the point's own_io: its cgroups, telemetry/own.py; fio's own
output for an io run) as a share of what the device moved over the member's window.

A factor rests on both points: withheld, with the reason, when either did not finish or
read from memory (analysis/trust.py). The together point's device is shared with the
other members by design, so its foreign share is what the mix measures, not a doubt; the
alone point's is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.interval import estimate_of, factor_interval
from dbstor.analysis.trust import point_flags, reads_from_memory, untrustworthy
from dbstor.results.model import Point, Run

LEAST_DEVICE_BYTES = 1 << 20  # below this the device barely moved: no share is told


def throughput(point: Point) -> tuple[float | None, str]:
    """The point's own throughput and its unit: transactions or queries per second, or
    fio's IOPS."""
    if point.tps is not None:
        return point.tps, "queries/s" if point.queries is not None else "txn/s"
    if point.read_iops is None and point.write_iops is None:
        return None, "IOPS"
    return (point.read_iops or 0.0) + (point.write_iops or 0.0), "IOPS"


STATS = ("p99", "p95", "p50", "mean")  # the highest both points have is set side by side


def latency_ms(alone: Point, together: Point) -> tuple[float | None, float | None, str]:
    """The latency the workload's users felt, alone and together, and what it is: a
    transaction's or a query's (or, for fio, a read's, else a write's), at the highest
    percentile both points could state (a p99 needs 1,000 transactions, 100 queries)."""
    kinds = (
        [("query", "txn_lat_ms")]
        if together.queries is not None
        else [("transaction", "txn_lat_ms"), ("read", "read_lat_ms"), ("write", "write_lat_ms")]
    )
    for name, field in kinds:
        pair = [getattr(p, field) for p in (alone, together)]
        if None in pair:
            continue
        for stat in STATS:
            base, value = (getattr(stats, stat) for stats in pair)
            if base is not None and value is not None:
                return base, value, f"{name} {stat}"
    return None, None, ""


def own_bytes(point: Point) -> dict[str, Any]:
    """The member's own bytes on the device over its window and the device's in it."""
    own = point.own_io or {}
    mine = own.get("read_bytes"), own.get("write_bytes")
    counted = own.get("devices") or {}
    if None in mine and len(counted) == 1:
        # a window shorter than one device sample names no device, but the member's own
        # I/O was counted on the one device it used: a mix's members share one device
        (only,) = counted.values()
        mine = only.get("read_bytes"), only.get("write_bytes")
    device = point.device
    rates = (device.read_mbps, device.write_mbps) if device else (None, None)
    seconds = point.duration_s
    return {
        "own_bytes": None if None in mine else mine[0] + mine[1],  # type: ignore[operator]
        "window_s": seconds,
        "window_device_bytes": None if None in rates else (rates[0] + rates[1]) * 1e6 * seconds,  # type: ignore[operator]
        "share": None,
        "why_null": None,
        "writes_counted": own.get("writes_counted"),
    }


def device_totals(members: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per load point, what the device moved over the widest member window (the windows
    begin at one instant; the one in which the device moved the most holds the others:
    an fio window's edges are fio's own, a database's whole sampled seconds) and each
    member's share of it; sets each member point's `device.share`."""
    out = []
    count = min((len(m["points"]) for m in members), default=0)
    for index in range(count):
        points = [(m["workload"], m["points"][index]["device"]) for m in members]
        name, widest = max(
            points,
            key=lambda item: (item[1]["window_device_bytes"] or 0.0, item[1]["window_s"] or 0.0),
        )
        whole = widest["window_device_bytes"]
        why = None
        if whole is None:
            why = "no block device under the target"
        elif whole < LEAST_DEVICE_BYTES:
            why = "the device moved under 1 MiB in the window"
        shares: dict[str, float | None] = {}
        for member, device in points:
            if why is None and device["own_bytes"] is None:
                device["why_null"] = "the workload's own I/O could not be counted"
            elif why is None:
                device["share"] = min(1.0, device["own_bytes"] / whole)
            else:
                device["why_null"] = why
            shares[member] = device["share"]
        known = [v for v in shares.values() if v is not None]
        out.append(
            {
                "window_s": widest["window_s"],
                "window_of": name,
                "device_bytes": whole,
                "shares": shares,
                "rest": None if why or len(known) < len(shares) else max(0.0, 1.0 - sum(known)),
                # over 1: the members' windows and the device's seconds differ by a little
                # (fio's own window, the sampler's whole seconds); told, never trimmed
                "sum": sum(known) if known else None,
                "why_null": why,
            }
        )
    return out


def _withheld(alone: Point, together: Point) -> str | None:
    if (why := untrustworthy(alone)) is not None:
        return f"alone: {why}"
    if not together.ok:
        return "together: the point did not finish"
    if reads_from_memory(together):
        return "together: its reads came from memory, not the storage"
    return None


def _ratio(value: float | None, base: float | None) -> float | None:
    return None if value is None or not base else value / base


def compare_point(alone: Point, together: Point) -> dict[str, Any]:
    """One load point of a member, together over alone."""
    rate, unit = throughput(together)
    base_rate, _ = throughput(alone)
    base_latency, latency, of = latency_ms(alone, together)
    key = "tps" if together.tps is not None else "iops"
    bounds = factor_interval(estimate_of(together, key), estimate_of(alone, key))
    withheld = _withheld(alone, together)
    factor = None if withheld else _ratio(rate, base_rate)
    return {
        "load": {"kind": together.load.kind, "value": together.load.value},
        "duration_s": together.duration_s,  # its measured window (a query point: its streams')
        "unit": unit,
        "latency_of": of,
        "alone": {"throughput": base_rate, "latency_ms": base_latency},
        "together": {"throughput": rate, "latency_ms": latency},
        "throughput_factor": factor,
        "throughput_interval": list(bounds) if bounds and factor is not None else None,
        "latency_factor": None if withheld else _ratio(latency, base_latency),
        "latency_why_null": None
        if withheld or (latency is not None and base_latency)
        else "no latency both points could state (too few transactions or queries finished)",
        "why_null": withheld,
        "flags": [f for f in point_flags(together) if not f.startswith("shared device")],
        "device": own_bytes(together),
    }


def mix_comparison(runs: Sequence[Run]) -> list[dict[str, Any]] | None:
    """Per target's mix: each member's points together beside alone; None: no mix ran."""
    by_id = {run.run_id: run for run in runs}
    groups: dict[str, dict[str, Any]] = {}
    for run in runs:
        together = run.together
        if together is None:
            continue
        group = groups.setdefault(
            together["target"],
            {"target": together["target"], "workloads": together["workloads"], "members": []},
        )
        alone = by_id.get(together.get("alone") or "")
        member: dict[str, Any] = {
            "workload": together["workload"],
            "engine": run.engine.get("name"),
            "run_id": run.run_id,
            "alone_run_id": alone.run_id if alone else None,
            "points": [],
            "why_null": None if alone else "the workload's run alone is not in this study",
        }
        if alone is not None:
            member["points"] = [
                compare_point(a, t) for a, t in zip(alone.points, run.points, strict=False)
            ]
        group["members"].append(member)
    for group in groups.values():
        group["device"] = device_totals(group["members"])
        group["overlap"] = overlap(group["members"])
    return list(groups.values()) or None


def overlap(members: Sequence[dict[str, Any]]) -> str | None:
    """Words when a member's window was much shorter than another's (a query set that
    finished early): the others ran alone for the rest of theirs."""
    spans = [(p.get("duration_s") or 0.0, m["workload"]) for m in members for p in m["points"][:1]]
    if len(spans) < 2:
        return None
    (short, brief), (long, whole) = min(spans), max(spans)
    if short >= 0.5 * long:
        return None
    return (
        f"{brief}'s point lasted {short:.2g} s of {whole}'s {long:.2g} s: they ran together "
        f"only that long; a larger scale or more streams keep {brief} running through the "
        "window"
    )


def headline(member: dict[str, Any], others: Sequence[str]) -> str | None:
    """'brokerage transaction p99 x2.3 while dss ran (throughput x0.61)' at the member's
    point whose latency rose the most (its load named when it has several); None when no
    point has a factor."""
    points = [p for p in member["points"] if p["latency_factor"] is not None]
    if not points:
        return None
    point = max(points, key=lambda p: p["latency_factor"])
    load = point.get("load") or {}
    at = (
        f" at {load_words(load.get('kind'), load.get('value'))}"
        if len(member["points"]) > 1
        else ""
    )
    words = (
        f"{member['workload']} {point['latency_of']} x{point['latency_factor']:.2g}{at} while "
        f"{' and '.join(others)} ran"
    )
    if point["throughput_factor"] is not None:
        words += f" (throughput x{point['throughput_factor']:.2g})"
    return words


def load_words(kind: Any, value: Any) -> str:
    """'4 users', 'QD8', '2 streams' for a headline."""
    if not isinstance(value, int | float):
        return str(value)
    if kind == "iodepth":
        return f"QD{value:g}"
    unit = {"users": "user", "streams": "stream", "instances": "instance", "jobs": "job"}.get(
        str(kind), str(kind)
    )
    return f"{value:g} {unit}" + ("" if value == 1 else "s")


def why_no_factor(member: dict[str, Any]) -> str:
    """Why a member carries no factor at all: its own reason, its first point's, or that
    no point finished both alone and together."""
    if member.get("why_null"):
        return str(member["why_null"])
    reasons = [p.get("why_null") for p in member.get("points") or [] if p.get("why_null")]
    return str(reasons[0]) if reasons else "no point of it finished both alone and together"
