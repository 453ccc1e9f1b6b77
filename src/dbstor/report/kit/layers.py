"""Latency layer by layer, as TR-4367's Figures 1 and 2: one bar group per load point, one
bar per layer (the client, this host's device, the database host's device, the storage
system), and a sentence where two layers disagree on where the time goes."""

from __future__ import annotations

from html import escape

from dbstor.analysis.layers import LAYER_ORDER, LAYER_WORDS, layer_figure, where_time_goes
from dbstor.report.kit.charts import Series, bar_chart
from dbstor.report.kit.fmt import fmt_num, load_text
from dbstor.results.model import Point, Run

FAR_LAYERS = ("remote_device", "storage")  # the layers only Prometheus gives


def layers_html(run: Run) -> str:
    """The figure and its sentences, or "" when no point has a layer beyond this host."""
    points = [p for p in run.points if p.ok and p.layers]
    if not any(layer in (p.layers or {}) for p in points for layer in FAR_LAYERS):
        return ""
    parts: list[str] = []
    for direction in ("read", "write"):
        key = f"{direction}_latency_ms"
        bars = []
        for layer in LAYER_ORDER:
            ys = [layer_figure(p.layers, layer, key) for p in points]
            if any(v is not None for v in ys):
                name = LAYER_WORDS[layer].removeprefix("the ")
                bars.append(Series(name[0].upper() + name[1:], list(range(len(ys))), ys))
        if len(bars) < 2:
            continue
        categories = [load_text(p.load.kind, p.load.value, p.load.jobs) for p in points]
        chart = bar_chart(
            categories, bars, title=f"Mean {direction} latency by layer", y_label="ms"
        )
        parts.append(
            f"<figure>{chart}<figcaption>Mean {direction} latency per operation at each layer "
            "of the stack over the same measured window, as TR-4367 compared the database "
            "server with the storage controller: a gap between two layers is time spent "
            "between them.</figcaption></figure>"
        )
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
