"""What a chart draws for a figure that was not measured: never a 0 bar or a point at 0.

A single missing value is a "not measured: why" label in its bar's place; a chart with
nothing to draw gives the reason in place of the chart. Reasons come with the figures
(Series.missing) or from the report (report/kit/missing.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from html import escape

from dbstor.report.kit.svg import FONT, INK, WIDTH, num, text

ABSENT_CLASS = "chart absent"
NOT_MEASURED = "not measured"


def not_measured_text(reason: str | None) -> str:
    """'not measured: no block device under the target' (or just 'not measured')."""
    return f"{NOT_MEASURED}: {reason}" if reason else NOT_MEASURED


def absent_chart(title: str, reasons: Iterable[str], width: int = WIDTH) -> str:
    """In place of a chart: its title and why it has nothing to draw, each reason once."""
    unique = list(dict.fromkeys(r for r in reasons if r)) or ["no data to plot"]
    lines: list[str] = []
    for reason in unique:
        lines += textwrap.wrap(reason, 100) or [""]
    height = 44 + 18 * len(lines) + 14
    parts = [text(12, 20, title, 14, font_weight="600")]
    parts.append(
        f'<rect x="12" y="32" width="{width - 24}" height="{height - 40}" fill="#f6f7f9" '
        'stroke="#d5d8dc" rx="4"/>'
    )
    for index, line in enumerate(lines):
        parts.append(text(24, 54 + 18 * index, line, 12.5, fill=INK))
    description = f"{title}: {'; '.join(unique)}"
    return (
        f'<svg class="{ABSENT_CLASS}" viewBox="0 0 {width} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" style="{FONT}"><desc>{escape(description)}</desc>'
        + "".join(parts)
        + "</svg>"
    )


def is_absent(svg: str) -> bool:
    """Whether a chart function gave the reason in place of the chart."""
    return svg.startswith(f'<svg class="{ABSENT_CLASS}"')


def bar_gap_label(x: float, bottom: float, top: float, reason: str | None) -> str:
    """A vertical "not measured: why" label standing in a missing bar's place, cut to the
    plot's height (the whole reason in its tooltip)."""
    words = not_measured_text(reason)
    room = max(4, int((bottom - top - 8) / (0.58 * 9.5)))
    shown = words if len(words) <= room else words[: room - 1].rstrip() + "…"
    return (
        f'<g class="not-measured"><title>{escape(words)}</title>'
        + text(
            x + 3.5,
            bottom - 6,
            shown,
            9.5,
            fill="#777",
            font_style="italic",
            transform=f"rotate(-90 {num(x + 3.5)} {num(bottom - 6)})",
        )
        + "</g>"
    )
