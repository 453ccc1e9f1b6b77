"""One self-contained HTML report per run or study: inline CSS and inline SVG, no scripts,
no fonts or files from the network, so it opens anywhere and can be forwarded as is."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from dbstor import __version__
from dbstor.analysis.dss_compare import is_query_run
from dbstor.report.database.figures import overlay_chart, tps_latency_curve
from dbstor.report.database.memory import memory_html, memory_sentence
from dbstor.report.database.overlay import overlay_caption, overlays
from dbstor.report.database.section import database_section
from dbstor.report.io.section import io_section
from dbstor.report.kit.comparison import comparison_block
from dbstor.report.kit.figures import curve_chart, host_tool, run_names
from dbstor.report.kit.style import CSS
from dbstor.report.kit.summary import (
    cache_sentence,
    is_database,
    knee_sentence,
    peak_sentence,
    slo_of,
)
from dbstor.report.kit.tables import STATUS_TEXT, flag_legend, status_badge
from dbstor.report.queries.section import (
    dss_card,
    dss_comparison_block,
    dss_howto,
    dss_section,
)
from dbstor.results.model import Run
from dbstor.results.store import REPORT_FILE, write_text_atomic
from dbstor.safefs import is_dbstor_html


def _default_title(runs: Sequence[Run], names: list[str]) -> str:
    if len(runs) == 1:
        workload = (runs[0].workload or {}).get("name", "")
        return f"dbstor report: {names[0]}" + (f", {workload}" if workload else "")
    study = (runs[0].study or {}).get("name")
    return f"dbstor study: {study}" if study else f"dbstor study: {len(runs)} runs"


def _header(title: str, runs: Sequence[Run]) -> str:
    dates = sorted(str(r.created_at)[:16].replace("T", " ") for r in runs if r.created_at)
    when = "" if not dates else dates[0] if len(set(dates)) == 1 else f"{dates[0]} to {dates[-1]}"
    produced = sorted({str(r.tool_version) for r in runs})
    versions = "" if produced == [__version__] else f" (runs made by dbstor {', '.join(produced)})"
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    count = "1 run" if len(runs) == 1 else f"{len(runs)} runs"
    return (
        f"<header><h1>{escape(title)}</h1>"
        f'<p class="meta">{escape(count)} · measured {escape(when or "at an unknown date")} · '
        f"report generated {generated} by dbstor {escape(__version__)}{escape(versions)}</p></header>"
    )


_LOAD_WORDS = {
    "iodepth": "a queue depth (QD: how many I/Os fio keeps in flight)",
    "users": "a number of virtual users, each running transactions back to back",
    "instances": "a number of database instances run side by side, each with the same users",
    "rate": "a request rate per second",
    "streams": "a number of parallel query streams",
}


def _howto(runs: Sequence[Run], overlaid: bool) -> str:
    queries, runs = dss_howto(runs), [r for r in runs if not is_query_run(r)]
    if not runs:
        return f'<section class="howto"><h2>How to read this report</h2><ul>{"".join(queries)}</ul></section>'
    kinds = {p.load.kind for r in runs for p in r.points}
    what = " or ".join(_LOAD_WORDS.get(k, k) for k in sorted(kinds)) or "a level of load"
    fio = [r for r in runs if not is_database(r)]
    dbs = [r for r in runs if is_database(r)]
    slos = [f"{slo_of(fio[0]).text} for fio"] if fio else []
    slos += [f"{slo_of(dbs[0]).text} for the database"] if dbs else []
    if len({slo_of(r).text for r in runs}) != len(slos):
        slos = sorted({slo_of(r).text for r in runs})
    items = [
        f"<li><b>Load point</b>: one level of load, here {escape(what)}, held steady for a fixed "
        "time after a warm-up. Each marker on a curve is one load point; load rises left to "
        "right.</li>"
    ]
    if overlaid:
        items.append(
            "<li><b>The database on the storage's curve</b> comes first: the line is what the "
            "storage can do (fio raising the queue depth), the separate markers are where the "
            "database actually ran (the IOPS and read await the device saw at each of its load "
            "points). Far left of the line's bend, the storage is not what limits the database.</li>"
        )
    items.append(
        "<li>As load rises, throughput rises until the storage (or the host) saturates; past "
        "that, more load only adds queueing, so latency climbs while throughput stays flat.</li>"
    )
    items.append(
        f"<li><b>SLO</b>: the latency limit chosen for this study, {escape('; '.join(slos))}. "
        "The <b>knee</b> is the highest load whose latency stays within the SLO, interpolated "
        "between the points either side: the throughput you can count on, not the peak.</li>"
    )
    if fio and host_tool(fio) == "fio":
        items.append(
            "<li><b>fio latency is measured in two places.</b> At the host: fio's completion "
            "latency, from submitting an I/O to its completion, including the host I/O stack and "
            "the path. At the device: the await from /proc/diskstats, the mean time a request "
            "spent queued and served at the block device. A wide gap points at the host stack "
            "or the path.</li>"
        )
    if dbs:
        items.append(
            "<li><b>Databases</b>: TPS is transactions per second the virtual users committed; "
            "transaction latency is what the client saw, from the start of a transaction to its "
            "commit. The device figures (IOPS, read and write await) come from /proc/diskstats "
            "for the device under the target: what the storage actually had to do. When the "
            "engine's cache or the host's page cache serves the reads, the storage barely works "
            "and TPS measures the host, not the storage; the report says so.</li>"
        )
    if fio and host_tool(fio) != "fio":
        items.append(
            "<li><b>Latency</b>: the latency the client sees, from sending a request to its "
            "answer; the device's await from /proc/diskstats is shown beside it.</li>"
        )
    items.extend(queries)
    items.append(
        "<li>Flags in the tables mark numbers to trust less; the legend at the end explains "
        "them.</li>"
    )
    return f'<section class="howto"><h2>How to read this report</h2><ul>{"".join(items)}</ul></section>'


def _callouts(runs: Sequence[Run], names: list[str]) -> str:
    parts = []
    for run, name in zip(runs, names, strict=True):
        memory = None if is_query_run(run) else memory_sentence(run)  # its section says it
        if memory:
            who = f"<b>{escape(name)}</b>: " if len(runs) > 1 else ""
            parts.append(f'<div class="callout memory">{who}{memory_html(memory)}</div>')
    for run, name in zip(runs, names, strict=True):
        who = f"<b>{escape(name)}</b>: " if len(runs) > 1 else ""
        finished = sum(1 for p in run.points if p.ok)
        if run.status == "failed":
            parts.append(
                f'<div class="callout bad">{who}the run <b>failed</b>; {finished} of '
                f"{len(run.points)} load points finished and are shown.</div>"
            )
        elif run.status in ("interrupted", "running"):
            parts.append(
                f'<div class="callout warn">{who}the run is <b>{escape(STATUS_TEXT[run.status])}</b>; '
                f"this report covers the {finished} load points that finished.</div>"
            )
        for note in run.notes or []:
            parts.append(f'<div class="callout warn">{who}{escape(str(note))}</div>')
    return "".join(parts)


def _cards(runs: Sequence[Run], names: list[str]) -> str:
    cards = []
    for run, name in zip(runs, names, strict=True):
        if is_query_run(run):
            cards.append(dss_card(run, name))
            continue
        workload = (run.workload or {}).get("name", "")
        engine = (run.engine or {}).get("name", "")
        lines = [peak_sentence(run), knee_sentence(run)]
        cache = cache_sentence(run)
        if cache:
            lines.append(cache)
        if memory_sentence(run):
            lines.append("reads came from memory: see the warning above.")
        body = "".join(f"<p>{escape(line[0].upper() + line[1:])}</p>" for line in lines)
        cards.append(
            f'<div class="card"><h3>{escape(name)}{status_badge(run.status)}</h3>'
            f'<p class="meta">{escape(" · ".join(x for x in (workload, engine, run.run_id) if x))}</p>'
            f"{body}</div>"
        )
    return f'<section><h2>Summary</h2><div class="cards">{"".join(cards)}</div></section>'


def _overlay_sections(runs: Sequence[Run], names: list[str]) -> tuple[str, set[str]]:
    """The database-on-the-storage's-curve figures, and the run ids they place."""
    by_id = {run.run_id: name for run, name in zip(runs, names, strict=True)}
    parts, placed = [], set()
    for overlay in overlays(runs):
        placed |= {r.run_id for r in overlay.databases}
        where = f" ({escape(overlay.label)})" if len(runs) > 2 else ""
        parts.append(
            f'<section class="overlay"><h2>The database on the storage\'s curve{where}</h2>'
            f"<figure>{overlay_chart(overlay, by_id)}<figcaption>"
            f"{escape(overlay_caption(overlay, by_id))} <span>The line is fio's mean read "
            "latency at each queue depth; the database's markers are the device's mean read "
            "await at each load point, so both show a mean read latency.</span></figcaption>"
            "</figure></section>"
        )
    return "".join(parts), placed


