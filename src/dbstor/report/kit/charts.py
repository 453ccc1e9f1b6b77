"""Line and bar charts as inline SVG, built on the kit in svg.py.

Values may be None: they are skipped, and a line breaks where one is missing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from dbstor.report.kit.absent import absent_chart, bar_gap_label
from dbstor.report.kit.fmt import fmt_num
from dbstor.report.kit.refs import Ref, edge_markers, ref_labels, ref_lines, split_far
from dbstor.report.kit.svg import (
    GRID,
    HALO,
    INK,
    PALETTE,
    Frame,
    Labels,
    Scale,
    marker_svg,
    nice_ticks,
    num,
    path,
    text,
    tick_text,
    value_label,
)

__all__ = ["Highlight", "Ref", "Series", "bar_chart", "hbar_chart", "line_chart"]


@dataclass
class Series:
    """One line (or bar set): values may be None and are then skipped."""

    name: str
    xs: Sequence[float | None]
    ys: Sequence[float | None]
    labels: Sequence[str] | None = None
    color: str | None = None
    marker: str | None = "circle"
    dashed: bool = False
    right: bool = False  # plotted against the right-hand axis
    connect: bool = True  # False: markers only (operating points), no line through them
    size: float = 4.0  # marker size
    missing: Sequence[str | None] | None = None  # why a value is None, by index


def _reasons(series: Sequence[Series]) -> list[str]:
    """Every reason a value of these series was not measured, each once."""
    out = [r for s in series for r in (s.missing or []) if r]
    return list(dict.fromkeys(out))


@dataclass
class Highlight:
    """A distinct marker with a label, e.g. the knee."""

    x: float
    y: float
    label: str
    color: str = "#b00020"


def _styled(series: Sequence[Series]) -> list[Series]:
    for index, one in enumerate(series):
        one.color = one.color or PALETTE[index % len(PALETTE)]
    return list(series)


class LogScale:
    """Maps positive values onto pixels on a log10 scale; ticks are whole decades."""

    def __init__(self, lo_decade: int, hi_decade: int, start: float, end: float):
        self.linear = Scale(float(lo_decade), float(hi_decade), start, end)

    def __call__(self, value: float) -> float:
        return self.linear(math.log10(value))


def _log_axis(frame: Frame, values: Sequence[float], label: str) -> LogScale:
    """A log10 x axis over whole decades, with light ticks at 2x and 5x."""
    lo = math.floor(math.log10(min(values)))
    hi = max(lo + 1, math.ceil(math.log10(max(values)) - 1e-9))
    x0, y0, x1, y1 = frame.box
    scale = LogScale(lo, hi, x0, x1)
    for decade in range(lo, hi + 1):
        value = 10.0**decade
        px = num(scale(value))
        frame.parts.append(f'<line x1="{px}" y1="{y0}" x2="{px}" y2="{y1}" stroke="{GRID}"/>')
        frame.parts.append(f'<line x1="{px}" y1="{y1}" x2="{px}" y2="{y1 + 4}" stroke="{INK}"/>')
        frame.parts.append(text(scale(value), y1 + 17, tick_text(value, value), 10.5, "middle"))
        for minor in (2, 5):
            if decade < hi:
                mx = num(scale(minor * value))
                frame.parts.append(
                    f'<line x1="{mx}" y1="{y1}" x2="{mx}" y2="{y1 + 3}" stroke="{INK}"/>'
                )
    frame.parts.append(text((x0 + x1) / 2, y1 + 36, label, 11.5, "middle"))
    return scale


def _span(values: Sequence[float], floor_zero: bool) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    return (min(0.0, lo) if floor_zero else lo), hi


def _point_tip(
    name: str,
    label: str,
    x: float,
    y: float,
    categories: Sequence[str] | None,
    x_label: str,
    y_label: str,
) -> str:
    """A marker's tooltip in the reader's words: 'fast: QD1: total IOPS 10,044, p99 read
    latency (ms) 0.2202', never '(1.004e+04, 0.2202)' or a category's index."""
    if categories is not None:
        where = categories[int(x)] if 0 <= int(x) < len(categories) else label
        return f"{name}: {where or label}: {fmt_num(y, 4)}"
    x_label = x_label.removesuffix(", log scale")
    what = f"{x_label} {fmt_num(x, 4)}, {y_label} {fmt_num(y, 4)}".strip()
    return f"{name}: {label}: {what}" if label else f"{name}: {what}"


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    refs: Sequence[Ref] = (),
    highlights: Sequence[Highlight] = (),
    categories: Sequence[str] | None = None,
    y2_label: str = "",
    y2_ticks: list[float] | None = None,
    height: int = 380,
    description: str = "",
    x_log: bool = False,
) -> str:
    """Lines with markers and point labels; a line breaks where a value is None.

    With `categories`, x values are indices into them (one band per load point). With
    `x_log`, the x axis is log10 over whole decades and x values of 0 or less are skipped.
    """
    series = _styled(series)
    pairs = {
        id(s): [
            (i, x, y)
            for i, (x, y) in enumerate(zip(s.xs, s.ys, strict=False))
            if x is not None and y is not None and (x > 0 or not x_log)
        ]
        for s in series
    }
    xs = [x for s in series for _, x, _ in pairs[id(s)]]
    xs += [r.value for r in refs if r.axis == "x"] + [h.x for h in highlights]
    left = [y for s in series if not s.right for _, _, y in pairs[id(s)]]
    left += [h.y for h in highlights]
    refs, far = split_far(refs, left)
    left += [r.value for r in refs if r.axis == "y"]
    right = [y for s in series if s.right for _, _, y in pairs[id(s)]]
    if not xs or not (left or right):
        return absent_chart(title, _reasons(series))
    legend = [(_legend_name(s), s.color or INK, s.marker, s.dashed) for s in series]
    frame = Frame(title, legend, height, right_axis=bool(right))
    x: Scale | LogScale
    if categories is not None:
        x = frame.x_categories(categories, x_label)
    elif x_log:
        x = _log_axis(frame, [v for v in xs if v > 0], x_label)
    else:
        x = frame.x_axis(nice_ticks(*_span(xs, True)), x_label)
    y = frame.y_axis(nice_ticks(*_span(left or [0.0, 1.0], True)), y_label)
    y2 = None
    if right:
        y2 = frame.y_axis(y2_ticks or nice_ticks(*_span(right, True)), y2_label, right=True)
    ref_lines(frame, refs, x, y)
    labels = Labels(frame.box)
    lines: list[str] = []
    marks: list[str] = []
    texts: list[str] = []
    placed: list[tuple[float, float, str]] = []
    for one in series:
        scale_y = y2 if one.right and y2 else y
        points = [(i, x(a), scale_y(b)) for i, a, b in pairs[id(one)]]
        for run in _runs(points) if one.connect else []:
            lines.append(path(run, one.color or INK, one.dashed))
            for a, b in itertools.pairwise(run):
                labels.block_line(a, b)
        for i, px, py in points:
            label = one.labels[i] if one.labels and i < len(one.labels) else ""
            tip = _point_tip(one.name, label, one.xs[i], one.ys[i], categories, x_label, y_label)
            marks.append(marker_svg(one.marker, px, py, one.color or INK, one.size, tip))
            labels.block(px, py, one.size + 1)
            if label:
                placed.append((px, py, label))
    for light in highlights:
        px, py = x(light.x), y(light.y)
        marks.append(
            f'<circle cx="{num(px)}" cy="{num(py)}" r="9" fill="none" '
            f'stroke="{light.color}" stroke-width="2.5"/>'
        )
        marks.append(marker_svg("diamond", px, py, light.color, 4.5, light.label))
        labels.block(px, py, 10)
    texts.extend(ref_labels(frame, refs, x, y, labels))
    texts.extend(edge_markers(frame, far, labels))
    for light in highlights:
        spot = labels.place(x(light.x), y(light.y), light.label, 11.5, gap=12)
        if spot:
            texts.append(
                text(*spot, light.label, 11.5, fill=light.color, font_weight="700", **HALO)
            )
    for px, py, label in placed:
        spot = labels.place(px, py, label)
        if spot:
            texts.append(text(*spot, label, 10.5, fill="#555", **HALO))
    frame.parts.extend(lines + marks + texts)
    return frame.render(description or title)


LEGEND_MAX = 95  # characters of a legend entry that fit the chart's width


def _legend_name(series: Series) -> str:
    """The legend's name; a series with no value at all says why."""
    if any(v is not None for v in series.ys) or not series.missing:
        return series.name
    reasons = list(dict.fromkeys(r for r in series.missing if r))
    if not reasons:
        return series.name
    name = f"{series.name}: not measured ({'; '.join(reasons)})"
    return name if len(name) <= LEGEND_MAX else f"{series.name}: not measured (see the caption)"


