"""The appendix: run ids, where everything ran on this machine (paths, process ids,
ports, cgroups), the flags legend and every recorded fact as readable rows, nested
values spelled out one per row (never a Python dict)."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.document.private import is_machine
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_value
from dbstor.report.kit.summary import slo_of
from dbstor.report.kit.tables import flag_legend, scroll_table, status_badge
from dbstor.results.model import Run


def _scalar(key: str, value: Any) -> str:
    leaf = key.rsplit(" · ", 1)[-1]
    if leaf in ("port", "pid") and isinstance(value, int):
        return str(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and leaf.endswith("bytes"):
        return fmt_bytes(value)
    return fmt_value(value)


def flat_rows(prefix: str, value: Any) -> list[tuple[str, str]]:
    """A nested value as (dotted name, text) rows: 'databases 1 · series · kind'."""
    if isinstance(value, dict):
        rows = []
        for key, inner in value.items():
            rows += flat_rows(f"{prefix} · {key}" if prefix else str(key), inner)
        return rows
    if isinstance(value, list | tuple) and any(isinstance(v, dict | list) for v in value):
        rows = []
        for i, inner in enumerate(value, 1):
            rows += flat_rows(f"{prefix} {i}", inner)
        return rows
    return [(prefix, _scalar(prefix, value))]


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>" if body else ""


def _machine(run: Run) -> list[tuple[str, str]]:
    rows = []
    for group, data in (("target", run.target), ("engine", run.engine), ("workload", run.workload)):
        for key, value in (data or {}).items():
            if is_machine(key, value):
                rows += flat_rows(f"{group} · {key}", value)
    return rows


def _runs_table(runs: list[Run], names: list[str]) -> str:
    rows = [
        f'<tr><th scope="row">{escape(name)}</th><td>{escape(run.run_id)}</td>'
        f"<td>{escape(str(run.created_at or DASH))}</td><td>{status_badge(run.status)}</td>"
        f"<td>{escape(str(run.tool_version))}</td><td>{escape(slo_of(run).text)}</td></tr>"
        for run, name in zip(runs, names, strict=True)
    ]
    return scroll_table(["run", "run id", "created", "status", "dbstor", "SLO"], rows)


LONG_FACTS = 12  # rows: a longer block may run on to the next printed page


def appendix_body(runs: list[Run], names: list[str]) -> str:
    """Run ids, machine details, the flags legend and the raw facts of every run."""
    parts = ["<h3>Runs</h3>", _runs_table(runs, names)]
    for run, name in zip(runs, names, strict=True):
        groups = [
            ("On this machine", _machine(run)),
            ("Target", flat_rows("", run.target)),
            ("Workload", flat_rows("", run.workload)),
            ("Engine", flat_rows("", run.engine)),
            ("Host", flat_rows("", run.host)),
            ("Study", flat_rows("", run.study)),
        ]
        blocks = "".join(
            f'<div class="facts{" long" if len(rows) > LONG_FACTS else ""}"><h4>{escape(title)}'
            f"</h4>{_table(rows)}</div>"
            for title, rows in groups
            if rows
        )
        parts.append(f'<h3>{escape(name)}</h3><div class="fact-grid">{blocks}</div>')
    parts.append(f'<h3 id="flags">Flags</h3>{flag_legend()}')
    return "".join(parts)
