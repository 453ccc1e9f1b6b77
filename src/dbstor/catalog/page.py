"""index.html: one self-contained page (inline CSS, script and SVG, nothing from the network)
listing every run and study under a results folder, with filters, a comparison of the runs
selected against a chosen baseline, the trends of repeated measurements with their steps,
and the folders that could not be read with the reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape
from typing import Any

from dbstor import __version__
from dbstor.catalog.page_script import SCRIPT
from dbstor.catalog.trend_chart import trend_svg
from dbstor.report.kit.style import CSS

COLUMNS = (
    ("created_at", "date"),
    ("target", "target"),
    ("engine", "engine"),
    ("workload", "workload / profile"),
    ("load_kind", "load"),
    ("tags", "tags"),
    ("host", "host"),
    ("status", "status"),
)
EXTRA_CSS = """
.index-table input[type=text] { width: 100%; box-sizing: border-box; font-size: 12px; }
.index-table td, .index-table th { padding: 3px 6px; }
.trend { display: inline-block; margin: 0 12px 12px 0; }
.trend figcaption { font-size: 13px; color: #444; }
.pager { margin: 6px 0; }
#compare { border: 1px solid #ccc; padding: 8px 12px; margin: 12px 0; }
"""


def _json_script(data: dict[str, Any]) -> str:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _runs_table() -> str:
    head = "".join(f"<th>{escape(label)}</th>" for _, label in COLUMNS)
    figure_filters = "".join(
        f'<td><input type="text" data-filter="{key}" aria-label="filter {key}" '
        'placeholder="&gt;20k" title="&gt;, &gt;=, &lt;, &lt;= a number (k: thousands)"></td>'
        for key in ("peak", "knee")
    )
    filters = "".join(
        f'<td><input type="text" data-filter="{key}" aria-label="filter {escape(label)}" '
        f'placeholder="filter"></td>'
        for key, label in COLUMNS
    )
    return (
        '<table class="index-table"><thead>'
        f"<tr><th>select</th>{head}<th>peak</th><th>knee</th><th>unit</th><th>report</th></tr>"
        f'<tr class="filters"><td></td>{filters}{figure_filters}<td colspan="2"></td></tr>'
        '</thead><tbody id="runs-body"></tbody></table>'
        '<div class="pager"><button id="prev" type="button">previous</button> '
        '<span id="page-info"></span> <button id="next" type="button">next</button></div>'
    )


def _compare_panel() -> str:
    head = "".join(
        f"<th>{escape(name)}</th><th>= 100</th>"
        for name in ("peak", "knee", "p99 at the middle load (ms)")
    )
    return (
        '<section id="compare" hidden><h2>Selected runs against a baseline</h2>'
        '<label>baseline <select id="baseline"></select></label>'
        f"<table><thead><tr><th>run</th>{head}</tr></thead>"
        '<tbody id="compare-body"></tbody></table>'
        '<p id="compare-note"></p><p id="compare-link"></p></section>'
    )


def _link(href: str | None, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>' if href else escape(text)


def _step_line(
    name: str, step: dict[str, Any], reports: dict[str, Any], pages: dict[tuple[str, ...], str]
) -> str:
    """One step in words, its runs linked to their reports and to their comparison."""
    before, after = step.get("before_run"), step["run"]
    said = (
        f"{escape(SHORT_NAMES.get(name, name))}: {step['change_pct']:+.1f}% at {_link(reports.get(after), after)} "
        f"(threshold {step['threshold_pct']:.1f}%)"
    )
    if before:
        said += f"; the run before: {_link(reports.get(before), before)}"
        page = pages.get((before, after))
        if page:
            said += f"; {_link(page, 'the comparison of the two')}"
    return said


SHORT_NAMES = {"knee": "the knee", "peak": "the peak", "latency_at_load": "the p99 at load"}


def _at_load(trend: dict[str, Any]) -> str:
    """Where the latency trend is read: "read p99 at iodepth 4" (empty when unknown)."""
    metric, load = trend.get("latency_metric"), trend.get("latency_load")
    if not metric or load is None:
        return ""
    what = str(metric).replace("_lat_p99_ms", " p99").replace("_", " ")
    what = what.replace("txn ", "transaction ")
    return f"{what} at {trend.get('load_kind') or 'load'} = {load:g}"


def _trends(index: dict[str, Any]) -> str:
    reports = {e["folder"]: e.get("report") for e in index["entries"] if e.get("kind") == "run"}
    pages = {tuple(c["runs"]): c["report"] for c in index.get("comparisons") or []}
    blocks = []
    for trend in index["trends"]:
        charts = "".join(
            trend_svg(name, figure, reports, trend.get("unit") or "", _at_load(trend))
            for name, figure in trend["figures"].items()
        )
        steps = [_step_line(name, s, reports, pages) for name, figure in trend["figures"].items()
                 for s in figure["steps"]]  # fmt: skip
        said = "<ul>" + "".join(f"<li>{s}</li>" for s in steps) + "</ul>" if steps else ""
        unjudged = [
            SHORT_NAMES.get(n, n)
            for n, f in trend["figures"].items()
            if f["values"] and not f.get("judgeable", True)
        ]
        if unjudged:
            said += (
                f"<p>Too few runs to tell a step from noise in {escape(', '.join(unjudged))}: "
                "a step needs two runs on each side of it, or runs measured with repeats "
                "(--repeats 3) whose own spread is known.</p>"
            )
        elif not steps:
            said = "<p>No step: every change stays within the runs' spread and their neighbours' noise.</p>"
        blocks.append(f"<h3>{escape(trend['key'])}</h3>{said}{charts}")
    if not blocks:
        return ""
    return (
        '<section id="trends"><h2>Trends</h2><p>Runs with the same comparison key (target, '
        "workload or profile and scale, load series, engine), oldest to newest. A step is a "
        "change larger than the runs' own spread (repeats) and than the scatter of their "
        "neighbours.</p>" + "".join(blocks) + "</section>"
    )


def _comparisons(index: dict[str, Any]) -> str:
    written = index.get("comparisons") or []
    if not written:
        return ""
    items = "".join(
        f'<li><a href="{escape(c["report"])}">{escape(", ".join(c["runs"][1:]))} against '
        f"{escape(c['baseline'])}</a>"
        + ("" if c.get("comparable", True) else " (not comparable: see the report)")
        + "</li>"
        for c in written
    )
    return (
        '<section id="comparisons"><h2>Comparisons</h2><p>Written by <code>dbstor index</code> '
        "for each step (the run before it the baseline) and for each <code>--compare</code>; "
        "written again when one of their runs changes.</p>"
        f"<ul>{items}</ul></section>"
    )


def _study_runs(study: dict[str, Any]) -> str:
    """'3 runs', or '3 runs, 1 gone: ID' when run folders were deleted or moved."""
    gone = study.get("missing") or []
    said = f"{len(study['runs'])} runs"
    return f"{said}, {len(gone)} gone: {escape(', '.join(gone))}" if gone else said


def _others(index: dict[str, Any]) -> str:
    studies = [e for e in index["entries"] if e.get("kind") == "study"]
    bad = [e for e in index["entries"] if e.get("kind") == "unreadable"]
    parts = []
    if studies:
        items = "".join(
            f'<li><a href="{escape(s["report"])}">{escape(s["folder"])}</a> ({_study_runs(s)})</li>'
            if s.get("report")
            else f"<li>{escape(s['folder'])} ({_study_runs(s)}, no report)</li>"
            for s in studies
        )
        parts.append(f'<section id="studies"><h2>Studies</h2><ul>{items}</ul></section>')
    if bad:
        items = "".join(f"<li>{escape(e['folder'])}: {escape(e['error'])}</li>" for e in bad)
        parts.append(
            f'<section id="unreadable"><h2>Folders that could not be read</h2><ul>{items}</ul></section>'
        )
    return "".join(parts)


def index_page(index: dict[str, Any], root: str) -> str:
    runs = sum(e.get("kind") == "run" for e in index["entries"])
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    data = {
        "root": root,
        "entries": index["entries"],
        "comparisons": index.get("comparisons") or [],
    }
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>dbstor index: {escape(root)}</title>"
        f"<style>{CSS}{EXTRA_CSS}</style></head><body><main>"
        f"<header><h1>dbstor runs in {escape(root)}</h1>"
        f'<p class="meta">{runs} runs · index generated {generated} by dbstor {escape(__version__)}</p></header>'
        f'<section id="runs"><h2>Runs</h2><p>Type in a filter to narrow the list (tags as '
        "KEY=VALUE, peak and knee as &gt;20k or &lt;=5000); tick two or more runs to set them side by side.</p>"
        f"{_runs_table()}{_compare_panel()}</section>"
        f"{_comparisons(index)}{_trends(index)}{_others(index)}"
        f'<script type="application/json" id="index-data">{_json_script(data)}</script>'
        f"<script>{SCRIPT}</script></main></body></html>"
    )
