"""The document's frame: its sections' stable ids in order, a section's wrapper, the
anchors of each run's part, and small tables every section uses."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

SECTION_IDS = (
    "summary",
    "configuration",
    "layout",
    "method",
    "results",
    "comparison",
    "mix",
    "efficiency",
    "capacity",
    "placement",
    "cost",
    "conclusion",
    "appendix",
)


def section(sid: str, title: str, body: str) -> str:
    """A top-level section with its id; nothing at all when it has nothing to show."""
    if not body.strip():
        return ""
    return f'<section class="doc" id="{escape(sid)}"><h2>{escape(title)}</h2>{body}</section>'


def run_anchor(index: int) -> str:
    """The id of the index-th run's part of the results."""
    return f"run-{index + 1}"


def points_anchor(index: int) -> str:
    """The id of the index-th run's load-point table."""
    return f"points-{index + 1}"


def engine_io_anchor(index: int) -> str:
    """The id of the index-th run's engine I/O table (a database run)."""
    return f"engine-io-{index + 1}"


def link(anchor: str, text: str) -> str:
    """An in-document link, its text escaped."""
    return f'<a href="#{escape(anchor)}">{escape(text)}</a>'


def pairs_table(rows: Sequence[tuple[str, str]], cls: str = "facts") -> str:
    """A two-column table of (name, text); both escaped; empty when no rows."""
    if not rows:
        return ""
    body = "".join(
        f'<tr><th scope="row">{escape(k)}</th><td>{escape(v)}</td></tr>' for k, v in rows
    )
    return f'<table class="{cls}"><tbody>{body}</tbody></table>'


def side_by_side(names: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]) -> str:
    """One column per target: rows of (what, one text per target), rows without any
    value left out; escaped."""
    kept = [(k, vs) for k, vs in rows if any(v and v != "–" for v in vs)]
    if not kept:
        return ""
    head = "".join(f'<th scope="col">{escape(n)}</th>' for n in names)
    body = "".join(
        f'<tr><th scope="row">{escape(k)}</th>'
        + "".join(f"<td>{escape(v)}</td>" for v in vs)
        + "</tr>"
        for k, vs in kept
    )
    return (
        f'<div class="scroll"><table class="bom"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
