"""HTML for the placement advice: a <section> with the summary, the skew chart (inline
SVG) and the ranked table; and a small self-contained page around it for --html."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.page import standalone_page
from dbstor.units import format_size

MAX_ROWS = 200

PAGE_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:70em}
table{border-collapse:collapse;margin:1em 0;font-size:90%}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;vertical-align:top;white-space:nowrap}
td.r{white-space:normal}
th{background:#f3f3f3}td.l,th.l{text-align:left}
tr.chosen td{background:#eaf6ea}tr.poor td{color:#777}
.note{color:#555;font-size:90%}
"""


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def skew_svg(result: dict[str, Any], width: int = 440, height: int = 320) -> str:
    """The skew curve (share of I/O against share of capacity) as inline SVG."""
    left, top, right, bottom = 50, 15, 15, 45
    w, h = width - left - right, height - top - bottom

    def xy(x: float, y: float) -> str:
        return f"{left + x * w:.1f},{top + (1 - y) * h:.1f}"

    curve = result["skew"]["curve"]
    point = result["skew"]["point"]
    fast = result["result"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="I/O skew curve">',
        f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fff" stroke="#999"/>',
    ]
    for tick in (0.25, 0.5, 0.75):
        parts.append(
            f'<line x1="{left + tick * w:.1f}" y1="{top}" x2="{left + tick * w:.1f}" '
            f'y2="{top + h}" stroke="#eee"/>'
        )
        parts.append(
            f'<line x1="{left}" y1="{top + (1 - tick) * h:.1f}" x2="{left + w}" '
            f'y2="{top + (1 - tick) * h:.1f}" stroke="#eee"/>'
        )
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<text x="{left + tick * w:.1f}" y="{top + h + 15}" font-size="11" '
            f'text-anchor="middle">{tick:.0%}</text>'
        )
        parts.append(
            f'<text x="{left - 5}" y="{top + (1 - tick) * h + 4:.1f}" font-size="11" '
            f'text-anchor="end">{tick:.0%}</text>'
        )
    parts.append(
        f'<text x="{left + w / 2}" y="{height - 8}" font-size="12" '
        'text-anchor="middle">share of capacity (densest objects first)</text>'
    )
    parts.append(
        f'<text x="12" y="{top + h / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + h / 2})">share of I/O</text>'
    )
    parts.append(
        f'<polyline points="{xy(0, 0)} {xy(1, 1)}" fill="none" stroke="#bbb" '
        'stroke-dasharray="4 3"/>'
    )
    parts.append(
        f'<polyline points="{xy(0, 1)} {xy(1, 0)}" fill="none" stroke="#ddd" '
        'stroke-dasharray="2 3"/>'
    )
    line = " ".join(xy(x, y) for x, y in curve)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#1f6fb2" stroke-width="2"/>')
    sx, sy = point["capacity_share"], point["io_share"]
    parts.append(
        f'<circle cx="{left + sx * w:.1f}" cy="{top + (1 - sy) * h:.1f}" r="4" '
        'fill="#d0542c"><title>skew point</title></circle>'
    )
    parts.append(
        f'<text x="{left + sx * w + 8:.1f}" y="{top + (1 - sy) * h + 14:.1f}" '
        f'font-size="11" fill="#d0542c">skew point: {sy:.0%} of I/O in {sx:.0%}</text>'
    )
    fx, fy = fast["capacity_share"], fast["io_share"]
    parts.append(
        f'<rect x="{left + fx * w - 4:.1f}" y="{top + (1 - fy) * h - 4:.1f}" width="8" '
        'height="8" fill="#2e9d4a"><title>fast tier choice</title></rect>'
    )
    right = fx > 0.6  # near the right edge the label runs leftwards, inside the chart
    anchor = ' text-anchor="end"' if right else ""
    parts.append(
        f'<text x="{left + fx * w + (-8 if right else 8):.1f}" y="{top + (1 - fy) * h - 6:.1f}" '
        f'font-size="11" fill="#2e9d4a"{anchor}>fast tier: {fy:.0%} of I/O</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def share_words(fast: dict[str, Any]) -> str:
    """' (50% of the database's tables and indexes)' for a fast tier asked as a share."""
    share = fast.get("capacity_share")
    return f" ({share:.0%} of the database's tables and indexes)" if share else ""


def render_advise_section(result: dict[str, Any]) -> str:
    """An HTML <section> (no external resources) for a placement-advice result dict."""
    fast, res, skew = result["fast_tier"], result["result"], result["skew"]["point"]
    saved = res.get("stall_saved_ms")
    summary = [
        (
            "fast tier",
            f"{format_size(fast['capacity_bytes'])}{escape(share_words(fast))}, "
            + (
                f"{fast['latency_ms']:.3g} ms per I/O ({escape(str(fast['latency_source']))})"
                if fast.get("latency_ms") is not None
                else f"latency {escape(str(fast['latency_source']))}"
            ),
        ),
        (
            "objects chosen",
            f"{len(result['chosen'])} of {result['totals']['objects']} "
            f"({format_size(res['used_bytes'])}: {_pct(res['capacity_share'])} of the objects' "
            f"size, {_pct(res['used_bytes'] / fast['capacity_bytes'])} of the fast tier)"
            if fast.get("capacity_bytes")
            else f"({format_size(res['used_bytes'])}, {_pct(res['capacity_share'])} of the "
            "objects' size)",
        ),
        ("I/O served by the fast tier", _pct(res["io_share"])),
        (
            "stall time saved",
            "not estimated"
            if saved is None
            else f"{saved / 1000:,.0f} s ({_pct(res.get('stall_saved_share'))} of all stall)",
        ),
        (
            "skew point",
            f"{_pct(skew['io_share'])} of the I/O in {_pct(skew['capacity_share'])} "
            "of the capacity",
        ),
        (
            "choice",
            f"{escape(result['method'])} knapsack, maximising "
            + ("stall time saved" if result["objective"] == "stall_ms" else "I/O moved"),
        ),
        ("counted", escape(str(result.get("source", {}).get("counted", "")))),
    ]
    rows = []
    stall = any(r.get("avg_stall_ms") is not None for r in result["ranking"])  # else no column
    for r in result["ranking"][:MAX_ROWS]:
        cls = "chosen" if r["chosen"] else ("poor" if r.get("poor_reason") else "")
        rows.append(
            f'<tr class="{cls}"><td>{r["rank"]}</td><td class="l">{escape(r["name"])}</td>'
            f'<td class="l">{escape(r["kind"])}</td><td>{format_size(r["size_bytes"])}</td>'
            f"<td>{_num(r['reads'])}</td>{_writes_cell(r)}"
            f"<td>{_num(r['density'])}</td><td>{_pct(r['io_share'])}</td>"
            + (f"<td>{_num(r['avg_stall_ms'], 2)}</td>" if stall else "")
            + f"<td>{'yes' if r['chosen'] else ''}</td>"
            f'<td class="l r">{escape(r["reason"])}</td></tr>'
        )
    more = len(result["ranking"]) - MAX_ROWS
    lists = "".join(f"<li>{escape(n)}</li>" for n in result.get("notes", []))
    assumptions = "".join(f"<li>{escape(a)}</li>" for a in result.get("assumptions", []))
    return (
        '<section class="dbstor-advise"><h2>Placement: what belongs on the fast tier</h2>'
        "<table>"
        + "".join(f'<tr><th class="l">{k}</th><td class="l r">{v}</td></tr>' for k, v in summary)
        + "</table>"
        + skew_svg(result)
        + '<div class="scroll"><table><tr><th>#</th><th class="l">object</th>'
        '<th class="l">kind</th><th>size</th>'
        "<th>reads</th><th>writes</th><th>I/O per GiB</th><th>I/O share</th>"
        + ("<th>ms per I/O</th>" if stall else "")
        + '<th>fast</th><th class="l">reason</th></tr>'
        + "".join(rows)
        + "</table></div>"  # a wide ranking scrolls in its box, not the page
        + (f'<p class="note">{more} more objects in the JSON output.</p>' if more > 0 else "")
        + (f'<h3>Notes</h3><ul class="note">{lists}</ul>' if lists else "")
        + f'<h3>Assumptions</h3><ul class="note">{assumptions}</ul></section>'
    )


def _writes_cell(row: dict) -> str:
    """A writes count, or a dash that says why there is none (not kept by the engine)."""
    why = row.get("writes_reason")
    if row.get("writes") is None and why:
        return f'<td title="{escape(str(why))}">not kept</td>'
    return f"<td>{_num(row.get('writes'))}</td>"


def render_page(title: str, section: str) -> str:
    """A small self-contained HTML page around the section, to forward by mail."""
    return standalone_page(title, PAGE_CSS, section)
