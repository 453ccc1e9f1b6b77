"""The terminal summary of a query run and of a query comparison: a table per run of its
points (total elapsed, queries per hour, geometric mean, device reads, CPU), then the
comparison with the baseline at 100. Strings from results go in as Text, never markup.

report/console.py calls these for query runs (see dbstor.analysis.dss_compare.is_query_run
and a comparison's kind "dss")."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dbstor.report.kit.figures import run_names
from dbstor.report.kit.fmt import DASH, fmt_int, fmt_mbps, fmt_num, fmt_pct
from dbstor.report.kit.terminal import fitted_table
from dbstor.report.queries.tables import fmt_s, point_title
from dbstor.results.model import Run

_STATUS_STYLE = {"complete": "green", "interrupted": "yellow", "running": "yellow", "failed": "red"}


def print_dss_summary(run: Run, console: Console | None = None) -> None:
    """Every point of a query run, its notes, and the queries that did not finish."""
    console = console or Console()
    name = run_names([run])[0]
    engine = (run.engine or {}).get("title") or (run.engine or {}).get("name", "")
    status = Text(run.status, style=_STATUS_STYLE.get(run.status, ""))
    title = Text.assemble(name, " · ", f"dss on {engine}", " · ", status)
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("point", no_wrap=True)
    for header in ("total s", "queries/h", "geomean s", "ok/not", "read MB/s", "CPU"):
        table.add_column(header, justify="right", no_wrap=True)
    lines: list[Text] = []
    for point in run.points:
        m = point.workload_metrics or {}
        bad = int(m.get("queries_failed", 0)) + int(m.get("queries_timeout", 0))
        label = point_title(point)
        if not point.ok:
            table.add_row(Text(label), *[DASH] * 6)
            lines.append(Text(f"{label}: {point.status}: {point.error or ''}", style="red"))
            continue
        table.add_row(
            Text(label),
            fmt_s(m.get("total_elapsed_s")),
            fmt_int(m.get("queries_per_hour")),
            fmt_s(m.get("geomean_s")),
            f"{fmt_int(m.get('queries_ok'))}/{bad}",
            fmt_mbps(point.read_mbps),
            fmt_pct(point.cpu.util_pct if point.cpu else None),
        )
        for q in point.queries or []:
            if q.get("status") != "ok":
                lines.append(
                    Text(f"{label}: {q.get('name')} {q.get('status')}: {q.get('error')}", "yellow")
                )
        lines += [Text(f"{label}: {note}", style="dim") for note in point.trust.notes]
    console.print(table)
    for line in lines:
        console.print(line)
    for note in run.notes or []:
        console.print(Text(f"note: {note}", style="yellow"))


def print_dss_comparison(comparison: dict[str, Any], console: Console | None = None) -> None:
    """Totals with the baseline at 100 (lower is better), then the factors and warnings."""
    console = console or Console()
    baseline = str(comparison.get("baseline", ""))
    whose = comparison.get("cpu_from")  # the runs' own CPU where counted (dss_compare.py)
    cpu = "host CPU" if whose in (None, "the whole host") else "own CPU"
    table = fitted_table(
        Text(f"Compared with {baseline} (= 100, lower elapsed is better)"),
        ["run", "at"],
        ["total elapsed s", "queries/h", "read MB/s", cpu],
    )
    for run in comparison.get("runs") or []:
        v, n = run.get("values") or {}, run.get("normalised") or {}

        def pair(key: str, fmt: Any, v: dict = v, n: dict = n) -> str:
            if v.get(key) is None:
                return DASH
            norm = n.get(key)
            return fmt(v[key]) + ("" if norm is None else f" ({fmt_num(norm, 3)})")

        table.add_row(
            Text(str(run.get("label"))),
            Text(str(run.get("basis") or DASH)),
            pair("total_elapsed_s", fmt_s),
            pair("queries_per_hour", fmt_int),
            pair("read_mbps", fmt_mbps),
            pair("cpu_pct", fmt_pct),
        )
    console.print(table)
    for warning in comparison.get("warnings") or []:
        console.print(Text(f"warning: {warning}", style="yellow"))
    for factor in comparison.get("factors") or []:
        console.print(Text(f"{factor.get('label')} vs {baseline}: {factor.get('text')}"))
