"""The cost case's CPU factor with its interval, and the servers it consolidates onto at
either end of it.

The servers after consolidation are ceil(N x CPU after / ceiling): the CPU after the storage
change is a measured figure with a spread of its own (its point's repeats, or the host's
per-second CPU over the measured window, and for a server's own CPU counted over the whole
window the throughput's spread where wider: analysis/factor_interval.py's cpu_estimate). The cost case states the
CPU factor after/before with its 95% interval, as a comparison does, and the server count
at the interval's two ends: "10 -> 5 servers (5-6 within the CPU factor's interval)". A
CPU factor whose interval includes 1 is withheld before a cost case is built
(analysis/compare.py; commands/consolidation.py refuses it with the interval shown).
"""

from __future__ import annotations

from typing import Any

from dbstor.analysis.factor_interval import cpu_estimate
from dbstor.analysis.interval import Estimate, factor_interval
from dbstor.analysis.tco.cashflow import servers_needed
from dbstor.results.model import Point

EXACT = Estimate(1.0, 0.0, 1.0, "given")  # a figure given by hand: no spread of its own


def cpu_multipliers(before: Point | None, after: Point | None) -> tuple[float, float] | None:
    """The 95% interval of CPU after/before as multipliers of the factor (low, high), from
    the points' own CPU estimates; a side given by hand (None) counts as exact. None when a
    measured side has no estimate."""
    est_after = cpu_estimate(after) if after is not None else EXACT
    est_before = cpu_estimate(before) if before is not None else EXACT
    if before is None and after is None:
        return None
    return factor_interval(est_after, est_before)


def with_cpu_interval(
    result: dict[str, Any], multipliers: tuple[float, float] | None, how: str
) -> dict[str, Any]:
    """Add the CPU factor, its interval and the servers after at its two ends to a cost case
    (`servers`: cpu_factor, cpu_factor_interval, cpu_after_interval_pct, after_interval,
    cpu_interval_how); a case without an interval says why in cpu_interval_how."""
    servers = result.get("servers") or {}
    before, after = servers.get("cpu_before_pct"), servers.get("cpu_after_pct")
    if multipliers is None or not isinstance(after, int | float):
        servers["cpu_interval_how"] = how or "no interval: the CPU figures have no spread recorded"
        return result
    low, high = multipliers
    n, ceiling = int(servers["before"]), float(servers["ceiling_pct"])
    span = [after * low, after * high]
    servers["cpu_after_interval_pct"] = [round(v, 2) for v in span]
    servers["after_interval"] = [min(n, servers_needed(n, v, ceiling)[0]) for v in span]
    if isinstance(before, int | float) and before > 0:
        factor = after / before
        servers["cpu_factor"] = round(factor, 4)
        servers["cpu_factor_interval"] = [round(factor * low, 4), round(factor * high, 4)]
    servers["cpu_interval_how"] = how
    return result


def interval_words(servers: dict[str, Any]) -> str:
    """' (CPU factor x0.48 (0.41-0.56); 4-6 servers within its interval)', '' without one."""
    span = servers.get("after_interval")
    if not isinstance(span, list) or len(span) != 2:
        return ""
    parts = []
    factor, bounds = servers.get("cpu_factor"), servers.get("cpu_factor_interval")
    if isinstance(factor, int | float) and isinstance(bounds, list):
        parts.append(f"CPU factor x{_g(factor)} ({_g(bounds[0])}-{_g(bounds[1])})")
    low, high = span
    parts.append(
        f"{low} servers at either end of its 95% interval"
        if low == high
        else f"{low}-{high} servers within its 95% interval"
    )
    return f" ({'; '.join(parts)})"


def _g(value: float) -> str:
    return f"{float(f'{value:.3g}'):g}"