def _curves(runs: Sequence[Run], names: list[str], placed: set[str]) -> str:
    """The IOPS-latency curves: fio runs on their own SLO, database runs not on an overlay
    on theirs (a device measure), and the database runs' TPS against transaction p99."""
    by_id = {run.run_id: name for run, name in zip(runs, names, strict=True)}
    caption = (
        "Each marker is a load point, labelled with its load. Where a line crosses the dashed "
        "SLO line is the knee (ringed); the rightmost marker is the peak."
    )
    parts = []
    fio = [r for r in runs if not is_database(r)]
    dbs = [r for r in runs if is_database(r)]
    if fio:
        chart = curve_chart(fio, [by_id[r.run_id] for r in fio])
        parts.append(f"<figure>{chart}<figcaption>{caption}</figcaption></figure>")
    groups: dict[str, list[Run]] = {}
    for run in dbs:
        if run.run_id not in placed:
            groups.setdefault(slo_of(run).metric, []).append(run)
    for group in groups.values():
        note = " For a database, IOPS and read latency are the device's, from /proc/diskstats."
        chart = curve_chart(group, [by_id[r.run_id] for r in group])
        parts.append(f"<figure>{chart}<figcaption>{caption}{note}</figcaption></figure>")
    if dbs:
        parts.append(
            f"<figure>{tps_latency_curve(dbs, by_id)}<figcaption>The database's own view: "
            "transactions per second against the p99 transaction latency the client measured, "
            "one marker per load point.</figcaption></figure>"
        )
    heading = "IOPS against latency" if fio or groups else "Transactions against latency"
    return f"<section><h2>{heading}</h2>{''.join(parts)}</section>"


