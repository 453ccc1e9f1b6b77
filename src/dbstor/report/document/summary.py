"""The summary: three to six findings, each one sentence with its number and a link to
the table it comes from, made from measured verdicts (knee, peak, comparison factors,
cache honesty, efficiency, capacity, placement, consolidation).

A figure that cannot be trusted is not stated as a finding: the sentence says what could
not be measured instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from dbstor.analysis.dss_compare import is_query_run
from dbstor.report.database.memory import memory_sentence
from dbstor.report.document.analyses import missing, per_target
from dbstor.report.document.frame import points_anchor, run_anchor
from dbstor.report.kit.comparison import verdict_lines
from dbstor.report.kit.fmt import fmt_bytes, fmt_iops, fmt_ms, fmt_num, fmt_pct, load_text
from dbstor.report.kit.summary import knee_of, ok_points, peak_of, point_flags, slo_of
from dbstor.results.model import Run

MAX_FINDINGS = 6
_DOUBTFUL = ("from memory", "not steady", "failed")


@dataclass
class Finding:
    """One sentence and the anchor of the table its number comes from."""

    text: str
    anchor: str


def _doubts(run: Run, up_to: float | None) -> list[str]:
    """The flags that make the points up to a load untrustworthy for a headline."""
    found = {
        flag
        for point in ok_points(run)
        if up_to is None or point.load.value <= up_to + 1e-9
        for flag in point_flags(point)
        if flag in _DOUBTFUL
    }
    return sorted(found)


def _run_finding(run: Run, name: str, index: int) -> Finding | None:
    anchor = points_anchor(index)
    if memory_sentence(run):
        return Finding(
            f"{name}: the storage's speed could not be measured, because the reads came from "
            "memory (flagged points); the transaction rates show the host.",
            run_anchor(index),
        )
    slo = slo_of(run)
    knee = knee_of(run)
    database = run.engine and (run.engine or {}).get("name") not in (None, "fio")
    if database:
        peak = peak_of(run)
        if peak is None or peak.tps is None:
            return None
        doubts = _doubts(run, peak.load.value)
        if doubts:
            return Finding(
                f"{name}: no peak is stated, its points are flagged {', '.join(doubts)}.",
                anchor,
            )
        where = load_text(peak.load.kind, peak.load.value, peak.load.jobs, compact=False)
        p99 = peak.txn_lat_ms.p99 if peak.txn_lat_ms else None
        return Finding(
            f"{name} peaked at {fmt_iops(peak.tps)} transactions per second at {where}, with a "
            f"p99 transaction latency of {fmt_ms(p99)}.",
            anchor,
        )
    if knee.state in ("found", "beyond") and knee.iops is not None:
        doubts = _doubts(run, knee.load_value)
        if doubts:
            return Finding(
                f"{name}: the knee could not be stated, its points are flagged "
                f"{', '.join(doubts)}.",
                anchor,
            )
        where = load_text(knee.load_kind, knee.load_value, compact=False)
        if knee.state == "beyond":
            return Finding(
                f"{name} stayed within the SLO ({slo.name} ≤ {fmt_ms(slo.limit_ms)}) at every "
                f"load, up to {fmt_iops(knee.iops)} IOPS at {where}: its knee lies beyond.",
                anchor,
            )
        return Finding(
            f"{name} sustains {fmt_iops(knee.iops)} IOPS within the SLO ({slo.name} ≤ "
            f"{fmt_ms(slo.limit_ms)}), at {where}.",
            anchor,
        )
    if knee.state == "none":
        return Finding(
            f"{name}: no load point stayed within the SLO ({slo.name} ≤ "
            f"{fmt_ms(slo.limit_ms)}), so it has no knee.",
            anchor,
        )
    return None


def _comparison_findings(comparison: dict[str, Any] | None) -> list[Finding]:
    if not comparison:
        return []
    if comparison.get("comparable") is False:
        return [
            Finding(
                "The targets could not be compared as they ran: see the warnings.", "comparison"
            )
        ]
    return [
        Finding(f"{lead}: {text}.".replace("..", "."), "comparison")
        for lead, text in verdict_lines(comparison)[:2]
    ]


def _analysis_findings(analyses: dict[str, Any]) -> list[Finding]:
    out = []
    for label, entry in per_target(analyses, "efficiency").items():
        if missing(entry) is None and isinstance(entry.get("total_ratio"), int | float):
            out.append(
                Finding(
                    f"On {label}, the data scanned ({fmt_bytes(entry.get('bytes_scanned'))}) "
                    f"would reduce {fmt_num(entry['total_ratio'])}:1 (deduplication "
                    f"{fmt_num(entry.get('dedup_ratio'))}:1, compression "
                    f"{fmt_num(entry.get('compression_ratio'))}:1).",
                    "efficiency",
                )
            )
    for label, entry in per_target(analyses, "capacity").items():
        if missing(entry) is None and isinstance(entry.get("usable_tb"), int | float):
            out.append(
                Finding(
                    f"{label}: {fmt_num(entry.get('raw_tb'))} TB raw give "
                    f"{fmt_num(entry['usable_tb'])} TB usable "
                    f"({fmt_pct(entry.get('usable_pct_of_raw'))} of raw).",
                    "capacity",
                )
            )
    for label, entry in per_target(analyses, "placement").items():
        result = entry.get("result") if missing(entry) is None else None
        if isinstance(result, dict) and isinstance(result.get("io_share"), int | float):
            out.append(
                Finding(
                    f"{label}: {len(entry.get('chosen') or [])} objects, "
                    f"{fmt_pct((result.get('capacity_share') or 0) * 100)} of the capacity, "
                    f"would serve {fmt_pct(result['io_share'] * 100)} of the I/O from the fast tier.",
                    "placement",
                )
            )
    tco = analyses.get("tco")
    servers = tco.get("servers") if isinstance(tco, dict) and missing(tco) is None else None
    if isinstance(servers, dict) and servers.get("before") is not None:
        out.append(
            Finding(
                f"The CPU headroom measured would consolidate {servers['before']} database "
                f"servers onto {servers.get('after')} at a {fmt_pct(servers.get('ceiling_pct'))} "
                "CPU ceiling.",
                "cost",
            )
        )
    return out


def findings(
    runs: list[Run], names: list[str], comparison: dict[str, Any] | None, analyses: dict[str, Any]
) -> list[Finding]:
    """The summary's findings, most important first, at most MAX_FINDINGS."""
    per_run = [
        f
        for i, (run, name) in enumerate(zip(runs, names, strict=True))
        if not is_query_run(run) and (f := _run_finding(run, name, i)) is not None
    ]
    found = _comparison_findings(comparison) + per_run + _analysis_findings(analyses)
    return found[:MAX_FINDINGS]


def summary_body(
    runs: list[Run],
    names: list[str],
    comparison: dict[str, Any] | None,
    analyses: dict[str, Any],
    callouts: str,
) -> str:
    """The findings as a list, each linked to its table, after any status callouts."""
    items = "".join(
        f'<li>{escape(f.text)} <a class="src" href="#{escape(f.anchor)}">table</a></li>'
        for f in findings(runs, names, comparison, analyses)
    )
    found = f'<ul class="findings">{items}</ul>' if items else ""
    return callouts + found
