"""A query run's parts of the HTML report (dss, after TR-3476): its section (figures per
query, the points, every query, the load, the engine), its summary card, the words in
"how to read this report", and the comparison across targets with the baseline at 100."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from dbstor.analysis.dss_compare import finished, is_query_run
from dbstor.report.database.waits import waits_block
from dbstor.report.kit.figures import timeseries_chart
from dbstor.report.kit.fmt import fmt_int, fmt_num
from dbstor.report.kit.layers import layers_html
from dbstor.report.queries.figures import comparison_query_charts, relative_chart, run_query_charts
from dbstor.report.queries.tables import (
    comparison_queries_table,
    comparison_runs_table,
    fmt_s,
    load_table,
    point_title,
    points_table,
    queries_table,
)
from dbstor.results.model import Run

__all__ = ["dss_card", "dss_comparison_block", "dss_howto", "dss_section"]

CACHE_WORDS = {
    "warm": "warm: one unmeasured power run filled the caches before the first point",
    "cold": (
        "cold: before each point the engine restarted and its files were dropped from the "
        "host's page cache"
    ),
}
FIGURE_CAPTIONS = (
    "Elapsed time of each query, lower is better: TR-3476's Figure 4. A throughput run's "
    "bar is the mean over its streams.",
    "What the device under the target read while each query ran (MB/s from /proc/diskstats "
    "at the query's start and end): TR-3476's Figure 5. In a throughput run the streams "
    "share the device, so a query's figure includes the others' reads.",
    "How busy the host's CPUs were while each query ran (/proc/stat at its start and end): "
    "TR-3476's Figure 6. Queries shorter than two clock ticks (20 ms) show none: /proc/stat "
    "counts CPU in ticks of 10 ms, too coarse to time them.",
)


def _badge(status: str) -> str:
    text = {"running": "still running"}.get(status, status)
    return f'<span class="badge {escape(status)}">{escape(text)}</span>'


def _what_ran(run: Run) -> str:
    engine, workload = run.engine or {}, run.workload or {}
    parts = [
        " ".join(
            str(x) for x in (engine.get("title") or engine.get("name"), engine.get("version")) if x
        ),
        "external server" if engine.get("managed") is False else "managed by dbstor",
    ]
    title = workload.get("title") or workload.get("name")
    scale = workload.get("scale")
    parts.append(f"{title}, scale {fmt_num(scale, 6)}" if scale is not None else str(title))
    names = [str(q.get("name")) for q in workload.get("queries") or []]
    if names:
        parts.append("queries " + ", ".join(names))
    values = (workload.get("series") or {}).get("values") or []
    if values:
        parts.append("streams " + ", ".join(fmt_num(v) for v in values))
    cache = workload.get("cache")
    if cache:
        parts.append(str(cache))
    timeout = workload.get("query_timeout_s")
    if isinstance(timeout, int | float):
        parts.append(f"query timeout {fmt_num(timeout)} s")
    return " · ".join(p for p in parts if p)


def _notes(run: Run) -> str:
    """Each point's notes (cold, memory) under its title."""
    items = [
        f"<li><b>{escape(point_title(p))}</b>: {escape(note)}</li>"
        for p in run.points
        for note in p.trust.notes
    ]
    return f'<ul class="point-notes">{"".join(items)}</ul>' if items else ""


def dss_section(run: Run, name: str, rows: list[dict[str, Any]] | None) -> str:
    """The section of one query run."""
    workload = run.workload or {}
    parts = [
        f'<section class="run database dss"><h2>{escape(name)}{_badge(run.status)}</h2>',
        f'<p class="meta">{escape(_what_ran(run))}</p>',
    ]
    cache = workload.get("cache")
    if cache in CACHE_WORDS:
        words = CACHE_WORDS[cache].capitalize()
        if cache == "cold" and any((p.trust.rounds or 0) > 1 for p in run.points):
            words = words.replace("before each point", "before each point and each of its rounds")
        parts.append(f'<div class="callout">{escape(words)}.</div>')
    memory = [n for p in finished(run) for n in p.trust.notes if n.startswith("memory served")]
    if memory:
        parts.append(f'<div class="callout memory">{escape(memory[0].capitalize())}.</div>')
    for chart, caption in zip(run_query_charts(run), FIGURE_CAPTIONS, strict=True):
        parts.append(f"<figure>{chart}<figcaption>{escape(caption)}</figcaption></figure>")
    series = timeseries_chart(run, rows) if rows else None
    if series:
        parts.append(
            f"<figure>{series}<figcaption>One sample per second over the points; a grey line "
            "marks the start of each point.</figcaption></figure>"
        )
    parts.append("<h3>Load points</h3>")
    parts.append(
        "<p>A power run's total elapsed time is the sum of its query times (TR-3476's total "
        "execution time); a throughput run's is the wall time of its slowest stream. Queries "
        "per hour = finished queries × 3600 / total elapsed time (TPC-H's throughput: "
        "streams × queries × 3600 / elapsed). Read MB/s, IOPS and CPU are over the whole "
        "point.</p>"
    )
    parts.append(points_table(run))
    parts.append(_notes(run))
    parts.append(layers_html(run))  # beyond this host: by layer, or which layer is missing
    parts.append(waits_block(run))  # the engine's own waits, where it gave them
    for point in run.points:
        parts.append(f"<h3>Queries: {escape(point_title(point))}</h3>")
        parts.append(queries_table(point))
    parts.append("<h3>Loading the database</h3>")
    parts.append(load_table(run))
    parts.append("</section>")
    return "".join(parts)


