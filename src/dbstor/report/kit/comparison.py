"""Runs compared against a baseline in the HTML report (fio and database runs, as
analysis.compare makes the comparison): factors, warnings, the normalised bars, the
values at each run's knee, the matched load points and per-disk efficiency.

Query runs are compared on elapsed time instead: report/queries has that block.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.charts import Ref, Series, bar_chart
from dbstor.report.kit.fmt import (
    DASH,
    fmt_factor,
    fmt_iops,
    fmt_ms,
    fmt_num,
    fmt_pct,
    fmt_value,
    load_text,
)
from dbstor.report.kit.layer_comparison import layer_comparison_block
from dbstor.report.kit.role_comparison import role_comparison_block
from dbstor.report.kit.svg import PALETTE

COMPARED = (
    ("iops", "IOPS"),
    ("tps", "TPS"),
    ("read_lat_ms", "read latency"),
    ("cpu_pct", "CPU"),
    ("response_ms", "mean response time (ms)"),
)


def compared(comparison: dict[str, Any]) -> list[tuple[str, str]]:
    """The compared figures with the names their statistic and unit give them
    (comparison.json's metric_names; older comparisons: the plain names)."""
    names = comparison.get("metric_names") or {}
    return [(key, str(names.get(key) or name)) for key, name in COMPARED]


def figure_text(key: str, value: float | None) -> str:
    """One compared figure in its unit: ms for latencies, % for CPU, else a count."""
    if value is None:
        return DASH
    if key in ("read_lat_ms", "response_ms"):
        return fmt_ms(value)
    return fmt_pct(value) if key == "cpu_pct" else fmt_iops(value)


def not_compared_sentence(comparison: dict[str, Any]) -> str:
    """Why a comparison's runs were not compared: 'The 2 runs were not compared with each
    other: each ran its own workload (io-oltp, brokerage), and runs of different workloads
    are not compared.' for a study whose runs share no workload, else the first warning."""
    runs = comparison.get("runs") or []
    if comparison.get("shares_no_workload"):
        workloads = ", ".join(dict.fromkeys(str(r.get("workload")) for r in runs))
        why = (
            f"each ran its own workload ({workloads}), and runs of different workloads are "
            "not compared"
        )
    else:
        why = str(next(iter(comparison.get("warnings") or []), "")).split(":", 1)[0]
    why = why or "they are not comparable as they ran"
    return f"The {len(runs)} runs were not compared with each other: {why}."


def withheld_lines(comparison: dict[str, Any]) -> list[str]:
    """What could not be computed and why: the load kinds that share no load, and the
    runs whose per-disk efficiency rests on a withheld factor."""
    lines = []
    for row in comparison.get("per_disk_withheld") or []:
        lines.append(f"per-disk efficiency of {row.get('label')} not computed: {row.get('reason')}")
    return lines


def comparison_chart(comparison: dict[str, Any]) -> str:
    """Grouped bars of the normalised values (baseline = 100) per metric, one bar per run."""
    runs = comparison.get("runs") or []
    metrics = [
        (key, name)
        for key, name in compared(comparison)
        if any((r.get("normalised") or {}).get(key) is not None for r in runs)
    ]
    bars = [
        Series(
            str(r.get("label")),
            [],
            [(r.get("normalised") or {}).get(key) for key, _ in metrics],
            color=PALETTE[i % len(PALETTE)],
        )
        for i, r in enumerate(runs)
    ]
    baseline = str(comparison.get("baseline", "baseline"))
    return bar_chart(
        [name for _, name in metrics],
        bars,
        title=f"Relative to {baseline} = 100",
        y_label=f"relative value ({baseline} = 100)",
        refs=[Ref(100.0, f"{baseline} = 100", color="#444")],
        height=340,
        description=(
            "Higher is better for IOPS and TPS, lower for latency; more CPU usually means the "
            "host waits less on storage and does more work."
        ),
    )


def _pair(values: dict[str, Any], normalised: dict[str, Any], key: str) -> str:
    value = values.get(key)
    if value is None:
        return DASH
    shown = figure_text(key, value)
    norm = normalised.get(key)
    return shown if norm is None else f"{shown} ({fmt_num(norm, 3)})"


def verdict_lines(comparison: dict[str, Any]) -> list[tuple[str, str]]:
    """The headline factors as (lead, factors): at the same load, then at each run's own
    knee; none when the runs are not comparable. Comparisons saved before the same-load
    figures existed show their own-knee factors."""
    if comparison.get("comparable") is False:
        return []
    verdict = comparison.get("verdict")
    if isinstance(verdict, dict):
        return [(str(v.get("lead")), str(v.get("text"))) for v in verdict.get("lines") or []]
    baseline = comparison.get("baseline", "")
    return [
        (f"{f.get('label')} vs {baseline}", str(f.get("text")))
        for f in comparison.get("factors") or []
    ]


def comparison_block(
    comparison: dict[str, Any],
    anchor: str = "comparison",
    what: str = "",
    basis_doubts: dict[str, str] | None = None,
) -> str:
    """The comparison section: factors, warnings, the normalised bars and the tables.
    what: the workload compared, named in the heading when a study compares several;
    basis_doubts: run_id -> the flags that keep the knee or peak a row stands on off the
    run's own headline, said beside its basis (the factors carry the same flags)."""
    doubted = basis_doubts or {}
    if comparison.get("shares_no_workload"):
        return (
            f'<section class="comparison" id="{escape(anchor)}"><h2>Comparison</h2>'
            f'<div class="callout warn">{escape(not_compared_sentence(comparison))}</div></section>'
        )
    baseline = str(comparison.get("baseline", ""))
    runs = comparison.get("runs") or []
    named = f"{what}: " if what else ""
    parts = [f"<h2>{escape(named)}Comparison against {escape(baseline)} (baseline = 100)</h2>"]
    if comparison.get("comparable") is False:
        parts.append(
            '<div class="callout bad"><b>These runs are not comparable as they stand.</b> '
            "Read the warnings before using the figures: no verdict is drawn.</div>"
        )
    for warning in comparison.get("warnings") or []:
        parts.append(f'<div class="callout warn">{escape(str(warning))}</div>')
    lines = verdict_lines(comparison)
    if lines:
        items = "".join(f"<li><b>{escape(lead)}</b>: {escape(text)}</li>" for lead, text in lines)
        parts.append(f'<ul class="factors">{items}</ul>')
    relative = any(
        value is not None for r in runs for value in (r.get("normalised") or {}).values()
    )
    if not relative:
        parts.append(
            '<div class="callout warn">No relative chart: no factor could be computed '
            "(the reasons are in the lines above).</div>"
        )
    parts.append(
        ""
        if not relative
        else f"<figure>{comparison_chart(comparison)}<figcaption>Throughput and CPU of each run at "
        f"its knee (or at its peak when it has no knee), as a share of {escape(baseline)}"
        f"{escape(_latency_basis(comparison))}. Higher is better for IOPS and TPS, lower for "
        "latency.</figcaption></figure>"
    )
    keys = [
        (k, n)
        for k, n in compared(comparison)
        if any((r.get("values") or {}).get(k) is not None for r in runs)
    ]
    head = "".join(f"<th>{escape(n)}</th>" for _, n in keys)
    body = "".join(
        f"<tr><th>{escape(str(r.get('label')))}</th><td>{escape(str(r.get('workload', DASH)))}</td>"
        f"<td>{escape(str(r.get('basis', DASH)))}"
        + (
            f" (not stated alone: {escape(doubted[str(r.get('run_id'))])})"
            if str(r.get("run_id")) in doubted
            else ""
        )
        + "</td>"
        + "".join(
            f'<td class="num">{escape(_pair(r.get("values") or {}, r.get("normalised") or {}, k))}</td>'
            for k, _ in keys
        )
        + "</tr>"
        for r in runs
    )
    parts.append(
        f'<div class="scroll"><table><thead><tr><th>run</th><th>workload</th><th>at</th>{head}'
        f"</tr></thead><tbody>{body}</tbody></table></div>"
    )
    events = comparison.get("events") or []
    if events:
        items = "".join(f"<li>{escape(str(row.get('text', '')))}</li>" for row in events)
        parts.append(
            "<h3>Events side by side</h3><p>Each event's dip on each run (first repeat), from "
            "its first second below the baseline's band (5%, or twice its seconds' spread) "
            "until back within it; the run "
            "sections' Events parts have the timelines.</p>"
            f'<ul class="factors">{items}</ul>'
        )
    parts.append(layer_comparison_block(comparison))
    parts.append(role_comparison_block(comparison))
    parts.append(_matched_table(comparison, keys))
    parts.append(_per_disk_table(comparison.get("per_disk") or []))
    for line in withheld_lines(comparison):
        parts.append(f'<div class="callout warn">{escape(line)}</div>')
    return f'<section class="comparison" id="{escape(anchor)}">{"".join(parts)}</section>'


def _latency_basis(comparison: dict[str, Any]) -> str:
    if comparison.get("same_load_refused"):
        return "; read latency is not compared: the runs share no load"
    words = comparison.get("latency_at")
    if words:
        return f"; read latency at one load for every run ({words})"
    load = comparison.get("latency_at_load")
    if not isinstance(load, int | float):
        return ""
    matched = comparison.get("matched") or []
    if not matched:  # an older comparison: its load's kind is not known
        return "; read latency at one load for every run, the baseline's knee or peak"
    kind = (matched[0].get("load") or {}).get("kind")
    where = load_text(kind, load, compact=False)
    return f"; read latency at one load for every run, the baseline's knee ({where})"


def _matched_table(comparison: dict[str, Any], keys: list[tuple[str, str]]) -> str:
    matched = comparison.get("matched") or []
    if not matched:
        return ""
    labels = [str(r.get("label")) for r in comparison.get("runs") or []]
    head = "".join(f'<th colspan="{len(keys)}">{escape(label)}</th>' for label in labels)
    sub = "".join(f"<th>{escape(n)}</th>" for _ in labels for _, n in keys)
    rows = []
    for match in matched:
        load = match.get("load") or {}
        cells = "".join(
            f'<td class="num">{escape(_pair((match.get("values") or {}).get(label) or {}, (match.get("normalised") or {}).get(label) or {}, k))}</td>'
            for label in labels
            for k, _ in keys
        )
        rows.append(
            f"<tr><th>{escape(load_text(load.get('kind'), load.get('value')))}</th>{cells}</tr>"
        )
    return (
        "<h3>Matched load points</h3><p>The same load on every run; relative values in brackets.</p>"
        f'<div class="scroll"><table><thead><tr><th rowspan="2">load</th>{head}</tr><tr>{sub}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def with_interval(row: dict[str, Any], name: str) -> str:
    """'x4.1 (3.8-4.4)': a per-disk row's factor with its interval where it has one."""
    value = row.get("performance_factor" if name == "performance" else "per_disk_efficiency")
    interval = row.get(f"{name}_interval")
    text = fmt_factor(value)
    if interval and value is not None:
        text += f" ({fmt_factor(interval[0])[1:]}-{fmt_factor(interval[1])[1:]})"
    return text


def _per_disk_table(per_disk: list[dict[str, Any]]) -> str:
    if not per_disk:
        return ""
    rows = "".join(
        f"<tr><th>{escape(str(d.get('label')))}</th>"
        f'<td class="num">{escape(fmt_value(d.get("drives")))}</td>'
        f'<td class="num">{escape(fmt_value(d.get("baseline_drives")))}</td>'
        f'<td class="num">{escape(fmt_factor(d.get("drive_reduction")))}</td>'
        f'<td class="num">{escape(with_interval(d, "performance"))}</td>'
        f'<td class="num">{escape(with_interval(d, "per_disk"))}</td></tr>'
        for d in per_disk
    )
    return (
        "<h3>Per-disk efficiency</h3><p>Drive reduction × performance factor: how much more work each "
        "drive does than in the baseline.</p><table><thead><tr><th>run</th><th>drives</th>"
        "<th>baseline drives</th><th>drive reduction</th><th>performance factor</th>"
        f"<th>per-disk efficiency</th></tr></thead><tbody>{rows}</tbody></table>"
    )
