"""One self-contained HTML report per run or study: inline CSS and inline SVG, no scripts,
no fonts or files from the network, so it opens anywhere and can be forwarded as is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from dbstor import __version__
from dbstor.report.document.analyses import guarded, load_analyses
from dbstor.report.document.appendix import appendix_body
from dbstor.report.document.capacity import capacity_body
from dbstor.report.document.conclusion import conclusion_body
from dbstor.report.document.configuration import configuration_body
from dbstor.report.document.cost import cost_body
from dbstor.report.document.efficiency import efficiency_body
from dbstor.report.document.frame import section
from dbstor.report.document.layout_paths import layout_with_paths
from dbstor.report.document.method import method_body
from dbstor.report.document.mix import mix_body, mix_summary
from dbstor.report.document.placement import placement_body
from dbstor.report.document.results import results_body
from dbstor.report.document.summary import summary_body
from dbstor.report.kit.comparison import comparison_block
from dbstor.report.kit.doubts import knee_doubts, peak_doubts
from dbstor.report.kit.figures import run_names
from dbstor.report.kit.style import CSS
from dbstor.report.kit.tables import STATUS_TEXT
from dbstor.report.queries.section import dss_comparison_block
from dbstor.results.model import Run
from dbstor.results.store import REPORT_FILE, write_text_atomic
from dbstor.safefs import is_dbstor_html


def _default_title(runs: Sequence[Run], names: list[str]) -> str:
    if len(runs) == 1:
        workload = (runs[0].workload or {}).get("name", "")
        return f"dbstor report: {names[0]}" + (f", {workload}" if workload else "")
    study = (runs[0].study or {}).get("name")
    return f"dbstor study: {study}" if study else f"dbstor study: {len(runs)} runs"


def run_title(run: Run) -> str:
    """One run's report title, the same when `dbstor report` renders it again: its study's
    name, then the run (a study from flags is already named after its run)."""
    study = run.study or {}
    name = str(study.get("name") or run.run_id)
    if study.get("source") == "command line":
        return name  # 'io-oltp on target', not 'io-oltp on target: target io-oltp'
    return f"{name}: {(run.target or {}).get('label')} {(run.workload or {}).get('name')}"


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


def _callouts(runs: Sequence[Run], names: list[str]) -> str:
    """A failed or unfinished run said first; the runs' notes are in the method."""
    parts = []
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
    return "".join(parts)


def render_report(
    runs: list[Run],
    samples: dict[str, list[dict]] | None = None,
    comparison: dict | None = None,
    title: str | None = None,
    extra_sections: list[str] | None = None,
    analyses: dict | None = None,
) -> str:
    """A complete HTML document for one run or a study of several, in the seeds' order
    (report.document): summary, configuration, layout, method, results, comparison,
    efficiency, capacity, placement, cost, conclusion, appendix.

    `samples` maps run_id to samples.csv rows; `comparison` is analysis.compare's dict;
    `analyses` is the study's analyses.json; `extra_sections` are HTML fragments placed
    before the appendix as they are.
    """
    if not runs:
        raise ValueError("render_report needs at least one run")
    names = run_names(runs)
    title = title or _default_title(runs, names)
    analyses = analyses or {}
    results, overlaid = results_body(runs, names, samples)
    mix = (comparison or {}).get("mix")  # [mix]: its own section, apart from the comparisons
    comparison = {k: v for k, v in (comparison or {}).items() if k != "mix"} or None
    compared = _comparisons(comparison, runs) if comparison else ""
    if analyses.get("unreadable"):
        extra_sections = [*(extra_sections or []), f"<p>{escape(analyses['unreadable'])}</p>"]
    body = [
        _header(title, runs),
        section(
            "summary",
            "Summary",
            _drawn(summary_body, runs, names, comparison, analyses, _callouts(runs, names))
            + mix_summary(mix),
        ),
        section("configuration", "Configuration", _drawn(configuration_body, runs, names)),
        section("layout", "Layout", _drawn(layout_with_paths, runs, names)),
        section("method", "Method", _drawn(method_body, runs, names, overlaid)),
        section("results", "Results", results),
        compared,
        section("mix", "Workloads together", mix_body(mix)),
        section("efficiency", "Space efficiency", guarded(efficiency_body, analyses)),
        section("capacity", "Capacity", guarded(capacity_body, analyses)),
        section(
            "placement",
            "Placement: what belongs on the fast tier",
            guarded(placement_body, analyses),
        ),
        section("cost", "Consolidation and cost", guarded(cost_body, analyses)),
        section(
            "conclusion", "Conclusion", _drawn(conclusion_body, runs, names, comparison, analyses)
        ),
        *(extra_sections or []),
        section("appendix", "Appendix", _drawn(appendix_body, runs, names)),
        f"<footer>Generated by dbstor {escape(__version__)}. This file is self-contained: "
        "no scripts, no network.</footer>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="dbstor {escape(__version__)}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def _comparisons(comparison: dict, runs: list[Run]) -> str:
    """The study's comparisons (analysis/study_compare.py): the first workload compared
    across targets, each other workload's after it, and why a run was compared with none.
    A run compared at a knee or peak the document does not state alone has the flags that
    keep it off the headline beside its basis."""
    by_id = {run.run_id: run for run in runs}
    many = bool(comparison.get("others"))
    blocks = [comparison, *(comparison.get("others") or [])]
    out = []
    for number, block in enumerate(blocks):
        if block.get("kind") == "dss":
            out.append(dss_comparison_block(block))
            continue
        workload = str((block.get("runs") or [{}])[0].get("workload") or "") if many else ""
        anchor = "comparison" if number == 0 else f"comparison-{number + 1}"
        out.append(comparison_block(block, anchor, workload, _basis_doubts(block, by_id)))
    alone = "".join(
        f'<div class="callout warn">{escape(str(line))}</div>'
        for line in comparison.get("not_compared") or []
    )
    return "".join(out) + (f'<section class="comparison">{alone}</section>' if alone else "")


def _basis_doubts(block: dict, by_id: dict[str, Run]) -> dict[str, str]:
    """run_id -> why the figure a comparison row stands on is not stated alone (a knee
    or peak the run's own headline refuses), for the rows that have one."""
    out = {}
    for row in block.get("runs") or []:
        run = by_id.get(str(row.get("run_id")))
        if run is None:
            continue
        why = peak_doubts(run) if row.get("basis") == "peak" else knee_doubts(run)
        if why:
            out[str(row.get("run_id"))] = why
    return out


def _drawn(body: Callable[..., str], *args: Any) -> str:
    """A section's body, or one line saying a field of results.json could not be read (a
    file from another version, or edited by hand) instead of no report at all."""
    try:
        return body(*args)
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError) as exc:
        return (
            f"<p>Not shown: a field in results.json could not be read ({type(exc).__name__}).</p>"
        )


def write_report(
    folder: Path,
    runs: list[Run],
    samples: dict[str, list[dict]] | None = None,
    comparison: dict | None = None,
    title: str | None = None,
    extra_sections: list[str] | None = None,
) -> Path:
    """Render the report (with the folder's analyses.json, if any) and write
    folder/report.html atomically; returns its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / REPORT_FILE
    analyses = load_analyses(folder)
    page = render_report(runs, samples, comparison, title, extra_sections, analyses)
    fix = "copy the folder where you can write and run dbstor report there"
    write_text_atomic(path, page, replaceable=is_dbstor_html, fix=fix)
    return path
