"""HTML tables of the report: every load point, the study and host facts, the comparison.

Every string that comes from results is escaped here: labels and facts are user input.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.figures import COMPARED, comparison_chart
from dbstor.report.kit.fmt import (
    DASH,
    fmt_bytes,
    fmt_factor,
    fmt_iops,
    fmt_mbps,
    fmt_ms,
    fmt_num,
    fmt_pct,
    fmt_value,
    load_text,
)
from dbstor.report.kit.summary import FLAG_LEGEND, metric_value, point_flags, slo_of, table_points
from dbstor.results.model import Point, Run

_LATENCY_COLUMNS = [("read", "p50"), ("read", "p99"), ("read", "p999"), ("write", "p99")]
_STAT = {"p999": "p99.9"}


def _cell(text: str, cls: str = "", title: str = "") -> str:
    attrs = (f' class="{cls}"' if cls else "") + (f' title="{escape(title)}"' if title else "")
    return f"<td{attrs}>{escape(text)}</td>"


def _head(text: str) -> str:
    name, _, unit = text.partition("|")
    unit_html = f'<br><span class="unit">{escape(unit)}</span>' if unit else ""
    return f'<th scope="col">{escape(name)}{unit_html}</th>'


def _latency_columns(run: Run) -> list[tuple[str, str]]:
    columns = list(_LATENCY_COLUMNS)
    parts = slo_of(run).metric.split("_")
    if len(parts) == 4 and (parts[0], parts[2]) not in columns:
        columns.insert(0, (parts[0], parts[2]))
    return columns


def _iops_cell(point: Point) -> str:
    total = escape(fmt_iops(point.iops))
    spread = point.iops_spread
    if point.repeats > 1 and spread is not None:
        low, mid, high = (fmt_iops(v) for v in (spread.minimum, spread.median, spread.maximum))
        detail = f"{low}–{high}"
        title = f"{point.repeats} repeats: min {low}, median {mid}, max {high} IOPS"
        return (
            f'<td class="num" title="{escape(title)}">{total}'
            f'<div class="spread">{escape(detail)}<br>median {escape(mid)}, '
            f"{point.repeats} repeats</div></td>"
        )
    return f'<td class="num">{total}</td>'


def _flags_cell(point: Point) -> str:
    flags = point_flags(point)
    badges = "".join(
        f'<span class="flag flag-{escape(f.replace(" ", "-").replace(".", ""))}" '
        f'title="{escape(FLAG_LEGEND.get(f, f))}">{escape(f)}</span>'
        for f in flags
    )
    return f"<td>{badges or DASH}</td>"


def _point_notes(run: Run) -> str:
    """Why points were flagged: saturation reasons and trust notes, below the table."""
    items = []
    for point in table_points(run):
        why = [point.saturation_reason] if point.saturated and point.saturation_reason else []
        why += [str(note) for note in point.trust.notes or []]
        if why:
            load = load_text(point.load.kind, point.load.value, point.load.jobs)
            items.append(f"<li><b>{escape(load)}</b>: {escape('; '.join(why))}</li>")
    return f'<ul class="point-notes">{"".join(items)}</ul>' if items else ""


def points_table(run: Run) -> str:
    """Every point of a run, in load order, with the SLO metric marked within/over."""
    slo = slo_of(run)
    columns = _latency_columns(run)
    has_tps = any(p.tps is not None for p in run.points)
    head = ["load", "IOPS", "read / write IOPS", "MB/s"] + (["TPS"] if has_tps else [])
    head += [f"{side} {_STAT.get(stat, stat)}|ms" for side, stat in columns]
    head += ["CPU busy", "device await|read / write, ms", "flags"]
    rows = []
    for point in table_points(run):
        load = escape(load_text(point.load.kind, point.load.value, point.load.jobs))
        if not point.ok:
            error = escape(point.error or "no error message recorded")
            rows.append(
                f'<tr class="failed"><th scope="row">{load}</th>'
                f'<td colspan="{len(head) - 2}">failed: {error}</td>{_flags_cell(point)}</tr>'
            )
            continue
        mbps = None
        if point.read_mbps is not None or point.write_mbps is not None:
            mbps = (point.read_mbps or 0.0) + (point.write_mbps or 0.0)
        split = f"{fmt_iops(point.read_iops)} / {fmt_iops(point.write_iops)}"
        cells = [_iops_cell(point), _cell(split, "num"), _cell(fmt_mbps(mbps), "num")]
        if has_tps:
            cells.append(_cell(fmt_iops(point.tps), "num"))
        for side, stat in columns:
            value = metric_value(point, f"{side}_lat_{stat}_ms")
            cls = "num"
            title = ""
            if f"{side}_lat_{stat}_ms" == slo.metric and value is not None and slo.limit_ms:
                cls += " over" if value > slo.limit_ms else " within"
                title = f"{slo.text}: {'over' if value > slo.limit_ms else 'within'}"
            cells.append(_cell(fmt_ms(value, unit=False), cls, title))
        cells.append(_cell(fmt_pct(point.cpu.util_pct if point.cpu else None), "num"))
        device = point.device
        awaits = DASH
        if device is not None and (device.read_await_ms, device.write_await_ms) != (None, None):
            awaits = (
                f"{fmt_ms(device.read_await_ms, False)} / {fmt_ms(device.write_await_ms, False)}"
            )
        cells.append(_cell(awaits, "num"))
        cells.append(_flags_cell(point))
        rows.append(f'<tr><th scope="row">{load}</th>{"".join(cells)}</tr>')
    header = "".join(_head(h) for h in head)
    return (
        f'<div class="scroll"><table class="points"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{_point_notes(run)}"
    )


def flag_legend() -> str:
    """What each trust flag means."""
    items = "".join(
        f'<dt><span class="flag flag-{escape(k.replace(" ", "-").replace(".", ""))}">{escape(k)}</span></dt>'
        f"<dd>{escape(v)}</dd>"
        for k, v in FLAG_LEGEND.items()
    )
    return f'<dl class="legend">{items}</dl>'


def _fact(key: str, value: Any, nested: bool = False) -> str:
    if isinstance(value, dict):
        if not value:
            return DASH
        text = "; ".join(f"{k}: {_fact(str(k), v, True)}" for k, v in value.items())
        return f"({text})" if nested else text
    if isinstance(value, list | tuple) and any(isinstance(v, dict) for v in value):
        return " | ".join(_fact(key, v) for v in value)
    if isinstance(value, int | float) and not isinstance(value, bool) and key.endswith("bytes"):
        return fmt_bytes(value)
    return fmt_value(value)


def _rows(data: dict[str, Any] | None, skip: tuple[str, ...] = ()) -> str:
    out = []
    for key, value in (data or {}).items():
        if key in skip:
            continue
        out.append(f"<tr><th>{escape(str(key))}</th><td>{escape(_fact(str(key), value))}</td></tr>")
    return "".join(out)


def facts_block(run: Run, engine: bool = True) -> str:
    """Target, engine, workload, host and study facts of one run, as small tables
    (without the engine's when the section shows it on its own)."""
    target = dict(run.target or {})
    facts = target.pop("facts", None) or {}
    workload = dict(run.workload or {})
    profile = workload.pop("profile", None) or {}
    groups = [
        ("Target", _rows(target) + _rows(facts)),
        ("Workload", _rows(workload) + _rows(profile)),
        ("Engine", _rows(run.engine) if engine else ""),
        ("Host", _rows(run.host)),
        (
            "Run",
            _rows(
                {
                    "run id": run.run_id,
                    "created": run.created_at,
                    "status": run.status,
                    "dbstor": run.tool_version,
                    "SLO": slo_of(run).text,
                }
            ),
        ),
        ("Study", _rows(run.study, skip=("slo",))),
    ]
    blocks = "".join(
        f'<div class="facts"><h4>{name}</h4><table>{rows}</table></div>'
        for name, rows in groups
        if rows
    )
    return f'<div class="fact-grid">{blocks}</div>'


def _pair(values: dict[str, Any], normalised: dict[str, Any], key: str) -> str:
    value = values.get(key)
    if value is None:
        return DASH
    shown = (
        fmt_ms(value)
        if key == "read_lat_ms"
        else fmt_pct(value)
        if key == "cpu_pct"
        else fmt_iops(value)
    )
    norm = normalised.get(key)
    return shown if norm is None else f"{shown} ({fmt_num(norm, 3)})"


def comparison_block(comparison: dict[str, Any]) -> str:
    """The comparison section: factors, warnings, the normalised bars and the tables."""
    baseline = str(comparison.get("baseline", ""))
    runs = comparison.get("runs") or []
    parts = [f"<h2>Comparison against {escape(baseline)} (baseline = 100)</h2>"]
    if comparison.get("comparable") is False:
        parts.append(
            '<div class="callout bad"><b>These runs are not comparable as they stand.</b> '
            "Read the warnings before using the factors.</div>"
        )
    for warning in comparison.get("warnings") or []:
        parts.append(f'<div class="callout warn">{escape(str(warning))}</div>')
    factors = comparison.get("factors") or []
    if factors:
        items = "".join(
            f"<li><b>{escape(str(f.get('label')))} vs {escape(baseline)}</b>: {escape(str(f.get('text')))}</li>"
            for f in factors
        )
        parts.append(f'<ul class="factors">{items}</ul>')
    parts.append(
        f"<figure>{comparison_chart(comparison)}<figcaption>Throughput and CPU of each run at "
        f"its knee (or at its peak when it has no knee), as a share of {escape(baseline)}"
        f"{escape(_latency_basis(comparison))}. Higher is better for IOPS and TPS, lower for "
        "latency.</figcaption></figure>"
    )
    keys = [
        (k, n) for k, n in COMPARED if any((r.get("values") or {}).get(k) is not None for r in runs)
    ]
    head = "".join(f"<th>{escape(n)}</th>" for _, n in keys)
    body = "".join(
        f"<tr><th>{escape(str(r.get('label')))}</th><td>{escape(str(r.get('workload', DASH)))}</td>"
        f"<td>{escape(str(r.get('basis', DASH)))}</td>"
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
    parts.append(_matched_table(comparison, keys))
    parts.append(_per_disk_table(comparison.get("per_disk") or []))
    return f'<section class="comparison">{"".join(parts)}</section>'


def _latency_basis(comparison: dict[str, Any]) -> str:
    load = comparison.get("latency_at_load")
    if not isinstance(load, int | float):
        return ""
    matched = comparison.get("matched") or [{}]
    kind = (matched[0].get("load") or {}).get("kind", "iodepth")
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


def _per_disk_table(per_disk: list[dict[str, Any]]) -> str:
    if not per_disk:
        return ""
    rows = "".join(
        f"<tr><th>{escape(str(d.get('label')))}</th>"
        f'<td class="num">{escape(fmt_value(d.get("drives")))}</td>'
        f'<td class="num">{escape(fmt_value(d.get("baseline_drives")))}</td>'
        f'<td class="num">{escape(fmt_factor(d.get("drive_reduction")))}</td>'
        f'<td class="num">{escape(fmt_factor(d.get("performance_factor")))}</td>'
        f'<td class="num">{escape(fmt_factor(d.get("per_disk_efficiency")))}</td></tr>'
        for d in per_disk
    )
    return (
        "<h3>Per-disk efficiency</h3><p>Drive reduction × performance factor: how much more work each "
        "drive does than in the baseline.</p><table><thead><tr><th>run</th><th>drives</th>"
        "<th>baseline drives</th><th>drive reduction</th><th>performance factor</th>"
        f"<th>per-disk efficiency</th></tr></thead><tbody>{rows}</tbody></table>"
    )
