"""A fio run's section of the HTML report: IOPS and CPU, host and device latency, the
per-second series and every load point (its facts are in the document's configuration,
method and appendix)."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.io.figures import iops_cpu_chart, latency_chart
from dbstor.report.io.tables import points_table
from dbstor.report.kit.events import events_html
from dbstor.report.kit.figures import backwards_sentence, host_tool, timeseries_chart
from dbstor.report.kit.hosts import hosts_block
from dbstor.report.kit.layers import layers_html
from dbstor.report.kit.shared import shared_sentence
from dbstor.report.kit.summary import cache_sentence
from dbstor.report.kit.tables import status_badge
from dbstor.results.model import Run


def io_section(run: Run, name: str, rows: list[dict[str, Any]] | None) -> str:
    """The section of one fio run; `rows` are its samples.csv rows, if any."""
    parts = [f'<section class="run"><h2>{escape(name)}{status_badge(run.status)}</h2>']
    shared = shared_sentence(run)
    if shared:
        parts.append(f'<div class="callout memory">{escape(shared)}</div>')
    has_device = any(p.device is not None for p in run.points if p.ok)
    busy = "the host CPU and the device were" if has_device else "the host CPU was"
    parts.append(
        f"<figure>{iops_cpu_chart(run)}<figcaption>Bars: IOPS at each load point. "
        f"Lines: how busy {busy} (right axis). {escape(backwards_sentence(run))}</figcaption>"
        "</figure>"
    )
    device_note = (
        "Dashed: the device's await from /proc/diskstats. The gap is time in the host I/O "
        "stack and the path."
        if has_device
        else "No device statistics: no block device was found under the target."
    )
    if any(
        p.device and (p.device.read_await_reason or p.device.write_await_reason)
        for p in run.points
        if p.ok
    ):
        device_note += (
            " A device await left out at a point was under the disk counters' 1 ms resolution"
            " (its bound is in the point's notes below the table), not 0."
        )
    parts.append(
        f"<figure>{latency_chart(run)}<figcaption>Solid: mean latency {host_tool([run])} saw "
        "at the host. "
        f"{device_note}</figcaption></figure>"
    )
    parts.append(layers_html(run))
    series = timeseries_chart(run, rows) if rows else None
    if series:
        parts.append(
            f"<figure>{series}<figcaption>One sample per second; a grey line marks the "
            "start of each load point. A slope at the end of a point means it was not "
            "steady.</figcaption></figure>"
        )
    parts.append(events_html(run, rows or []))
    parts.append("<h3>Load points</h3>")
    parts.append(points_table(run))
    parts.append(hosts_block(run))
    cache = cache_sentence(run)
    if cache:
        parts.append(f"<p>{escape(cache)}</p>")
    parts.append("</section>")
    return "".join(parts)


def data_sentence(data: dict[str, Any] | None) -> str | None:
    """What the writes wrote, asked for and measured (runs before --data say nothing)."""
    if not isinstance(data, dict):
        return None
    if data.get("kind") == "incompressible":
        asked = "incompressible data (fio's random refills)"
    else:
        asked = f"data compressible {data.get('compression', 1.0):.2f}:1"
        if data.get("dedupe_pct"):
            asked += f" with {data['dedupe_pct']:g}% duplicate blocks"
        if data.get("kind") == "from":
            asked += f", as measured on {data.get('source')}"
    written = data.get("written") or {}
    achieved = written.get("achieved")
    measured = (
        f"; the test files measured {achieved['compression']:.2f}:1 compression and "
        f"{achieved['dedup']:.2f}:1 dedup ({written.get('measured_as')})"
        if achieved
        else ""
    )
    warning = f". {written['warning']}" if written.get("warning") else ""
    return f"Data written: {asked}{measured}{warning}."