def _runs(points: list[tuple[int, float, float]]) -> list[list[tuple[float, float]]]:
    """Split (index, x, y) points into runs of consecutive indices: a line breaks at a gap."""
    runs: list[list[tuple[float, float]]] = []
    last = None
    for i, px, py in points:
        if last is None or i != last + 1:
            runs.append([])
        runs[-1].append((px, py))
        last = i
    return runs


def bar_chart(
    categories: Sequence[str],
    bars: Sequence[Series],
    *,
    title: str,
    y_label: str,
    x_label: str = "",
    lines: Sequence[Series] = (),
    refs: Sequence[Ref] = (),
    value_text: bool = True,
    y2_label: str = "",
    y2_ticks: list[float] | None = None,
    height: int = 360,
    description: str = "",
) -> str:
    """Grouped bars (one group per category, one bar per series; ys are the values),
    optionally with lines over the groups, on the left or the right axis."""
    _styled([*bars, *lines])
    values = [v for s in bars for v in s.ys if v is not None]
    values += [v for s in lines if not s.right for v in s.ys if v is not None]
    refs, far = split_far(refs, values)
    largest = max((abs(v) for s in bars for v in s.ys if v is not None), default=1.0)
    values += [r.value for r in refs]
    right = [v for s in lines if s.right for v in s.ys if v is not None]
    if not categories or not (values or right):
        return absent_chart(title, _reasons([*bars, *lines]))
    legend = [(_legend_name(s), s.color or INK, None, False) for s in bars]
    legend += [(_legend_name(s), s.color or INK, s.marker, s.dashed) for s in lines]
    legend += [(r.label, r.color, None, True) for r in refs]
    frame = Frame(title, legend, height, right_axis=bool(right))
    x = frame.x_categories(categories, x_label)
    y = frame.y_axis(nice_ticks(*_span(values or [0.0, 1.0], True)), y_label)
    y2 = (
        frame.y_axis(y2_ticks or nice_ticks(*_span(right, True)), y2_label, True) if right else None
    )
    width = frame.band * 0.78 / max(1, len(bars))
    zero = y(0.0)
    taken = Labels(frame.box)  # bars and their labels, which a far limit's marker avoids
    for index, one in enumerate(bars):
        for i, value in enumerate(one.ys):
            if i >= len(categories):
                continue
            left = x(i) - frame.band * 0.39 + index * width
            if value is None:
                reason = one.missing[i] if one.missing and i < len(one.missing) else None
                if reason and width >= 11:
                    frame.parts.append(
                        bar_gap_label(left + width / 2 - 4, zero, frame.box[1], reason)
                    )
                continue
            top = min(y(value), zero)
            taken.taken.append((left, top - 16, left + width, max(y(value), zero)))
            tip = f"{one.name}, {categories[i]}: {fmt_num(value, 4)}"
            frame.parts.append(
                f'<rect x="{num(left + 1)}" y="{num(top)}" width="{num(max(1.0, width - 2))}" '
                f'height="{num(abs(zero - y(value)))}" fill="{one.color}"><title>{escape(tip)}</title></rect>'
            )
            if value_text and width >= 18:
                inside = abs(zero - y(value)) > 18
                frame.parts.append(
                    text(
                        left + width / 2,
                        top + 13 if inside else top - 4,
                        value_label(value, largest),
                        10,
                        "middle",
                        fill="#fff" if inside else INK,
                    )
                )
    ref_lines(frame, refs, x, y)
    for one in lines:
        scale_y = y2 if one.right and y2 else y
        points = [(i, x(i), scale_y(v)) for i, v in enumerate(one.ys) if v is not None]
        for run in _runs(points):
            frame.parts.append(path(run, one.color or INK, one.dashed))
        for i, px, py in points:
            tip = f"{one.name}, {categories[i]}: {fmt_num(one.ys[i], 4)}"
            frame.parts.append(marker_svg(one.marker, px, py, one.color or INK, 4.0, tip))
    frame.parts.extend(edge_markers(frame, far, taken))
    return frame.render(description or title)


