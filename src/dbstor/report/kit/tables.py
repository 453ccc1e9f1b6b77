"""HTML table pieces every kind of run uses: cells and headers, a scrolling table, the
trust-flag badges and their legend, the status badge and the notes under a points
table. (A run's facts are the document's: report.document.configuration and appendix.)

Every string that comes from results is escaped here: labels and facts are user input.
"""

from __future__ import annotations

from html import escape

from dbstor.analysis.bursts import bursts_text
from dbstor.report.kit.fmt import DASH, fmt_iops, load_text
from dbstor.report.kit.summary import FLAG_LEGEND, point_flags, table_points
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
    """Why points were flagged (saturation reasons, trust notes) and the write bursts
    (checkpoints) seen in them, below the table."""
    items = []
    for point in table_points(run):
        why = [point.saturation_reason] if point.saturated and point.saturation_reason else []
        why += [str(note) for note in point.trust.notes or []]
        why += [bursts_text(point.write_bursts) + " in the device's per-second writes"] * bool(
            point.write_bursts
        )
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
