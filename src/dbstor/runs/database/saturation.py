"""Whether a closed-loop database point saturated, and whose CPU did: the server's, the
client's, or other work on the host.

A closed loop cannot fall behind a schedule, so saturation shows as more users buying no
more throughput while each waits longer: the host's CPU busy (nearly all of it, or more
runnable threads than cores), and, against the point before it, users up by half or more
while transactions per second rose less than a tenth, or p99 latency grew faster than the
users (Little's law: at saturation latency grows with the users). Whose it is comes from
the run's own processes' CPU, counted apart (analysis/attribution.py): the server's share
against the client's and against other work on the host. The decision uses figures the point recorded, so a report can show
them beside it.
"""

from __future__ import annotations

from typing import Any

from dbstor.results.model import Point

BUSY_PCT = 90.0  # the host's CPU at least this busy ...
QUEUE_PER_CORE = 2.0  # ... or at least this many runnable threads per core
MORE_USERS = 1.5  # users up by at least this factor over the point before ...
FLAT_TPS = 1.10  # ... with throughput up by less than this factor
SERVER_OVER_CLIENT = 2.0  # the server's CPU this many times the client's: the server's
CLIENT_CORE_SHARE = 0.9  # a client process this busy (of one core): the client's


def saturation(point: Point, previous: Point | None, cores: int) -> dict[str, Any]:
    """The figures and the decision for `point` (closed loop), `previous` the run's point
    before it (None for the first): `by` is "server", "client", "host" or None."""
    cpu, client = point.cpu, point.client or {}
    queue = client.get("host_run_queue_mean")
    figures: dict[str, Any] = {
        "host_util_pct": cpu.util_pct if cpu else None,
        "server_pct": cpu.server_pct if cpu else None,
        "client_pct": cpu.client_pct if cpu else None,
        "other_pct": cpu.other_pct if cpu else None,
        "run_queue": queue,
        "cores": cores,
        "users_ratio": None,
        "tps_ratio": None,
        "p99_ratio": None,
    }
    if previous is not None and previous.ok and previous.load.jobs and previous.tps:
        figures["users_ratio"] = point.load.jobs / previous.load.jobs
        figures["tps_ratio"] = (point.tps or 0.0) / previous.tps
        p99, before = _p99(point), _p99(previous)
        figures["p99_ratio"] = p99 / before if p99 is not None and before else None
    busy = _busy(figures)
    stalled = _stalled(figures)
    by = _whose(figures, client.get("processes") or 1) if busy and stalled else None
    figures["by"] = by
    figures["reason"] = _reason(figures, busy, stalled)
    return figures


def _p99(point: Point) -> float | None:
    latency = point.txn_lat_ms
    return latency.p99 if latency is not None else None


def _busy(f: dict[str, Any]) -> bool:
    util, queue, cores = f["host_util_pct"], f["run_queue"], f["cores"]
    return (util is not None and util >= BUSY_PCT) or (
        queue is not None and queue >= QUEUE_PER_CORE * cores
    )


def _stalled(f: dict[str, Any]) -> bool:
    users, tps, p99 = f["users_ratio"], f["tps_ratio"], f["p99_ratio"]
    if users is None or users < MORE_USERS:
        return False
    return (tps is not None and tps < FLAT_TPS) or (p99 is not None and p99 > users)


def _whose(f: dict[str, Any], processes: int) -> str:
    server, client, cores = f["server_pct"], f["client_pct"], f["cores"]
    if client is not None and client / 100 * cores >= CLIENT_CORE_SHARE * min(processes, cores):
        return "client"
    other = f["other_pct"]
    if (
        server is not None
        and (client is None or server >= SERVER_OVER_CLIENT * client)
        and (other is None or server >= other)
    ):
        return "server"
    if client is not None and server is not None and client >= server:
        return "client"
    return "host"


def _reason(f: dict[str, Any], busy: bool, stalled: bool) -> str:
    """One sentence with the figures the decision used."""
    parts = []
    if f["server_pct"] is not None and f["client_pct"] is not None:
        other = f" and other work {f['other_pct']:.0f}%" if f["other_pct"] is not None else ""
        parts.append(
            f"server processes {f['server_pct']:.0f}% of the host's CPU, "
            f"the client's {f['client_pct']:.0f}%{other}"
        )
    if f["host_util_pct"] is not None:
        parts.append(f"host {f['host_util_pct']:.0f}% busy")
    if f["run_queue"] is not None:
        parts.append(f"run queue {f['run_queue']:.1f} on {f['cores']} cores")
    if f["users_ratio"] is not None:
        p99 = f"x{f['p99_ratio']:.1f}" if f["p99_ratio"] is not None else "n/a"
        parts.append(
            f"users x{f['users_ratio']:.1f} over the point before: "
            f"TPS x{f['tps_ratio']:.2f}, p99 {p99}"
        )
    figures = "; ".join(parts) or "no CPU or latency figures"
    who = {
        "server": "the database server, not the client, saturated",
        "client": "the client (dbstor's load generator) saturated: more --client-processes",
        "host": "the host's CPU saturated, by other work more than the server or the client",
    }
    if f["by"] is not None:
        return f"{who[f['by']]} ({figures})"
    if not busy:
        return f"not saturated: the host's CPU had room ({figures})"
    if not stalled:
        return f"not saturated: throughput still rose with users, or no point before ({figures})"
    return f"not saturated ({figures})"


def apply(point: Point, previous: Point | None, cores: int) -> None:
    """Record the decision on the point (closed-loop, finished points only; an open-loop
    point is judged by its arrivals in summary.py)."""
    if not point.ok or point.open_loop is not None:
        return
    found = saturation(point, previous, cores)
    point.saturation = found
    if found["by"] is not None and not point.saturated:
        point.saturated = True
        point.saturation_reason = found["reason"]
