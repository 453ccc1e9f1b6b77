"""HTML for the consolidation cost case: a <section> with the summary, the yearly cash
flows (table and inline SVG chart) and every assumption; and a page around it."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.tco.uncertainty import interval_words
from dbstor.report.kit.page import standalone_page

PAGE_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:70em}
table{border-collapse:collapse;margin:1em 0;font-size:90%}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.note{color:#555;font-size:90%}
"""


def _money(x: float | None, currency: str) -> str:
    return "-" if x is None else f"{x:,.0f} {escape(currency)}"


def cash_flow_svg(result: dict[str, Any], width: int = 460, height: int = 260) -> str:
    """Net cash flow per year (bars) and the cumulative net (line), as inline SVG."""
    flows = result["cash_flows"]
    left, top, right, bottom = 80, 15, 15, 35
    w, h = width - left - right, height - top - bottom
    values = [f["net"] for f in flows] + [f["cumulative"] for f in flows] + [0.0]
    lo, hi = min(values), max(values)
    if hi == lo:
        hi = lo + 1.0
    span = hi - lo

    def y(v: float) -> float:
        return top + (hi - v) / span * h

    slot = w / len(flows)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="cash flows by year">',
        f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + w}" y2="{y(0):.1f}" stroke="#999"/>',
    ]
    for v in sorted({lo, hi, 0.0}):
        parts.append(
            f'<text x="{left - 5}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end">'
            f"{v:,.0f}</text>"
        )
    points = []
    for i, f in enumerate(flows):
        x = left + slot * i + slot * 0.2
        top_y, bottom_y = sorted((y(f["net"]), y(0)))
        colour = "#2e9d4a" if f["net"] >= 0 else "#d0542c"
        parts.append(
            f'<rect x="{x:.1f}" y="{top_y:.1f}" width="{slot * 0.6:.1f}" '
            f'height="{max(bottom_y - top_y, 0.5):.1f}" fill="{colour}">'
            f"<title>year {f['year']}: net {f['net']:,.0f}</title></rect>"
        )
        parts.append(
            f'<text x="{x + slot * 0.3:.1f}" y="{top + h + 15}" font-size="11" '
            f'text-anchor="middle">year {f["year"]}</text>'
        )
        points.append(f"{x + slot * 0.3:.1f},{y(f['cumulative']):.1f}")
    parts.append(
        f'<polyline points="{" ".join(points)}" fill="none" stroke="#1f6fb2" '
        'stroke-width="2"><title>cumulative net</title></polyline>'
    )
    parts.append(
        f'<text x="{left + 4}" y="{top + 12}" font-size="11" fill="#1f6fb2">'
        "cumulative net</text></svg>"
    )
    return "".join(parts)


def render_tco_section(result: dict[str, Any]) -> str:
    """An HTML <section> (no external resources) for a consolidation result dict."""
    cur = result["currency"]
    s, lic = result["servers"], result["licences"]
    payback = result["payback_months"]
    roi = result["roi_pct"]
    summary = [
        (
            "servers",
            f"{s['before']} -> {s['after']} ({s['retired']} retired; "
            f"{s['needed_exact']:g} needed at {s['ceiling_pct']:g}% CPU)" + interval_words(s),
        ),
        (
            "CPU",
            f"{_pct(s['cpu_before_pct'])} before, {_pct(s['cpu_after_pct'])} after the "
            f"storage change, {s['cpu_consolidated_pct']:g}% on the consolidated servers",
        ),
        (
            "licences",
            f"{lic['before']} -> {lic['after']} {escape(lic['unit'])}s "
            f"({lic['retired']} retired; {lic['per_server']} per server: "
            f"{escape(lic['rule'])})",
        ),
    ]
    if result.get("needs"):  # no storage price: no ROI or payback line, the input it needs
        summary.append(("ROI, NPV, payback", f"not computed: {escape(result['needs'])}"))
    else:
        summary += [
            ("ROI", "-" if roi is None else f"{roi:.0f}%"),
            ("NPV", f"{_money(result['npv'], cur)} at {result['discount_rate_pct']:g}%"),
            ("payback", "not within the period" if payback is None else f"{payback:.1f} months"),
            ("net over the period", _money(result["totals"]["net"], cur)),
        ]
    examples = result.get("example_prices") or []
    banner = (
        '<p class="note"><b>Example prices, not quotes:</b> '
        f"{escape(', '.join(examples))} (--example-prices); replace them with your own.</p>"
        if examples
        else ""
    )
    lines = "".join(
        f'<tr><td class="l">{kind}</td><td class="l">{escape(x["item"])}</td>'
        + (
            f'<td colspan="2" class="l">not given ({escape(x["not_given"])})</td></tr>'
            if x.get("not_given")
            else f"<td>{_money(x['year0'], cur)}</td><td>{_money(x['yearly'], cur)}</td></tr>"
        )
        for kind, items in (("benefit", result["benefits"]), ("cost", result["costs"]))
        for x in items
    )
    flows = "".join(
        f"<tr><td>{f['year']}</td><td>{_money(f['benefits'], cur)}</td>"
        f"<td>{_money(f['costs'], cur)}</td><td>{_money(f['net'], cur)}</td>"
        f"<td>{_money(f['discounted'], cur)}</td><td>{_money(f['cumulative'], cur)}</td></tr>"
        for f in result["cash_flows"]
    )
    notes = "".join(f"<li>{escape(n)}</li>" for n in result.get("notes", []))
    assumptions = "".join(f"<li>{escape(a)}</li>" for a in result["assumptions"])
    return (
        '<section class="dbstor-tco"><h2>Consolidation: servers, licences and the cost case</h2>'
        + banner
        + "<table>"
        + "".join(f'<tr><th class="l">{k}</th><td class="l">{v}</td></tr>' for k, v in summary)
        + "</table>"
        + '<table><tr><th class="l"></th><th class="l">item</th><th>year 0</th>'
        f"<th>each year</th></tr>{lines}</table>"
        + cash_flow_svg(result)
        + "<table><tr><th>year</th><th>benefits</th><th>costs</th><th>net</th>"
        f"<th>discounted</th><th>cumulative</th></tr>{flows}</table>"
        + (f'<h3>Notes</h3><ul class="note">{notes}</ul>' if notes else "")
        + f'<h3>Assumptions</h3><ul class="note">{assumptions}</ul></section>'
    )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:g}%"


def render_page(title: str, section: str) -> str:
    """A small self-contained HTML page around the section, to forward by mail."""
    return standalone_page(title, PAGE_CSS, section)
