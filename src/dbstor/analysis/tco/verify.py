"""The consolidation verified: the workload re-run on the new storage at the consolidated
density, its CPU and throughput set beside the before run (TR-4403 §5, TR-4415 §5: "after
consolidating 10 -> 5 servers, CPU 38% -> 74%, performance in line").

One host plays one database server. The before point is the baseline storage's point at
the load the cost case took its CPU from; consolidating `before` servers onto `after`
puts before/after times that load on each remaining server, so the verify point runs
that load on the new storage. Its throughput is set against what the consolidated
servers must carry: the before point's throughput times the same factor.
"""

from __future__ import annotations

import math
from typing import Any

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.interval import estimate_of, factor_interval
from dbstor.analysis.trust import cpu_untrustworthy, point_flags
from dbstor.results.model import Point


def consolidated_load(value: float, servers_before: int, servers_after: int) -> int:
    """The load one consolidated server carries: value x before / after, rounded up (a
    server cannot run part of an instance: 3 instances on 2 servers is 2 on one)."""
    if servers_after < 1 or servers_before <= servers_after:
        raise ValueError(f"no consolidation from {servers_before} to {servers_after} servers")
    return math.ceil(round(value * servers_before / servers_after, 9))


def _figures(point: Point | None, label: str, run_id: str, role: str) -> dict[str, Any]:
    if point is None:
        return {"role": role, "label": label, "run_id": run_id, "missing": "no such point"}
    cpu, whose = server_cpu(point.cpu)
    read = point.read_lat_ms.mean if point.read_lat_ms else None
    return {
        "role": role,
        "label": label,
        "run_id": run_id,
        "load": {"kind": point.load.kind, "value": point.load.value},
        "ok": point.ok,
        "tps": point.tps,
        "cpu_pct": cpu,
        "cpu_whose": whose,
        "read_lat_mean_ms": read,
        "cpu_trust": cpu_untrustworthy(point) if point.ok else point.error or point.status,
        # what stands beside its figures in words (not steady, shared device, busy host)
        "flag": ", ".join(point_flags(point)) or None if point.ok else None,
    }


def verify_result(
    servers: tuple[int, int],
    before: tuple[Point, str, str],
    same_storage: tuple[Point | None, str, str],
    consolidated: tuple[Point, str, str],
) -> dict[str, Any]:
    """The comparison of the before point, the new storage's point at the same load (when
    the study measured one) and the consolidated point; each given as (point, target
    label, run id). JSON-ready, with the sentence the document prints."""
    n_before, n_after = servers
    factor = n_before / n_after
    rows = [
        _figures(*before, "before"),
        _figures(*same_storage, "new storage, same load"),
        _figures(*consolidated, "consolidated"),
    ]
    base, verify = rows[0], rows[2]
    expected = base["tps"] * factor if isinstance(base.get("tps"), int | float) else None
    got = verify.get("tps")
    tps_change, tps_interval = None, None
    if expected and isinstance(got, int | float) and verify.get("ok"):
        tps_change = round((got - expected) / expected * 100.0, 2)
        # the change's 95% interval from both points' own spread (analysis/interval.py)
        bounds = factor_interval(estimate_of(consolidated[0], "tps"), estimate_of(before[0], "tps"))
        if bounds is not None:
            ratio = got / expected
            tps_interval = [round((ratio * b - 1) * 100.0, 2) for b in bounds]
    notes = [
        f"{r['role']} ({r['label']}): {r['cpu_trust']}: its CPU is not compared"
        + ("; its TPS stands with this flag" if r.get("flag") else "")
        for r in rows
        if r.get("cpu_trust")
    ] + [
        f"{r['role']} ({r['label']}): flagged {r['flag']}: its CPU and TPS stand with the flag"
        for r in rows
        if r.get("flag") and not r.get("cpu_trust")
    ]
    result = {
        "kind": "consolidation",
        "servers": {"before": n_before, "after": n_after, "factor": round(factor, 4)},
        "points": rows,
        "tps_expected": expected,
        "tps_vs_expected_pct": tps_change,
        "tps_vs_expected_interval_pct": tps_interval,
        "notes": notes,
    }
    result["sentence"] = verify_sentence(result)
    return result


def verify_sentence(result: dict[str, Any]) -> str:
    """'After consolidating 10 -> 5 servers (instances 2 -> 4 on each), CPU 38% -> 74%,
    TPS 2,410 against the 2,480 the consolidated servers must carry (3% below).'"""
    servers = result["servers"]
    base, verify = result["points"][0], result["points"][2]
    kind = base["load"]["kind"]
    head = (
        f"After consolidating {servers['before']} -> {servers['after']} servers "
        f"({kind} {base['load']['value']:g} -> {verify['load']['value']:g} on each)"
    )
    if not verify.get("ok"):
        return f"{head}, the consolidated point did not finish: {verify.get('cpu_trust')}."
    parts = []
    if base.get("cpu_trust") or verify.get("cpu_trust"):
        parts.append("CPU not compared (see the notes)")
    else:
        parts.append(f"CPU {base['cpu_pct']:.0f}% -> {verify['cpu_pct']:.0f}%")
    change = result.get("tps_vs_expected_pct")
    if change is None:
        parts.append("TPS not compared: the before point has no TPS")
    else:
        size = f"{abs(change):.1f}" if abs(change) < 10 else f"{abs(change):.0f}"
        how = "in line" if size == "0.0" else f"{size}% {'above' if change > 0 else 'below'}"
        span = result.get("tps_vs_expected_interval_pct")
        if isinstance(span, list) and len(span) == 2:
            how += f", {span[0]:+.0f}% to {span[1]:+.0f}%"
            if span[0] <= 0 <= span[1]:
                how += ": in line within the points' own spread"
        flagged = base.get("flag") or verify.get("flag")
        parts.append(
            f"TPS {verify['tps']:,.0f} against the {result['tps_expected']:,.0f} the "
            f"consolidated servers must carry ({how}"
            + ("; flagged: see the notes)" if flagged else ")")
        )
    return f"{head}, {', '.join(parts)}."
