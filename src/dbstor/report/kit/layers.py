"""Latency layer by layer, as TR-4367's Figures 1 and 2: one bar group per load point, one
bar per layer (the client, this host's device, the database host's device, the storage
system); the CPU of each layer (the storage system's too) as a chart; every layer's
figures in one table; and a sentence where two layers disagree on where the time goes."""

from __future__ import annotations

from html import escape

from dbstor.analysis.layers import (
    LAYER_ORDER,
    LAYER_WORDS,
    Layers,
    layer_figure,
    where_time_goes,
)
from dbstor.report.kit.charts import Series, bar_chart
from dbstor.report.kit.fmt import fmt_iops, fmt_ms, fmt_num, fmt_pct, load_text
from dbstor.report.kit.svg import PALETTE
from dbstor.report.kit.tables import head_cell
from dbstor.results.model import Point, Run

FAR_LAYERS = ("remote_device", "storage")  # the layers only Prometheus gives
CPU_WORDS = {"host_device": "this host", "remote_device": "the database host",
             "storage": "the storage system"}  # fmt: skip


def layers_html(run: Run) -> str:
    """The figures, the table and the sentences, or "" when no point has a layer beyond
    this host."""
    points = [p for p in run.points if p.ok and p.layers]
    if not any(layer in (p.layers or {}) for p in points for layer in FAR_LAYERS):
        return ""
    parts: list[str] = []
    categories = [load_text(p.load.kind, p.load.value, p.load.jobs) for p in points]
    for direction in ("read", "write"):
        bars = _bars(points, f"{direction}_latency_ms")
        if len(bars) < 2:
            continue
        chart = bar_chart(
            categories,
            bars,
            title=f"Mean {direction} latency by layer",
            y_label=f"mean {direction} latency (ms)",
        )
        parts.append(
            f"<figure>{chart}<figcaption>Mean {direction} latency per operation at each layer "
            "of the stack over the same measured window, as TR-4367 compared the database "
            "server with the storage controller: a gap between two layers is time spent "
            "between them.</figcaption></figure>"
        )
    cpu = _bars(points, "cpu_util_pct", cpu=True)
    if any(layer in FAR_LAYERS for layer, _ in cpu):
        chart = bar_chart(
            categories,
            [bar for _, bar in cpu],
            title="CPU busy by layer",
            y_label="CPU busy (% of all cores)",
            height=300,
        )
        parts.append(
            f"<figure>{chart}<figcaption>How busy each layer's CPUs were over the same window: "
            "this host's from /proc/stat, the database host's and the storage system's from "
            "their exporters. A storage controller near 100% limits the array before its "
            "media do.</figcaption></figure>"
        )
    parts.append(layer_table(points))
    said = []
    for point in points:
        for direction in ("read", "write"):
            sentence = where_time_goes(point.layers or {}, direction)
            if sentence:
                label = load_text(point.load.kind, point.load.value, point.load.jobs)
                said.append(f"<li>{escape(label)}: {escape(sentence)}</li>")
    if said:
        parts.append(f"<p>Where the time goes:</p><ul>{''.join(said)}</ul>")
    missing = _missing(run)
    if missing:
        parts.append(f'<p class="meta">{escape(missing)}</p>')
    return "".join(parts)


def draws_layer_latency(run: Run) -> bool:
    """Whether layers_html draws a latency-by-layer chart (two layers with a latency)."""
    points = [p for p in run.points if p.ok and p.layers]
    if not any(layer in (p.layers or {}) for p in points for layer in FAR_LAYERS):
        return False
    return any(len(_bars(points, f"{d}_latency_ms")) >= 2 for d in ("read", "write"))


