"""A trend as a small inline SVG: one figure of the runs of one comparison key over time,
each run a marker linked to its report, each step a dashed line with its change."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.svg import INK, PALETTE, nice_ticks, tick_text

W, H, LEFT, RIGHT, TOP, BOTTOM = 560, 170, 64, 16, 14, 28
TITLES = {
    "knee": "throughput at the knee",
    "peak": "peak throughput",
    "latency_at_load": "p99 latency at the series' middle load (ms)",
}


def trend_svg(
    figure: str, trend: dict[str, Any], reports: dict[str, str | None], unit: str, at: str = ""
) -> str:
    """The chart of one figure; `at` names the latency and load it is read at."""
    values = trend["values"]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    ticks = nice_ticks(min(0.0, lo), hi if hi > lo else hi * 1.1 or 1.0)
    top = ticks[-1] or 1.0
    bottom = ticks[0]
    n = len(values)

    def x(i: int) -> float:
        return LEFT + (W - LEFT - RIGHT) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return TOP + (H - TOP - BOTTOM) * (1 - (v - bottom) / (top - bottom or 1))

    step = ticks[1] - ticks[0] if len(ticks) > 1 else top
    parts = [
        f'<line x1="{LEFT}" y1="{y(t):.1f}" x2="{W - RIGHT}" y2="{y(t):.1f}" stroke="#e4e4e4"/>'
        f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end" font-size="11">'
        f"{escape(tick_text(t, step))}</text>"
        for t in ticks
    ]
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts.append(f'<polyline points="{line}" fill="none" stroke="{PALETTE[0]}" stroke-width="2"/>')
    for s in trend["steps"]:
        sx = (x(s["index"] - 1) + x(s["index"])) / 2
        parts.append(
            f'<line x1="{sx:.1f}" y1="{TOP}" x2="{sx:.1f}" y2="{H - BOTTOM}" '
            f'stroke="{PALETTE[1]}" stroke-dasharray="4 3"/>'
            f'<text x="{sx + 4:.1f}" y="{TOP + 10}" font-size="11" fill="{PALETTE[1]}">'
            f"step {s['change_pct']:+.1f}%</text>"
        )
    for i, (v, folder) in enumerate(zip(values, trend["runs"], strict=True)):
        dot = (
            f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="4" fill="{PALETTE[0]}">'
            f"<title>{escape(folder)}: {v:,.4g} {escape(unit)}</title></circle>"
        )
        href = reports.get(folder)
        parts.append(f'<a href="{escape(href)}">{dot}</a>' if href else dot)
    dates = trend.get("dates") or []
    first, last = (dates[0], dates[-1]) if len(dates) == n else ("", "")
    parts.append(
        f'<text x="{LEFT}" y="{H - 8}" font-size="11" fill="{INK}">oldest {escape(first)}</text>'
        f'<text x="{W - RIGHT}" y="{H - 8}" font-size="11" text-anchor="end" fill="{INK}">'
        f"newest {escape(last)} ({n} runs)</text>"
    )
    if figure == "latency_at_load" and at:
        title = f"{at} (ms)"
    else:
        title = TITLES.get(figure, figure) + ("" if figure == "latency_at_load" else f" ({unit})")
    return (
        f'<figure class="trend"><figcaption>{escape(title)}</figcaption>'
        f'<svg viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="{escape(title)}">{"".join(parts)}</svg></figure>'
    )
