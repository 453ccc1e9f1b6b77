"""HTML table pieces every kind of run uses: cells and headers, a scrolling table, the
trust-flag badges and their legend, the status badge, the notes under a points table,
and the study and host facts.

Every string that comes from results is escaped here: labels and facts are user input.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_iops, fmt_value, load_text
from dbstor.report.kit.summary import FLAG_LEGEND, point_flags, slo_of, table_points
from dbstor.results.model import Point, Run, Spread


def cell(text: str, cls: str = "", title: str = "") -> str:
    """One escaped table cell, with an optional class and tooltip."""
    attrs = (f' class="{cls}"' if cls else "") + (f' title="{escape(title)}"' if title else "")
    return f"<td{attrs}>{escape(text)}</td>"


def spread_cell(total: str, spread: Spread | None, repeats: int, unit: str) -> str:
    """A throughput cell; with repeats, their min–max and median below the figure."""
    if repeats <= 1 or spread is None:
        return f'<td class="num">{escape(total)}</td>'
    low, mid, high = (fmt_iops(v) for v in (spread.minimum, spread.median, spread.maximum))
    title = f"{repeats} repeats: min {low}, median {mid}, max {high} {unit}"
    return (
        f'<td class="num" title="{escape(title)}">{escape(total)}'
        f'<div class="spread">{escape(f"{low}–{high}")}<br>median {escape(mid)}, '
        f"{repeats} repeats</div></td>"
    )


def head_cell(text: str) -> str:
    """A column header; 'name|unit' puts the unit on a second line."""
    name, _, unit = text.partition("|")
    unit_html = f'<br><span class="unit">{escape(unit)}</span>' if unit else ""
    return f'<th scope="col">{escape(name)}{unit_html}</th>'


def flags_cell(point: Point) -> str:
    """A point's trust flags as badges, each with its legend as tooltip."""
    flags = point_flags(point)
    badges = "".join(
        f'<span class="flag flag-{escape(f.replace(" ", "-").replace(".", ""))}" '
        f'title="{escape(FLAG_LEGEND.get(f, f))}">{escape(f)}</span>'
        for f in flags
    )
    return f"<td>{badges or DASH}</td>"


def point_notes(run: Run) -> str:
    """Why points were flagged: saturation reasons and trust notes, below the table."""
    items = []
    for point in table_points(run):
        why = [point.saturation_reason] if point.saturated and point.saturation_reason else []
        why += [str(note) for note in point.trust.notes or []]
        if why:
            load = load_text(point.load.kind, point.load.value, point.load.jobs)
            items.append(f"<li><b>{escape(load)}</b>: {escape('; '.join(why))}</li>")
    return f'<ul class="point-notes">{"".join(items)}</ul>' if items else ""


def flag_legend() -> str:
    """What each trust flag means."""
    items = "".join(
        f'<dt><span class="flag flag-{escape(k.replace(" ", "-").replace(".", ""))}">{escape(k)}</span></dt>'
        f"<dd>{escape(v)}</dd>"
        for k, v in FLAG_LEGEND.items()
    )
    return f'<dl class="legend">{items}</dl>'


def fact_text(key: str, value: Any, nested: bool = False) -> str:
    """A fact value as text: dicts and lists of dicts flattened, sizes in bytes formatted."""
    if isinstance(value, dict):
        if not value:
            return DASH
        text = "; ".join(f"{k}: {fact_text(str(k), v, True)}" for k, v in value.items())
        return f"({text})" if nested else text
    if isinstance(value, list | tuple) and any(isinstance(v, dict) for v in value):
        return " | ".join(fact_text(key, v) for v in value)
    if isinstance(value, int | float) and not isinstance(value, bool) and key.endswith("bytes"):
        return fmt_bytes(value)
    return fmt_value(value)


def _rows(data: dict[str, Any] | None, skip: tuple[str, ...] = ()) -> str:
    out = []
    for key, value in (data or {}).items():
        if key in skip:
            continue
        out.append(
            f"<tr><th>{escape(str(key))}</th><td>{escape(fact_text(str(key), value))}</td></tr>"
        )
    return "".join(out)


def facts_block(run: Run, engine: bool = True) -> str:
    """Target, engine, workload, host and study facts of one run, as small tables
    (without the engine's when the section shows it on its own)."""
    target = dict(run.target or {})
    facts = target.pop("facts", None) or {}
    workload = dict(run.workload or {})
    profile = workload.pop("profile", None) or {}
    groups = [
        ("Target", _rows(target) + _rows(facts)),
        ("Workload", _rows(workload) + _rows(profile)),
        ("Engine", _rows(run.engine) if engine else ""),
        ("Host", _rows(run.host)),
        (
            "Run",
            _rows(
                {
                    "run id": run.run_id,
                    "created": run.created_at,
                    "status": run.status,
                    "dbstor": run.tool_version,
                    "SLO": slo_of(run).text,
                }
            ),
        ),
        ("Study", _rows(run.study, skip=("slo",))),
    ]
    blocks = "".join(
        f'<div class="facts"><h4>{name}</h4><table>{rows}</table></div>'
        for name, rows in groups
        if rows
    )
    return f'<div class="fact-grid">{blocks}</div>'


def scroll_table(head: list[str], rows: list[str], cls: str = "") -> str:
    """A table with a header row, in a box that scrolls sideways on narrow screens."""
    header = "".join(head_cell(h) for h in head)
    attrs = f' class="{cls}"' if cls else ""
    return (
        f'<div class="scroll"><table{attrs}><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


STATUS_TEXT = {
    "complete": "complete",
    "interrupted": "interrupted",
    "failed": "failed",
    "running": "still running",
}


def status_badge(status: str) -> str:
    """A run's status as a small coloured badge."""
    text = STATUS_TEXT.get(status, status)
    return f'<span class="badge {escape(status)}">{escape(text)}</span>'
