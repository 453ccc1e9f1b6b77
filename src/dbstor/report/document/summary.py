"""The summary: three to seven findings, each one sentence with its number and a link to
the table it comes from, made from measured verdicts (knee, peak, comparison factors,
cache honesty, efficiency, capacity, placement, consolidation).

A figure that cannot be trusted is not stated as a finding: the sentence says what could
not be measured instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from dbstor.analysis.dss_compare import finished, is_query_run
from dbstor.analysis.tco.uncertainty import interval_words
from dbstor.analysis.trust import reads_from_memory
from dbstor.report.database.memory import memory_sentence, reads_per_txn
from dbstor.report.database.overlay import database_on_storage, overlays
from dbstor.report.database.section import sizing_sentence
from dbstor.report.document.analyses import missing, number, per_target
from dbstor.report.document.frame import engine_io_anchor, points_anchor, run_anchor
from dbstor.report.kit.comparison import not_compared_sentence, verdict_lines
from dbstor.report.kit.doubts import doubts as doubts_of
from dbstor.report.kit.doubts import knee_doubts, peak_doubts
from dbstor.report.kit.fmt import (
    fmt_bytes,
    fmt_iops,
    fmt_limit_ms,
    fmt_ms,
    fmt_num,
    fmt_pct,
    join_words,
    load_text,
)
from dbstor.report.kit.summary import (
    cache_sentence,
    is_database,
    knee_of,
    ok_points,
    peak_of,
    slo_of,
)
from dbstor.report.queries.tables import fmt_s, point_title
from dbstor.results.model import Run

MAX_FINDINGS = 7


@dataclass
class Finding:
    """One sentence and the anchor of the table its number comes from."""

    text: str
    anchor: str


def _database_findings(run: Run, name: str, index: int) -> list[Finding]:
    peak = peak_of(run)
    if peak is None or peak.tps is None:
        return []
    doubts = doubts_of([peak])  # transactions are the database's own, the device's I/O not
    if doubts:
        return [Finding(f"{name}: no peak is stated ({doubts}).", points_anchor(index))]
    where = load_text(peak.load.kind, peak.load.value, peak.load.jobs, compact=False)
    p99 = peak.txn_lat_ms.p99 if peak.txn_lat_ms else None
    latency = f", with a p99 transaction latency of {fmt_ms(p99)}" if p99 is not None else ""
    out = [
        Finding(
            f"{name} peaked at {fmt_iops(peak.tps)} transactions per second at {where}{latency}.",
            points_anchor(index),
        )
    ]
    reads = reads_per_txn(peak)
    device_doubts = doubts_of([peak], device_iops=True)
    if device_doubts and reads is not None:
        out.append(
            Finding(
                f"{name}: its device reads per transaction are not stated ({device_doubts}).",
                engine_io_anchor(index),
            )
        )
    elif reads is not None and peak.read_lat_ms is not None and peak.read_lat_ms.mean is not None:
        out.append(
            Finding(
                f"{name}: the storage served the reads, {fmt_num(reads)} device reads per "
                f"transaction at {where} with a mean device read await of "
                f"{fmt_ms(peak.read_lat_ms.mean)}.",
                engine_io_anchor(index),
            )
        )
    return out


def _memory_share(run: Run) -> str:
    """'3 of 4 load points' (or 'all 4 load points', 'both of its 2 load points', 'its 1
    load point') that read from memory."""
    points = ok_points(run)
    memory = sum(1 for p in points if reads_from_memory(p))
    if memory < len(points):
        return f"{memory} of {len(points)} load points"
    # a number in every finding (the document's rule): 'both of its 2', not 'both'
    return {1: "its 1 load point", 2: "both of its 2 load points"}.get(
        memory, f"all {memory} load points"
    )


def _run_findings(run: Run, name: str, index: int) -> list[Finding]:
    anchor = points_anchor(index)
    if memory_sentence(run):
        return [
            Finding(
                f"{name}: the storage's speed could not be measured, because the reads came "
                f"from memory at {_memory_share(run)}; the transaction rates show "
                "the host.",
                run_anchor(index),
            ),
            *(
                [Finding(f"{name}: {sizing[0].lower()}{sizing[1:]}", run_anchor(index))]
                if (sizing := sizing_sentence(run))
                else []
            ),
        ]
    if is_database(run):
        return _database_findings(run, name, index)
    slo, knee = slo_of(run), knee_of(run)
    limit = f"{slo.name} ≤ {fmt_limit_ms(slo.limit_ms)}"
    out = []
    if knee.state in ("found", "beyond") and knee.iops is not None:
        doubts = knee_doubts(run)
        where = load_text(knee.load_kind, knee.load_value, compact=False)
        if doubts:
            out.append(Finding(f"{name}: the knee could not be stated ({doubts}).", anchor))
        elif knee.state == "beyond":
            out.append(
                Finding(
                    f"{name} stayed within the SLO ({limit}) at every load, up to "
                    f"{fmt_iops(knee.iops)} IOPS at {where}: its knee lies beyond.",
                    anchor,
                )
            )
        else:
            out.append(
                Finding(
                    f"{name} sustains {fmt_iops(knee.iops)} IOPS within the SLO ({limit}), "
                    f"reached at {where}.",
                    anchor,
                )
            )
    elif knee.state == "none":
        out.append(
            Finding(
                f"{name}: no load point stayed within the SLO ({limit}), so it has no knee.", anchor
            )
        )
    cache = cache_sentence(run)
    if cache:
        out.append(Finding(f"{name}: {cache[0].lower()}{cache[1:]}", run_anchor(index)))
    peak = peak_of(run)
    measured = peak is not None and peak.iops is not None
    if measured and knee.state != "beyond" and peak_doubts(run):
        out.append(Finding(f"{name}: no peak is stated ({peak_doubts(run)}).", anchor))
    elif measured and knee.state != "beyond":
        where = load_text(peak.load.kind, peak.load.value, peak.load.jobs, compact=False)
        out.append(
            Finding(
                f"{name} peaked at {fmt_iops(peak.iops)} IOPS at {where}, where {slo.name} "
                f"latency was {fmt_ms(slo.value(peak))}.",
                anchor,
            )
        )
    return out


def _query_findings(run: Run, name: str, index: int) -> list[Finding]:
    """A query run's headline: the total elapsed time of its first finished point."""
    points = finished(run)
    if not points:
        return [
            Finding(
                f"{name}: no load point finished, so no query time is stated.", run_anchor(index)
            )
        ]
    first = points[0]
    metrics = first.workload_metrics or {}
    total = metrics.get("total_elapsed_s")
    if not isinstance(total, int | float):
        return []
    count = int(metrics.get("queries") or len(first.queries or []))
    return [
        Finding(
            f"{name} ran its {count} queries in {fmt_s(total)} s in all ({point_title(first)}), "
            f"a geometric mean of {fmt_s(metrics.get('geomean_s'))} s per query.",
            points_anchor(index),
        )
    ]


def _comparison_findings(comparison: dict[str, Any] | None) -> list[Finding]:
    """The verdicts of the study's comparisons (each workload compared across targets)."""
    if not comparison:
        return []
    out = []
    blocks = [comparison, *(comparison.get("others") or [])]
    for index, block in enumerate(blocks):
        if block.get("comparable") is False:
            continue
        anchor = "comparison" if index == 0 else f"comparison-{index + 1}"
        lines = verdict_lines(block)[:2]
        runs = block.get("runs") or [{}]
        what = f"{runs[0].get('workload')}, " if len(blocks) > 1 else ""  # which comparison
        out += [  # the same reason twice (both factors not computed) is said once
            Finding(f"{what}{lead}: {text}.".replace("..", "."), anchor)
            for i, (lead, text) in enumerate(lines)
            if text not in [t for _, t in lines[:i]]
        ]
    return out


def _analysis_findings(analyses: dict[str, Any]) -> list[Finding]:
    out = []
    for label, entry in per_target(analyses, "efficiency").items():
        if missing(entry) is None and isinstance(entry.get("total_ratio"), int | float):
            out.append(
                Finding(
                    f"On {label}, an array that removes zero blocks, deduplicates and "
                    f"compresses would store the {fmt_bytes(number(entry.get('bytes_scanned')))} "
                    "of files scanned (every file its run built, not only tables) at a data "
                    f"reduction of {fmt_num(entry['total_ratio'])}:1 "
                    f"(deduplication {fmt_num(number(entry.get('dedup_ratio')))}:1, compression "
                    f"{fmt_num(number(entry.get('compression_ratio')))}:1).",
                    "efficiency",
                )
            )
    usable: dict[str, list[str]] = {}  # one study-wide [capacity]: one finding, not one per target
    for label, entry in per_target(analyses, "capacity").items():
        if missing(entry) is None and isinstance(entry.get("usable_tb"), int | float):
            text = (
                f"{fmt_num(number(entry.get('raw_tb')), 4)} TB raw give "
                f"{fmt_num(entry['usable_tb'], 4)} TB usable "
                f"({fmt_pct(number(entry.get('usable_pct_of_raw')))} of raw)."
            )
            usable.setdefault(text, []).append(label)
    out += [Finding(f"{join_words(who)}: {text}", "capacity") for text, who in usable.items()]
    for label, entry in per_target(analyses, "placement").items():
        result = entry.get("result") if missing(entry) is None else None
        if isinstance(result, dict) and isinstance(result.get("io_share"), int | float):
            out.append(
                Finding(
                    f"{label}: {len(entry.get('chosen') or [] if isinstance(entry.get('chosen'), list) else [])} objects, "
                    f"{fmt_pct((number(result.get('capacity_share')) or 0) * 100)} of their size, "
                    f"would serve {fmt_pct(result['io_share'] * 100)} of the I/O from the fast tier.",
                    "placement",
                )
            )
    tco = analyses.get("tco")
    servers = tco.get("servers") if isinstance(tco, dict) and missing(tco) is None else None
    if isinstance(servers, dict) and servers.get("before") is not None:
        out.append(
            Finding(
                f"With CPU at {fmt_pct(servers.get('cpu_before_pct'))} before and "
                f"{fmt_pct(servers.get('cpu_after_pct'))} after the storage change, "
                f"{servers['before']} database servers would consolidate onto "
                f"{servers.get('after')} at a {fmt_pct(servers.get('ceiling_pct'))} CPU ceiling"
                f"{interval_words(servers)}.",
                "cost",
            )
        )
    verified = analyses.get("consolidation")  # the re-run at the consolidated density
    if isinstance(verified, dict) and missing(verified) is None and verified.get("sentence"):
        out.append(Finding(str(verified["sentence"]), "cost"))
    return out


def findings(
    runs: list[Run], names: list[str], comparison: dict[str, Any] | None, analyses: dict[str, Any]
) -> list[Finding]:
    """The summary's findings, most important first, at most MAX_FINDINGS."""
    per_run = [
        _query_findings(run, name, i) if is_query_run(run) else _run_findings(run, name, i)
        for i, (run, name) in enumerate(zip(runs, names, strict=True))
    ]
    firsts = [f[0] for f in per_run if f]  # each run's headline before any run's second
    seconds = [x for f in per_run for x in f[1:]]
    try:
        analysed = _analysis_findings(analyses)
    except (AttributeError, KeyError, TypeError, ValueError):
        analysed = []  # its sections say what could not be read
    by_id = {run.run_id: name for run, name in zip(runs, names, strict=True)}
    on_storage = [
        Finding(text, run_anchor(runs.index(next(r for r in runs if r.run_id == run_id))))
        for overlay in overlays(runs)
        for run_id, text in database_on_storage(overlay, by_id)
    ]
    unmatched = []  # why a run was compared with none: after what was measured
    if comparison and comparison.get("comparable") is False:
        unmatched.append(Finding(not_compared_sentence(comparison), "comparison"))
    for line in (comparison or {}).get("not_compared") or []:
        unmatched.append(Finding(str(line), "comparison"))
    found = _comparison_findings(comparison) + firsts + on_storage + analysed + unmatched
    return (found + seconds)[:MAX_FINDINGS]


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
