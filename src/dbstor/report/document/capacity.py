"""The capacity section: from raw drive capacity to usable, one line per deduction
(dbstor capacity, per target), as the seeds' RAID tables show it."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.document.analyses import missing, per_target
from dbstor.report.kit.fmt import fmt_num, fmt_pct


def _walk(entry: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{escape(str(d.get('step', '')))}</td><td>{escape(str(d.get('label', '')))}</td>"
        f'<td class="num">{escape(fmt_num((d.get("deduct_bytes") or 0) / 1e12, 4))}</td>'
        f'<td class="num">{escape(fmt_num(d.get("remaining_tb"), 5))}</td>'
        f'<td class="num">{escape(fmt_num(d.get("remaining_tib"), 5))}</td>'
        f'<td class="source">{escape(str(d.get("source") or ""))}</td></tr>'
        for d in entry.get("deductions") or []
        if isinstance(d, dict)
    )
    lead = (
        f"<p>{escape(fmt_num(entry.get('raw_tb'), 5))} TB raw give "
        f"<b>{escape(fmt_num(entry.get('usable_tb'), 5))} TB usable</b> "
        f"({escape(fmt_num(entry.get('usable_tib'), 5))} TiB, "
        f"{escape(fmt_pct(entry.get('usable_pct_of_raw'), 1))} of raw).</p>"
    )
    return (
        lead + '<div class="scroll"><table class="walk"><thead><tr><th>step</th><th>what</th>'
        "<th>deducted<br><span class=unit>TB</span></th><th>left<br><span class=unit>TB</span></th>"
        "<th>left<br><span class=unit>TiB</span></th><th>source</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def capacity_body(analyses: dict[str, Any]) -> str:
    """Each target's walk from raw to usable, or why it has none."""
    parts = []
    for label, entry in per_target(analyses, "capacity").items():
        why = missing(entry)
        body = f"<p>Not measured: {escape(why)}.</p>" if why else _walk(entry)
        parts.append(f"<h3>{escape(label)}</h3>{body}")
    return "".join(parts)
