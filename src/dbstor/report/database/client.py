"""The load generator's side of a database run: the workload's own figures (NOPM), an
open-loop point's arrivals and queueing, and what the client cost in CPU and memory."""

from __future__ import annotations

from html import escape

from dbstor.analysis.labels import workload_metric_words
from dbstor.report.kit.fmt import DASH, fmt_int, fmt_iops, fmt_ms, fmt_num
from dbstor.report.kit.summary import ok_points, point_label
from dbstor.report.kit.tables import cell, scroll_table
from dbstor.results.model import Point, Run


def _metric_names(points: list[Point]) -> list[str]:
    names: list[str] = []
    for point in points:
        names += [n for n in (point.workload_metrics or {}) if n not in names]
    return names


def _metric(key: str, value: float | None) -> str:
    """A workload's figure: a latency in ms (0.07, not 0), a rate as a whole number."""
    return fmt_ms(value, unit=False) if "latency" in key else fmt_iops(value)


def client_table(run: Run) -> str:
    """Per point: workload figures, open-loop queueing, client CPU and memory."""
    points = ok_points(run)
    if not points:
        return "<p>No load point finished.</p>"
    metrics = _metric_names(points)
    open_loop = any(p.open_loop for p in points)
    head = ["load", "TPS", *(workload_metric_words(m)[1] for m in metrics)]
    if open_loop:
        head += ["finished|of arrivals", "backlog|at the end", "p99 ms|from arrival"]
        head += ["p99 ms|service"]
    head += ["client|processes", "client|cores", "client CPU|ms per txn", "client CPU|µs per I/O"]
    head += ["memory|KiB per user"]
    rows = []
    for point in points:
        cells = [cell(fmt_iops(point.tps), "num")]
        values = point.workload_metrics or {}
        cells += [cell(_metric(m, values.get(m)), "num") for m in metrics]
        if open_loop:
            loop = point.open_loop or {}
            share = loop.get("finished_share")
            cells += [
                cell(DASH if share is None else f"{100 * share:.1f}%", "num"),
                cell(fmt_int(loop.get("backlog")), "num"),
                cell(fmt_ms(point.txn_lat_ms.p99 if point.txn_lat_ms else None, unit=False), "num"),
                cell(
                    fmt_ms(point.service_lat_ms.p99 if point.service_lat_ms else None, unit=False),
                    "num",
                ),
            ]
        client = point.client or {}
        cells += [
            cell(fmt_int(client.get("processes")), "num"),
            cell(fmt_num(client.get("cores"), 2), "num"),
            cell(fmt_num(client.get("cpu_ms_per_txn"), 3), "num"),
            cell(fmt_num(client.get("cpu_us_per_io"), 3), "num"),
            cell(fmt_num(client.get("rss_per_user_kib"), 3), "num"),
        ]
        rows.append(f'<tr><th scope="row">{escape(point_label(point))}</th>{"".join(cells)}</tr>')
    return scroll_table(head, rows)


def client_caption(run: Run) -> str:
    """What the client figures mean, and the open loop's rule for latency."""
    text = (
        "Client CPU is what the threads that drive the load (the virtual users, the loop "
        "that runs them together, the open loop's arrivals) used over the measured seconds, "
        "not the rest of dbstor (for an embedded engine such as SQLite it includes the "
        "engine's work, done on those threads); per I/O divides it by the "
        "device's reads and writes. Memory per user is the client processes' memory at its "
        "peak over the whole point less what they held before the users connected, per "
        "user (older results: what one process grew while its users connected)."
    )
    if any(p.open_loop for p in ok_points(run)):
        text += (
            " At a rate (open loop), transactions arrive on a Poisson schedule whether or not "
            "the database keeps up; their latency runs from the moment each was due, so "
            "waiting behind a slow storage counts, and arrivals still waiting at the end count "
            "at their age then. Service time runs from when a user picked the transaction up."
        )
    return f"<p>{escape(text)}</p>"
