"""The efficiency section of the HTML report: a table and an inline SVG histogram.

Self-contained: no scripts, no external styles or fonts; every value is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.units import format_size


def _ratio(value: Any) -> str:
    return "–" if value is None else f"{value:.2f}:1"


def _ci(pair: Any) -> str:
    if not pair or pair[0] is None or pair[1] is None:
        return ""
    return f"{pair[0]:.2f}–{pair[1]:.2f}"


def _histogram_svg(hist: dict[str, Any], width: int = 480, height: int = 160) -> str:
    bins = hist.get("bins") or []
    if not bins:
        return ""
    top = max((b["groups"] for b in bins), default=0) or 1
    pad_l, pad_b, pad_t = 40, 30, 10
    plot_w = width - pad_l - 10
    plot_h = height - pad_b - pad_t
    bar_w = plot_w / len(bins)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="histogram of compressed group sizes">',
        f'<line x1="{pad_l}" y1="{pad_t + plot_h}" x2="{pad_l + plot_w}" y2="{pad_t + plot_h}" stroke="#444"/>',
        f'<text x="4" y="{pad_t + 10}" font-size="10" fill="#444">{top}</text>',
    ]
    for i, b in enumerate(bins):
        h = plot_h * b["groups"] / top
        x = pad_l + i * bar_w
        y = pad_t + plot_h - h
        title = escape(f"{b['from']}–{b['to']} bytes: {b['groups']} groups")
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{max(bar_w - 2, 1):.1f}" height="{h:.1f}" '
            f'fill="#3b7dd8"><title>{title}</title></rect>'
        )
    group = int(hist.get("group") or 0)
    for frac in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = pad_l + plot_w * frac
        label = escape(format_size(group * frac)) if group else ""
        parts.append(
            f'<text x="{x:.1f}" y="{height - 12}" font-size="10" text-anchor="middle" fill="#444">{label}</text>'
        )
    parts.append(
        f'<text x="{pad_l + plot_w / 2:.1f}" y="{height - 1}" font-size="10" text-anchor="middle" '
        f'fill="#444">compressed size of a {escape(format_size(group))} group</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def render_efficiency_section(result: dict[str, Any]) -> str:
    """An HTML <section> for a result of `dbstor efficiency` (the --json dictionary)."""
    array = result.get("array") or {}
    rows = [
        ("Bytes scanned", escape(format_size(result.get("bytes_scanned") or 0)), ""),
        ("Zero blocks", f"{result.get('zero_block_pct', 0):.2f}%", ""),
        ("Deduplication", _ratio(result.get("dedup_ratio")), _ci(result.get("dedup_ratio_ci95"))),
        (
            "Compression",
            _ratio(result.get("compression_ratio")),
            _ci(result.get("compression_ratio_ci95")),
        ),
        (
            "Total data reduction",
            _ratio(result.get("total_ratio")),
            _ci(result.get("total_ratio_ci95")),
        ),
    ]
    snaps = result.get("snapshots")
    if snaps:
        rows.append(("Snapshots vs full copies", _ratio(snaps.get("savings_vs_full_copies")), ""))
        rows.append(("Total with snapshots", _ratio(snaps.get("total_ratio_with_snapshots")), ""))
    body = "".join(
        f"<tr><th scope='row'>{escape(k)}</th><td>{v}</td><td>{escape(c)}</td></tr>"
        for k, v, c in rows
    )
    matrix = "".join(
        f"<tr><td>{escape(format_size(m['group']))}</td><td>{escape(str(m['compressor']))}</td>"
        f"<td>{_ratio(m.get('ratio'))}</td><td>{escape(_ci(m.get('ci95')))}</td></tr>"
        for m in result.get("compression") or []
    )
    files = "".join(
        f"<tr><td>{escape(str(f['path']))}</td><td>{escape(str(f.get('role', '')))}</td>"
        f"<td>{escape(format_size(f['bytes']))}</td><td>{f['zero_block_pct']:.2f}%</td>"
        f"<td>{_ratio(f.get('compression_ratio'))}</td><td>{escape('; '.join(f.get('notes') or []))}</td></tr>"
        for f in (result.get("per_file") or [])[:200]
    )
    notes = "".join(f"<li>{escape(n)}</li>" for n in result.get("notes") or [])
    mode = escape(str(result.get("mode", "")))
    return (
        '<section class="dbstor-efficiency" id="efficiency">'
        "<h2>Space efficiency</h2>"
        f"<p>Array model <b>{escape(str(array.get('name', '')))}</b>: {escape(str(array.get('description', '')))} "
        f"Compressor {escape(str(result.get('compressor', '')))}; {mode} scan "
        f"({result.get('effective_sample_pct', 0)}% of units compressed).</p>"
        "<table class='dbstor-table'><thead><tr><th></th><th>ratio</th><th>95% interval</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
        "<h3>Compression by group size and compressor</h3>"
        "<table class='dbstor-table'><thead><tr><th>group</th><th>compressor</th><th>ratio</th>"
        f"<th>95% interval</th></tr></thead><tbody>{matrix}</tbody></table>"
        "<h3>Compressed group sizes</h3>"
        f"{_histogram_svg(result.get('histogram') or {})}"
        "<h3>Per file</h3>"
        "<table class='dbstor-table'><thead><tr><th>file</th><th>role</th><th>size</th><th>zero</th>"
        f"<th>compression</th><th>notes</th></tr></thead><tbody>{files}</tbody></table>"
        f"<ul class='dbstor-notes'>{notes}</ul>"
        "</section>"
    )
