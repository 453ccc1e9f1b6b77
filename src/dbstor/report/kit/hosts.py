"""The per-host part of a run measured on several hosts (--cluster): a chart of each host's
share of every point, a table of each host's own figures, and which host lagged.

Runs on one host have no `hosts` on their points; for them nothing here is drawn.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.charts import Series, bar_chart
from dbstor.report.kit.fmt import fmt_iops, fmt_ms, fmt_num, fmt_pct, load_text
from dbstor.report.kit.tables import cell, scroll_table
from dbstor.results.model import Point, Run
from dbstor.telemetry.disk import await_text


def _cluster_points(run: Run) -> list[Point]:
    return [p for p in run.points if p.ok and p.hosts]


def _throughput(host: dict[str, Any]) -> float | None:
    return host.get("tps") if host.get("tps") is not None else host.get("iops")


def _p99(host: dict[str, Any]) -> float | None:
    for key in ("txn_lat_ms", "read_lat_ms", "write_lat_ms"):
        stats = host.get(key)
        if stats and stats.get("p99") is not None:
            return stats["p99"]
    return None


def lagging_sentence(run: Run) -> str | None:
    """The host with the smallest share of the throughput, over the points it took part in."""
    shares: dict[str, list[float]] = {}
    for point in _cluster_points(run):
        hosts = point.hosts or []
        if any(_throughput(h) is None for h in hosts):
            continue  # a host whose throughput was not measured is not a lagging host
        total = sum(_throughput(h) or 0.0 for h in hosts)
        if len(hosts) < 2 or not total:
            continue
        for host in hosts:
            shares.setdefault(host["host"], []).append(
                (_throughput(host) or 0.0) / total * len(hosts)
            )
    if len(shares) < 2:
        return None
    mean = {name: sum(v) / len(v) for name, v in shares.items()}
    slowest = min(mean, key=lambda name: mean[name])
    skews = [p.start_skew_ms for p in _cluster_points(run) if p.start_skew_ms is not None]
    skew = f" Start skew: at most {fmt_num(max(skews))} ms." if skews else ""
    return (
        f"Host {slowest} lagged: {fmt_pct(mean[slowest] * 100)} of an even share of the "
        f"throughput on average.{skew}"
    )


def hosts_chart(run: Run) -> str | None:
    points = _cluster_points(run)
    if not points:
        return None
    names = list(dict.fromkeys(h["host"] for p in points for h in p.hosts or []))
    categories = [load_text(p.load.kind, p.load.value, p.load.jobs) for p in points]
    bars = []
    for name in names:
        ys = []
        for point in points:
            mine = next((h for h in point.hosts or [] if h["host"] == name), None)
            ys.append(_throughput(mine) if mine else None)
        bars.append(Series(name, list(range(len(points))), ys))
    unit = "TPS" if any(p.tps is not None for p in points) else "IOPS"
    return bar_chart(categories, bars, title=f"{unit} per host", y_label=unit, value_text=False)


def hosts_table(run: Run) -> str | None:
    points = _cluster_points(run)
    if not points:
        return None
    unit = "TPS" if any(p.tps is not None for p in points) else "IOPS"
    head = ["load", "host", unit, "p99|ms", "device IOPS", "device await|read, ms", "CPU busy"]
    head += ["started|ms after the first", "start skew|ms"]
    rows = []
    for point in points:
        load = escape(load_text(point.load.kind, point.load.value, point.load.jobs))
        for i, host in enumerate(point.hosts or []):
            device = host.get("device") or {}
            dev_iops = None
            if device.get("read_iops") is not None or device.get("write_iops") is not None:
                dev_iops = (device.get("read_iops") or 0.0) + (device.get("write_iops") or 0.0)
            cells = [
                cell(str(host["host"])),
                cell(fmt_iops(_throughput(host)), "num"),
                cell(fmt_ms(_p99(host), unit=False), "num"),
                cell(fmt_iops(dev_iops), "num"),
                cell(await_text(device, "read", lambda ms: fmt_ms(ms, False)), "num"),
                cell(fmt_pct((host.get("cpu") or {}).get("util_pct")), "num"),
                cell(fmt_num(host.get("start_offset_ms")), "num"),
                cell(fmt_num(point.start_skew_ms) if i == 0 else "", "num"),
            ]
            label = f'<th scope="row">{load}</th>' if i == 0 else "<th></th>"
            rows.append(f"<tr>{label}{''.join(cells)}</tr>")
    return scroll_table(head, rows, "points")


def hosts_block(run: Run) -> str:
    """The hosts heading, chart, sentence and table; empty for a single-host run."""
    table = hosts_table(run)
    if table is None:
        return ""
    parts = ["<h3>Hosts</h3>"]
    chart = hosts_chart(run)
    if chart:
        parts.append(
            f"<figure>{chart}<figcaption>Each host's own throughput at each point; the "
            "point's figures above are their sum.</figcaption></figure>"
        )
    sentence = lagging_sentence(run)
    if sentence:
        parts.append(f"<p>{escape(sentence)}</p>")
    parts.append(table)
    return "".join(parts)
