"""One database run's section of the HTML report: its charts, tables and facts."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.database.client import client_caption, client_table
from dbstor.report.database.figures import device_chart, tps_caption, tps_chart, txn_types_chart
from dbstor.report.database.memory import is_external, memory_html, memory_sentence
from dbstor.report.database.roles import roles_table
from dbstor.report.database.sizes import objects_on_disk
from dbstor.report.database.tables import (
    db_points_table,
    engine_io_table,
    errors_block,
    load_report,
    objects_table,
    peak_point,
    txn_p99_matrix,
    txn_types_table,
)
from dbstor.report.database.waits import waits_block
from dbstor.report.kit.events import events_html
from dbstor.report.kit.figures import backwards_sentence, figure_html, timeseries_chart
from dbstor.report.kit.fmt import fmt_bytes, fmt_iops, fmt_num
from dbstor.report.kit.hosts import hosts_block
from dbstor.report.kit.layers import draws_layer_latency, layers_html
from dbstor.report.kit.shared import shared_sentence
from dbstor.report.kit.summary import point_label, slo_of
from dbstor.results.model import Run


def _badge(status: str) -> str:
    text = {"running": "still running"}.get(status, status)
    return f'<span class="badge {escape(status)}">{escape(text)}</span>'


def _what_ran(run: Run) -> str:
    engine = run.engine or {}
    workload = run.workload or {}
    parts = [
        " ".join(
            str(x) for x in (engine.get("title") or engine.get("name"), engine.get("version")) if x
        ),
        "external server" if is_external(run) else "managed by dbstor",
    ]
    title = workload.get("title") or workload.get("name")
    if title:
        scale = workload.get("scale")
        parts.append(f"{title}" + (f", scale {fmt_num(scale, 6)}" if scale is not None else ""))
    series = workload.get("series") or {}
    values = series.get("values") or []
    if values and series.get("kind") == "instances":
        parts.append(
            f"{'–'.join(fmt_num(v) for v in (values[0], values[-1]))} instances × "
            f"{series.get('users', 1)} users each"
        )
    elif values:
        parts.append(f"{'–'.join(fmt_num(v) for v in (values[0], values[-1]))} virtual users")
    think = workload.get("think_time_ms")
    if isinstance(think, int | float):
        parts.append("no think time" if think == 0 else f"think time {fmt_num(think)} ms")
    return " · ".join(p for p in parts if p)


def database_section(run: Run, name: str, rows: list[dict[str, Any]] | None) -> str:
    """The section of one database run: TPS and latency, the device, transaction types,
    engine I/O, errors, the load report and the largest objects."""
    slo = slo_of(run)
    parts = [
        f'<section class="run database"><h2>{escape(name)}{_badge(run.status)}</h2>',
        f'<p class="meta">{escape(_what_ran(run))}</p>',
    ]
    memory = memory_sentence(run)
    if memory:
        parts.append(f'<div class="callout memory">{memory_html(memory)}</div>')
    shared = shared_sentence(run)
    if shared:
        parts.append(f'<div class="callout memory">{escape(shared)}</div>')
    parts.append(
        f"<figure>{tps_chart(run)}<figcaption>{escape(tps_caption(run))} "
        f"{escape(backwards_sentence(run, what='TPS', value=lambda p: p.tps))}</figcaption></figure>"
    )
    if any("remote_device" in (p.layers or {}) for p in run.points):
        where = "latency by layer and " if draws_layer_latency(run) else ""
        device_note = (
            "The database server's own device and CPU, from its node_exporter, are in the "
            f"{where}layer table below; these bars are this host's devices."
        )
    elif is_external(run):
        device_note = (
            "The engine is an external server: these are this host's devices, which may not "
            "hold the database."
        )
    else:
        device_note = (
            f"Mean await from /proc/diskstats; the SLO ({escape(slo.text)}) limits the read await."
        )
    caption = (
        "What the storage actually had to do: reads and writes per second at the block device "
        f"under the target (right axis: their mean await). {device_note}"
    )
    parts.append(figure_html(device_chart(run), caption))
    parts.append(layers_html(run))
    series = timeseries_chart(run, rows) if rows else None
    if series:
        parts.append(
            f"<figure>{series}<figcaption>One sample per second; a grey line marks the start of "
            "each load point. TPS is counted over measured seconds only.</figcaption></figure>"
        )
    parts.append(events_html(run, rows or []))
    parts.append("<h3>Load points</h3>")
    parts.append(db_points_table(run))
    parts.append(roles_table(run))
    parts.append(hosts_block(run))
    peak = peak_point(run)
    if peak is not None:
        where = point_label(peak, compact=False)
        parts.append(
            f"<h3>Transaction types at {escape(where)}, the highest TPS "
            f"({escape(fmt_iops(peak.tps))})</h3>"
        )
        parts.append(txn_types_table(run, peak))
        parts.append(f"<figure>{txn_types_chart(run, peak)}</figure>")
        matrix = txn_p99_matrix(run)
        if matrix:
            parts.append("<h3>p99 latency by transaction type and load point</h3>")
            parts.append(matrix)
    parts.append("<h3>Engine I/O per transaction</h3>")
    parts.append(
        "<p>Device reads and writes per transaction say how hard each transaction made the "
        "storage work; engine physical reads are the engine's cache misses, which the host's "
        "page cache may still serve without touching the storage.</p>"
    )
    parts.append(engine_io_table(run))
    parts.append(waits_block(run))
    parts.append("<h3>The client</h3>")
    parts.append(client_caption(run))
    parts.append(client_table(run))
    parts.append("<h3>Errors and retries</h3>")
    parts.append(errors_block(run))
    parts.append("<h3>Loading the database</h3>")
    parts.append(load_report(run))
    parts.append("<h3>Largest database objects</h3>")
    parts.append(objects_table(run))
    sizing = sizing_sentence(run)
    if sizing:
        parts.append(f"<p>{escape(sizing)}</p>")
    parts.append("</section>")
    return "".join(parts)


def sizing_sentence(run: Run) -> str | None:
    """The database's size on disk against host memory and any memory cap: could memory
    hold it? On disk is the tables and indexes the engine listed at the end of the run;
    the load report's size is the row data loaded, before indexes and page overhead."""
    memory = (run.host or {}).get("memory_bytes")
    loads = [x for x in (run.workload or {}).get("load") or [] if isinstance(x, dict)]
    loaded = sum(x.get("bytes") or 0 for x in loads)
    disk = objects_on_disk(run)
    size = disk[1] if disk else loaded
    if not size:
        return None
    many = len(loads) > 1
    if disk and many:  # the listing is one instance's; the row data every instance's
        what = (
            f"Each of the {len(loads)} databases held {fmt_bytes(size)} on disk at the end of "
            "the run (the first one's listing)"
        )
        if loaded:
            what += f"; {fmt_bytes(loaded / len(loads))} of row data was loaded into each"
    elif disk:
        what = f"The database held {fmt_bytes(size)} on disk at the end of the run"
        if loaded:
            what += f" ({fmt_bytes(loaded)} of row data loaded)"
    else:
        what = f"The load wrote {fmt_bytes(size)} of row data" + (
            f" into {len(loads)} databases" if many else ""
        )
    cap = (run.engine or {}).get("memory_limit_bytes")
    if isinstance(cap, int | float) and cap:
        whose = "each instance's" if many else "the engine's"
        return f"{what}; {whose} memory was capped at {fmt_bytes(cap)} (--memory-limit)."
    if not isinstance(memory, int | float) or not memory or is_external(run):
        return f"{what}."
    if size < memory:
        return (
            f"{what}; the host has {fmt_bytes(memory)} of memory, so its page cache can hold "
            "all of it."
        )
    return f"{what}, more than the host's {fmt_bytes(memory)} of memory."
