"""The results: each run at a glance, the database on the storage's curve, the curves,
and each run's own part (the per-kind sections), each with an anchor the summary links."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.dss_compare import is_query_run
from dbstor.report.database.figures import overlay_chart, tps_latency_curve
from dbstor.report.database.memory import memory_sentence
from dbstor.report.database.overlay import overlay_caption, overlays
from dbstor.report.database.roles import moved_io_body
from dbstor.report.database.section import database_section
from dbstor.report.document.frame import engine_io_anchor, points_anchor, run_anchor
from dbstor.report.io.section import io_section
from dbstor.report.kit.doubts import headline_lines, knee_doubts
from dbstor.report.kit.figures import curve_caption, curve_chart, figure_html
from dbstor.report.kit.summary import (
    cache_sentence,
    is_database,
    slo_of,
)
from dbstor.report.kit.tables import status_badge
from dbstor.report.queries.section import dss_card, dss_section
from dbstor.results.model import Run


def cards(runs: list[Run], names: list[str]) -> str:
    """Each run at a glance: its peak, its knee, how its data compares with the caches."""
    out = []
    for i, (run, name) in enumerate(zip(runs, names, strict=True)):
        if is_query_run(run):
            out.append(dss_card(run, name))
            continue
        workload = (run.workload or {}).get("name", "")
        engine = (run.engine or {}).get("name", "")
        lines = list(headline_lines(run))  # refused where the summary refuses them
        cache = cache_sentence(run)
        if cache:
            lines.append(cache)
        if memory_sentence(run):
            lines.append("reads came from memory: see its part below.")
        body = "".join(f"<p>{escape(line[0].upper() + line[1:])}</p>" for line in lines)
        out.append(
            f'<div class="card"><h3><a href="#{run_anchor(i)}">{escape(name)}</a>'
            f"{status_badge(run.status)}</h3>"
            f'<p class="meta">{escape(" · ".join(x for x in (workload, engine) if x))}</p>'
            f"{body}</div>"
        )
    return f'<div class="cards">{"".join(out)}</div>'


def overlay_figures(runs: list[Run], names: list[str]) -> tuple[str, set[str]]:
    """The database-on-the-storage's-curve figures, and the run ids they place."""
    by_id = {run.run_id: name for run, name in zip(runs, names, strict=True)}
    parts, placed = [], set()
    for overlay in overlays(runs):
        placed |= {r.run_id for r in overlay.databases}
        where = f" ({escape(overlay.label)})" if len(runs) > 2 else ""
        parts.append(
            f'<div class="overlay"><h3>The database on the storage\'s curve{where}</h3>'
            f"<figure>{overlay_chart(overlay, by_id)}<figcaption>"
            f"{escape(overlay_caption(overlay, by_id))} <span>The line is fio's mean read "
            "latency at each queue depth; the database's markers are the device's mean read "
            "await at each load point, so both show a mean read latency.</span></figcaption>"
            "</figure></div>"
        )
    return "".join(parts), placed


def curves(runs: list[Run], names: list[str], placed: set[str]) -> str:
    """The IOPS-latency curves: fio runs on their own SLO, database runs not on an overlay
    on theirs (a device measure), and the database runs' TPS against transaction p99."""
    if not runs:
        return ""
    by_id = {run.run_id: name for run, name in zip(runs, names, strict=True)}
    parts = []
    fio = [r for r in runs if not is_database(r)]
    dbs = [r for r in runs if is_database(r)]
    if fio:
        unstated = [r.run_id for r in fio if knee_doubts(r)]
        chart = curve_chart(fio, [by_id[r.run_id] for r in fio], unstated)
        caption = escape(curve_caption(fio, [by_id[r.run_id] for r in fio]))
        parts.append(figure_html(chart, caption))
    groups: dict[str, list[Run]] = {}
    for run in dbs:
        if run.run_id not in placed:
            groups.setdefault(slo_of(run).metric, []).append(run)
    for group in groups.values():
        note = " For a database, IOPS and read latency are the device's, from /proc/diskstats."
        unstated = [r.run_id for r in group if knee_doubts(r)]
        chart = curve_chart(group, [by_id[r.run_id] for r in group], unstated)
        caption = escape(curve_caption(group, [by_id[r.run_id] for r in group]))
        parts.append(figure_html(chart, caption + note))
    if dbs:
        caption = (
            "The database's own view: transactions per second against the p99 transaction "
            "latency the client measured, one marker per load point."
        )
        parts.append(figure_html(tps_latency_curve(dbs, by_id), caption))
    heading = "IOPS against latency" if fio or groups else "Transactions against latency"
    return f"<h3>{heading}</h3>{''.join(parts)}"


def _anchored(html: str, index: int) -> str:
    """A run's part with its anchor, and its load-point table's."""
    marker = "<h3>Load points</h3>"
    points = f'<h3 id="{points_anchor(index)}">Load points</h3>'
    if marker in html:
        html = html.replace(marker, points, 1)
    else:
        html = f'<span id="{points_anchor(index)}"></span>{html}'
    engine_io = "<h3>Engine I/O per transaction</h3>"
    html = html.replace(engine_io, f'<h3 id="{engine_io_anchor(index)}">{engine_io[4:]}', 1)
    return f'<div class="run-part" id="{run_anchor(index)}">{html}</div>'


def results_body(
    runs: list[Run], names: list[str], samples: dict[str, list[dict[str, Any]]] | None
) -> tuple[str, bool]:
    """The results section's body, and whether it drew a database-on-curve overlay."""
    curved = [(r, n) for r, n in zip(runs, names, strict=True) if not is_query_run(r)]
    curve_runs, curve_names = [r for r, _ in curved], [n for _, n in curved]
    overlay, placed = overlay_figures(curve_runs, curve_names)
    parts = [cards(runs, names), overlay, curves(curve_runs, curve_names, placed)]
    parts.append(moved_io_body(runs, names))
    for i, (run, name) in enumerate(zip(runs, names, strict=True)):
        rows = None if not samples else samples.get(run.run_id) or samples.get(name)
        if is_query_run(run):
            part = dss_section(run, name, rows)
        elif is_database(run):
            part = database_section(run, name, rows)
        else:
            part = io_section(run, name, rows)
        parts.append(_anchored(part, i))
    return "".join(parts), bool(overlay)