def _samples_for(samples: dict[str, list[dict]] | None, run: Run, name: str) -> list[dict] | None:
    if not samples:
        return None
    return samples.get(run.run_id) or samples.get(name)


def render_report(
    runs: list[Run],
    samples: dict[str, list[dict]] | None = None,
    comparison: dict | None = None,
    title: str | None = None,
    extra_sections: list[str] | None = None,
) -> str:
    """A complete HTML document for one run or a study of several.

    `samples` maps run_id to samples.csv rows; `comparison` is analysis.compare's dict;
    `extra_sections` are HTML fragments appended as they are.
    """
    if not runs:
        raise ValueError("render_report needs at least one run")
    names = run_names(runs)
    title = title or _default_title(runs, names)
    curved = [(r, n) for r, n in zip(runs, names, strict=True) if not is_query_run(r)]
    curve_runs, curve_names = [r for r, _ in curved], [n for _, n in curved]
    overlay, placed = _overlay_sections(curve_runs, curve_names)
    body = [
        _header(title, runs),
        _callouts(runs, names),
        _howto(runs, bool(overlay)),
        overlay,
        _cards(runs, names),
        _curves(curve_runs, curve_names, placed) if curve_runs else "",
    ]
    if comparison:
        dss = comparison.get("kind") == "dss"
        body.append(dss_comparison_block(comparison) if dss else comparison_block(comparison))
    for run, name in zip(runs, names, strict=True):
        rows = _samples_for(samples, run, name)
        if is_query_run(run):
            body.append(dss_section(run, name, rows))
        elif is_database(run):
            body.append(database_section(run, name, rows))
        else:
            body.append(io_section(run, name, rows))
    body.append(f"<section><h2>Flags</h2>{flag_legend()}</section>")
    body.extend(extra_sections or [])
    body.append(
        f"<footer>Generated by dbstor {escape(__version__)}. This file is self-contained: "
        "no scripts, no network.</footer>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="dbstor {escape(__version__)}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def write_report(
    folder: Path,
    runs: list[Run],
    samples: dict[str, list[dict]] | None = None,
    comparison: dict | None = None,
    title: str | None = None,
    extra_sections: list[str] | None = None,
) -> Path:
    """Render the report and write folder/report.html atomically; returns its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / REPORT_FILE
    page = render_report(runs, samples, comparison, title, extra_sections)
    fix = "render into another folder"  # an earlier report of dbstor's it replaces
    write_text_atomic(path, page, replaceable=is_dbstor_html, fix=fix)
    return path