def dss_card(run: Run, name: str) -> str:
    """The summary card: total elapsed of the first finished point, the best queries/h."""
    workload = run.workload or {}
    lines = []
    points = finished(run)
    if points:
        first = points[0]
        m = first.workload_metrics or {}
        count = int(m.get("queries", len(first.queries or [])))
        lines.append(
            f"Total elapsed {fmt_s(m.get('total_elapsed_s'))} s for {count} queries "
            f"({point_title(first)}), geometric mean {fmt_s(m.get('geomean_s'))} s."
        )
        best = max(points, key=lambda p: (p.workload_metrics or {}).get("queries_per_hour") or 0)
        qph = (best.workload_metrics or {}).get("queries_per_hour")
        lines.append(f"Most queries per hour: {fmt_int(qph)} ({point_title(best)}).")
        bad = sum(q.get("status") != "ok" for p in points for q in p.queries or [])
        if bad:
            lines.append(f"{bad} queries failed or ran past the timeout: see the tables.")
    else:
        lines.append("No load point finished.")
    meta = " · ".join(
        str(x) for x in (workload.get("name"), (run.engine or {}).get("name"), run.run_id) if x
    )
    body = "".join(f"<p>{escape(line)}</p>" for line in lines)
    return (
        f'<div class="card"><h3>{escape(name)}{_badge(run.status)}</h3>'
        f'<p class="meta">{escape(meta)}</p>{body}</div>'
    )


def dss_howto(runs: Sequence[Run]) -> list[str]:
    """The items of "how to read this report" for query runs (HTML list items)."""
    if not any(is_query_run(r) for r in runs):
        return []
    return [
        "<li><b>Query runs (decision support)</b>: a <b>power run</b> runs each selected query "
        "once, in order, on one connection; a <b>throughput run</b> runs N query streams at "
        "once, each on its own connection and in its own order. Elapsed time is lower-is-"
        "better. A power run's total is the sum of its query times, a throughput run's the "
        "wall time of its slowest stream; queries per hour = finished queries × 3600 / total. "
        "Query runs have no latency limit: they are compared by elapsed time.</li>",
        "<li><b>Per query</b>: read MB/s, IOPS and CPU come from /proc/diskstats and /proc/stat "
        "read at the query's start and end. <b>Warm</b> runs meet whatever the engine and the "
        "host's page cache hold after one unmeasured power run; <b>cold</b> points start with "
        "the engine restarted and its files dropped from the page cache, so the storage does "
        "the reading (a storage array's own cache is not dropped).</li>",
        *_held_item(runs),
    ]


def _held_item(runs: Sequence[Run]) -> list[str]:
    """How a held query point ran (runs/queries/steady.py), when any was held."""
    if not any(p.trust.max_s for r in runs if is_query_run(r) for p in r.points):
        return []
    return [
        "<li><b>Held until steady</b>: a query point runs its whole query set in rounds (a "
        "cold point made cold again before each) until the rounds' queries per hour are "
        "steady by SNIA PTS's test of rounds: over the last five rounds (three at least) "
        "the fitted line moves them less than 10% of their mean and they lie within 20% "
        "of it, up to the point's maximum. The figures are the last round's; a point that "
        "never got steady says so and how far it drifted.</li>"
    ]


def dss_comparison_block(comparison: dict[str, Any]) -> str:
    """Query runs across targets: the relative chart, the three per-query figures, tables."""
    baseline = str(comparison.get("baseline", ""))
    parts = [f"<h2>Comparison against {escape(baseline)} (baseline = 100, lower is better)</h2>"]
    if comparison.get("comparable") is False:
        parts.append(
            '<div class="callout bad"><b>These runs are not comparable as they stand.</b> '
            "Read the warnings before using the figures.</div>"
        )
    for warning in comparison.get("warnings") or []:
        parts.append(f'<div class="callout warn">{escape(str(warning))}</div>')
    factors = comparison.get("factors") or []
    if factors:
        items = "".join(
            f"<li><b>{escape(str(f.get('label')))} vs {escape(baseline)}</b>: "
            f"{escape(str(f.get('text')))}</li>"
            for f in factors
        )
        parts.append(f'<ul class="factors">{items}</ul>')
    parts.append(
        f"<figure>{relative_chart(comparison)}<figcaption>Total elapsed time of the queries and "
        f"each query's elapsed time as a share of {escape(baseline)}'s: under 100 is faster, "
        "over 100 slower (TR-3476: iSCSI's 2389.9 s against FC's 2131.1 s is 112).</figcaption>"
        "</figure>"
    )
    parts.append(comparison_runs_table(comparison))
    for chart, caption in zip(comparison_query_charts(comparison), FIGURE_CAPTIONS, strict=True):
        parts.append(f"<figure>{chart}<figcaption>{escape(caption)}</figcaption></figure>")
    parts.append("<h3>Elapsed time per query</h3>")
    parts.append(comparison_queries_table(comparison))
    return f'<section class="comparison dss" id="comparison">{"".join(parts)}</section>'
