"""The document's "Workloads together" section: a [mix]'s workloads on one storage at once,
each beside itself alone (comparison.json's "mix", analysis/mix.py), and each one's share
of what the device moved."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.mix import headline, load_words, why_no_factor
from dbstor.report.kit.charts import Series, hbar_chart
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_factor, fmt_ms, fmt_num, fmt_pct, load_text
from dbstor.report.kit.tables import cell, scroll_table

OVER_ONE = 1.02  # shares adding up to more than this are said to

HEAD = [
    "workload",
    "load",
    "throughput alone",
    "together",
    "throughput together / alone|95% interval",
    "latency|what the users felt",
    "alone",
    "together",
    "latency together / alone",
    "own I/O|in its window",
    "device moved|widest window",
    "share of the device",
    "flags",
]


def mix_body(groups: list[dict[str, Any]] | None) -> str:
    """Every target's mix: the headline per workload, then the table; '' without a mix."""
    return "".join(_group(group) for group in groups or [])


def mix_summary(groups: list[dict[str, Any]] | None) -> str:
    """The summary's lines for a mix: each workload's headline, linked to its section."""
    lines = []
    for group in groups or []:
        names = [str(n) for n in group.get("workloads") or []]
        for member in group.get("members") or []:
            words = headline(member, [n for n in names if n != member.get("workload")])
            if words:
                where = f" on {group.get('target')}"
                lines.append(
                    f'<li>{escape(words + where)}. <a class="src" href="#mix">table</a></li>'
                )
    return f'<ul class="findings">{"".join(lines)}</ul>' if lines else ""


def _group(group: dict[str, Any]) -> str:
    names = [str(n) for n in group.get("workloads") or []]
    members = group.get("members") or []
    lines = []
    for member in members:
        others = [n for n in names if n != member.get("workload")]
        words = headline(member, others)
        lines.append(
            f"<li>{escape(words)}.</li>"
            if words
            else f"<li>{escape(str(member.get('workload')))}: no factor "
            f"({escape(why_no_factor(member))}).</li>"
        )
    totals = group.get("device") or []
    rows = [
        _row(member, point, totals[i] if i < len(totals) else {})
        for member in members
        for i, point in enumerate(member.get("points") or [])
    ]
    counted = next(
        (
            p["device"].get("writes_counted")
            for m in members
            for p in m.get("points") or []
            if p["device"].get("writes_counted")
        ),
        None,
    )
    note = (
        '<p class="note">Each workload ran in its own process; every point\'s measured window '
        "began at one instant (after the same warm-up; query streams, which have none, started "
        "as the others' warm-up ended). Its own I/O is what its processes did to the device "
        "(its cgroups; fio's own output for an fio stream), set against all the device moved "
        "over the widest window (the windows begin at one instant; the one in which the device "
        "moved the most holds the others'). "
        + (f"Writes counted: {escape(counted)}." if counted else "")
        + "</p>"
    )
    note += "".join(_totals_line(t, names) for t in totals)
    if group.get("overlap"):
        note += f'<div class="callout warn">{escape(str(group["overlap"]))}</div>'
    title = f"{' + '.join(names)} together on {group.get('target')}"
    return (
        f"<h3>{escape(title)}</h3><ul>{''.join(lines)}</ul>"
        + latency_chart(members)
        + scroll_table(HEAD, rows, "mix")
        + note
    )


def latency_chart(members: list[dict[str, Any]]) -> str:
    """Each workload's latency alone and together (bars), at each of its loads."""
    pairs = [(m, p) for m in members for p in m.get("points") or []]
    if not pairs:
        return ""
    categories = [
        f"{m.get('workload')} {load_words(p['load'].get('kind'), p['load'].get('value'))}"
        for m, p in pairs
    ]
    what = [str(p.get("latency_of") or "") for _, p in pairs]
    bars = [
        Series("alone", [], [p["alone"].get("latency_ms") for _, p in pairs], color="#0072B2"),
        Series(
            "together", [], [p["together"].get("latency_ms") for _, p in pairs], color="#D55E00"
        ),
    ]
    chart = hbar_chart(
        categories,
        bars,
        title="Each workload's latency alone and together",
        x_label="latency (ms)",
        value_text=lambda v: fmt_num(v, 3),
        description="Bars: each workload's latency alone and together.",
    )
    said = "; ".join(f"{c}: {w}" for c, w in zip(categories, what, strict=True) if w)
    caption = (
        "Bars: each workload's latency alone and together, the one its users felt "
        f"({said}). Each one's share of the device is in the table below."
    )
    return f"<figure>{chart}<figcaption>{escape(caption)}</figcaption></figure>"


def _row(member: dict[str, Any], point: dict[str, Any], total: dict[str, Any]) -> str:
    alone, together, device = point["alone"], point["together"], point["device"]
    unit = str(point.get("unit") or "")
    factor = fmt_factor(point.get("throughput_factor"))
    bounds = point.get("throughput_interval")
    if bounds:
        factor += f" ({fmt_num(bounds[0], 2)}–{fmt_num(bounds[1], 2)})"
    load = point.get("load") or {}
    share = device.get("share")
    cells = [
        cell(f"{member.get('workload')} ({member.get('engine') or 'fio'})"),
        cell(load_text(load.get("kind"), load.get("value"))),
        cell(f"{fmt_num(alone.get('throughput'))} {unit}", "num"),
        cell(f"{fmt_num(together.get('throughput'))} {unit}", "num"),
        cell(factor if point.get("why_null") is None else DASH, "num", point.get("why_null") or ""),
        cell(str(point.get("latency_of") or DASH)),
        cell(fmt_ms(alone.get("latency_ms")), "num"),
        cell(fmt_ms(together.get("latency_ms")), "num"),
        cell(
            fmt_factor(point.get("latency_factor")),
            "num",
            point.get("why_null") or point.get("latency_why_null") or "",
        ),
        cell(fmt_bytes(device.get("own_bytes")), "num"),
        cell(fmt_bytes(total.get("device_bytes")), "num"),
        cell(
            fmt_pct(share * 100) if share is not None else DASH, "num", device.get("why_null") or ""
        ),
        cell(", ".join(point.get("flags") or []) or DASH),
    ]
    return f"<tr>{''.join(cells)}</tr>"


def _totals_line(total: dict[str, Any], names: list[str]) -> str:
    """'The device moved 52 MiB over the 3 s window (brokerage's): brokerage 40%, ...'"""
    if total.get("why_null"):
        return f"<p>Shares of the device: not told ({escape(str(total['why_null']))}).</p>"
    shares = total.get("shares") or {}
    parts = [
        f"{name} {fmt_pct(shares[name] * 100) if shares.get(name) is not None else DASH}"
        for name in names
        if name in shares
    ]
    rest, over = total.get("rest"), total.get("sum")
    if over is not None and over > OVER_ONE:
        parts.append(
            f"together {fmt_pct(over * 100)}: the members' windows and counters differ a little "
            "(fio's own window and output, the sampler's whole seconds, cgroup counts), so "
            "each share is that close"
        )
    elif rest is not None:
        parts.append(
            f"the rest {fmt_pct(rest * 100)} (other processes, writes the kernel flushed later)"
        )
    return (
        f"<p>The device moved {escape(fmt_bytes(total.get('device_bytes')))} over the "
        f"{escape(fmt_num(total.get('window_s'), 2))} s window ({escape(str(total.get('window_of')))}'s, "
        f"the widest): {escape(', '.join(parts))}.</p>"
    )