def hbar_chart(
    names: Sequence[str],
    bars: Sequence[Series],
    *,
    title: str,
    x_label: str,
    value_text: Callable[[float], str] = lambda v: fmt_num(v, 3),
    description: str = "",
) -> str:
    """Horizontal grouped bars, one row per name (long names read well at the left)."""
    _styled(bars)
    values = [v for s in bars for v in s.ys if v is not None]
    height = 34 + 18 * math.ceil(len(bars) / 4) + 56 + len(names) * (8 + 9 * len(bars))
    if not names or not values:
        return absent_chart(title, _reasons(bars))
    legend = [(_legend_name(s), s.color or INK, None, False) for s in bars]
    frame = Frame(title, legend, height)
    _, y0, x1, y1 = frame.box
    left = 16 + 6.2 * max(len(n) for n in names)
    frame.box = (left, y0, x1, y1)
    room = max(values) * 1.1  # space for the value written after the longest bar
    x = frame.x_axis(nice_ticks(*_span([*values, room], True)), x_label)
    row = (y1 - y0) / len(names)
    thick = row * 0.8 / max(1, len(bars))
    zero = x(0.0)
    for i, name in enumerate(names):
        top = y0 + i * row + row * 0.1
        frame.parts.append(text(left - 6, top + row * 0.4 + 4, name, 10.5, "end"))
        for k, one in enumerate(bars):
            value = one.ys[i] if i < len(one.ys) else None
            y = top + k * thick
            if value is None:
                reason = one.missing[i] if one.missing and i < len(one.missing) else None
                if reason and any(v is not None for v in one.ys):  # else the legend says it
                    words = f"{one.name} not measured: {reason}"
                    frame.parts.append(
                        text(zero + 4, y + thick / 2 + 3.5, words, 9.5, fill="#777",
                             font_style="italic")
                    )  # fmt: skip
                continue
            tip = f"{one.name}, {name}: {fmt_num(value, 4)}"
            frame.parts.append(
                f'<rect x="{num(zero)}" y="{num(y + 0.5)}" width="{num(max(1.0, x(value) - zero))}" '
                f'height="{num(max(1.0, thick - 1))}" fill="{one.color}"><title>{escape(tip)}</title></rect>'
            )
            frame.parts.append(text(x(value) + 4, y + thick / 2 + 3.5, value_text(value), 9.5))
    return frame.render(description or title)
