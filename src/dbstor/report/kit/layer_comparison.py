"""Runs compared layer by layer in the HTML report, as TR-4367's Figures 1 and 2 did (latency
at the SQL Server and at the storage controller, each normalised to FC = 100): one bar group
per layer (the client, this host's device, the database host's device, the storage system),
one bar per run, the baseline's same layer = 100, and the figures behind the bars."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.layers import LAYER_WORDS
from dbstor.report.kit.charts import Ref, Series, bar_chart
from dbstor.report.kit.fmt import DASH, fmt_iops, fmt_ms, fmt_num, fmt_pct, load_text
from dbstor.report.kit.svg import PALETTE
from dbstor.report.kit.tables import head_cell

CHARTS = (
    ("read_latency_ms", "Mean read latency", "lower is better"),
    ("write_latency_ms", "Mean write latency", "lower is better"),
    ("iops", "IOPS", "higher is better"),
    ("cpu_util_pct", "CPU busy", "the share of each layer's CPUs in use"),
    ("tps", "Transactions per second", "higher is better"),
    ("txn_latency_ms", "Mean transaction latency", "lower is better"),
)
HEADS = (
    "mean read latency",
    "mean write latency",
    "IOPS",
    "CPU busy|% of all cores",
    "transactions|per second",
    "mean transaction latency",
)


def layer_chart(block: dict[str, Any], baseline: str, key: str, title: str, better: str) -> str:
    """One bar group per layer, one bar per run, for one figure normalised to the baseline;
    empty when no layer has the figure."""
    layers = [
        layer
        for layer in block.get("layers") or []
        if any(
            ((r.get("normalised") or {}).get(layer) or {}).get(key) is not None
            for r in block.get("runs") or []
        )
    ]
    if not layers:
        return ""
    bars = [
        Series(
            str(r.get("label")),
            [],
            [((r.get("normalised") or {}).get(layer) or {}).get(key) for layer in layers],
            color=PALETTE[i % len(PALETTE)],
        )
        for i, r in enumerate(block.get("runs") or [])
    ]
    return bar_chart(
        [LAYER_WORDS.get(layer, layer) for layer in layers],
        bars,
        title=f"{title} by layer, relative to {baseline} = 100",
        y_label=f"relative value ({baseline}'s layer = 100)",
        refs=[Ref(100.0, f"{baseline} = 100", color="#444")],
        height=320,
        description=f"{title} at each layer as a share of the baseline's same layer; {better}.",
    )


def _cell(values: dict[str, Any], normalised: dict[str, Any], key: str) -> str:
    value = values.get(key)
    if value is None:
        return DASH
    if key in ("iops", "tps"):
        shown = fmt_iops(value)
    elif key == "cpu_util_pct":
        shown = fmt_pct(value)
    else:
        shown = fmt_ms(value)
    norm = normalised.get(key)
    return shown if norm is None else f"{shown} ({fmt_num(norm, 3)})"


def layer_comparison_block(comparison: dict[str, Any]) -> str:
    """The by-layer comparison: the charts and a table (nothing when the runs have no layers)."""
    block = comparison.get("layers")
    if not block:
        return ""
    baseline = str(comparison.get("baseline", "baseline"))
    load = block.get("load") or {}
    where = load_text(load.get("kind"), load.get("value"), compact=False)
    same = comparison.get("same_load") or {}
    if same.get("load_words"):
        where = f"{same['load_words']}, {same.get('basis')}"
    parts = [
        "<h3>Layer by layer</h3>",
        f"<p>Every run at the same load ({escape(where)}), each layer "
        f"as a share of {escape(baseline)}'s same layer = 100, as TR-4367 compared latency at "
        "the database server and at the storage controller: a layer whose share moves apart "
        "from the others is where the difference between the runs lies.</p>",
    ]
    for key, title, better in CHARTS:
        chart = layer_chart(block, baseline, key, title, better)
        if chart:
            parts.append(f"<figure>{chart}</figure>")
    rows = []
    # a column for each figure some run has at some layer (CPU only where it was measured)
    shown = [
        chart
        for chart in CHARTS
        if chart[0] != "cpu_util_pct"
        or any(
            ((r.get("values") or {}).get(layer) or {}).get(chart[0]) is not None
            for r in block.get("runs") or []
            for layer in block.get("layers") or []
        )
    ]
    for run in block.get("runs") or []:
        missing = run.get("missing") or {}
        for layer in block.get("layers") or []:
            values = (run.get("values") or {}).get(layer) or {}
            normalised = (run.get("normalised") or {}).get(layer) or {}
            if all(values.get(key) is None for key, _, _ in shown) and layer in missing:
                why = f"not measured: {missing[layer]}"
                cells = f'<td colspan="{len(shown)}">{escape(why)}</td>'
            else:
                cells = "".join(
                    f'<td class="num">{escape(_cell(values, normalised, key))}</td>'
                    for key, _, _ in shown
                )
            rows.append(
                f"<tr><th>{escape(str(run.get('label')))}</th>"
                f"<td>{escape(LAYER_WORDS.get(layer, layer))}</td>{cells}</tr>"
            )
    heads = "".join(head_cell(HEADS[CHARTS.index(chart)]) for chart in shown)
    parts.append(
        '<div class="scroll"><table><thead><tr><th>run</th><th>layer</th>'
        f"{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
    for run in block.get("runs") or []:
        if run.get("withheld"):
            parts.append(
                f'<div class="callout warn">{escape(str(run.get("label")))}&#x27;s layers are not '
                f"set beside the baseline&#x27;s: {escape(str(run['withheld']))}</div>"
            )
    return f'<div class="layers-compared">{"".join(parts)}</div>'