def _bars(points: list[Point], key: str, cpu: bool = False) -> list:
    """One bar series per layer that has the figure at some point, in the layer's own
    colour; for CPU (named by host, not device) (layer, Series) pairs."""
    out = []
    for index, layer in enumerate(LAYER_ORDER):
        ys = [layer_figure(p.layers, layer, key) for p in points]
        if any(v is not None for v in ys):
            words = CPU_WORDS.get(layer, LAYER_WORDS[layer]) if cpu else LAYER_WORDS[layer]
            name = words.removeprefix("the ")
            color = PALETTE[index]  # a layer keeps its colour from chart to chart
            series = Series(name[0].upper() + name[1:], list(range(len(ys))), ys, color=color)
            out.append((layer, series) if cpu else series)
    return out


COLUMNS = (
    ("read_latency_ms", "mean read latency|ms", lambda v: fmt_ms(v, unit=False)),
    ("write_latency_ms", "mean write latency|ms", lambda v: fmt_ms(v, unit=False)),
    ("txn_latency_ms", "mean transaction latency|ms", lambda v: fmt_ms(v, unit=False)),
    ("iops", "IOPS|reads + writes", fmt_iops),
    ("tps", "transactions|per second", fmt_iops),
    ("cpu_util_pct", "CPU busy|% of all cores", fmt_pct),
)


def layer_table(points: list[Point]) -> str:
    """Every point's layers in one table: latency, IOPS and CPU (the storage system's CPU
    included), a missing layer with its reason."""
    columns = [
        c for c in COLUMNS if any(_cell_value(p.layers, layer, c[0]) is not None
                                  for p in points for layer in LAYER_ORDER)
    ]  # fmt: skip
    rows = []
    for point in points:
        layers = [layer for layer in LAYER_ORDER if layer in (point.layers or {})]
        label = escape(load_text(point.load.kind, point.load.value, point.load.jobs))
        for index, layer in enumerate(layers):
            entry = (point.layers or {})[layer]
            first = f'<th rowspan="{len(layers)}">{label}</th>' if index == 0 else ""
            name = f"<td>{escape(LAYER_WORDS[layer])}</td>"
            if "missing" in entry:
                why = f"not measured: {entry['missing']}"
                cells = f'<td colspan="{len(columns)}" class="missing">{escape(why)}</td>'
            else:
                cells = "".join(
                    f'<td class="num">{escape(fmt(_cell_value(point.layers, layer, key)))}</td>'
                    for key, _, fmt in columns
                )
            rows.append(f"<tr>{first}{name}{cells}</tr>")
    head = "".join(head_cell(title) for _, title, _ in columns)
    return (
        '<h3>Layer by layer at each load point</h3><div class="scroll"><table class="layers">'
        f'<thead><tr><th scope="col">load</th><th scope="col">layer</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _cell_value(layers: Layers | None, layer: str, key: str) -> float | None:
    if key != "iops":
        return layer_figure(layers, layer, key)
    parts = [layer_figure(layers, layer, f"{d}_iops") for d in ("read", "write")]
    known = [v for v in parts if v is not None]
    return sum(known) if known else None


def _missing(run: Run) -> str:
    """One sentence per layer and reason: which points lack that layer, and why."""
    reasons: dict[tuple[str, str], list[str]] = {}
    nulled: dict[tuple[str, str], list[str]] = {}
    for point in run.points:
        for layer, entry in (point.layers or {}).items():
            if "missing" in entry:
                label = _label(point)
                reasons.setdefault((layer, str(entry["missing"])), []).append(label)
            for why in (entry.get("nulled") or {}).values():  # a figure that was no figure
                nulled.setdefault((layer, str(why)), []).append(_label(point))
    return " ".join(
        [
            f"{_capital(LAYER_WORDS[layer])} is missing at {', '.join(labels)}: {reason}."
            for (layer, reason), labels in reasons.items()
        ]
        + [
            f"A figure of {LAYER_WORDS[layer]} is null at {', '.join(labels)}: {reason}."
            for (layer, reason), labels in nulled.items()
        ]
    )


def _label(point: Point) -> str:
    """The point as its run's tables name it (a query run's one stream: its power run)."""
    load = point.load
    if load.kind == "streams":
        return "the power run" if load.value == 1 else f"{fmt_num(load.value)} streams"
    return load_text(load.kind, load.value, load.jobs)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
