"""Reference lines on a chart (an SLO, the baseline = 100, where a load point starts).

A limit near the data is a dashed line across the plot. A limit far above the data (more
than FAR_FACTOR times the data's largest value) would squash the data flat against the
axis, so it is not allowed to stretch the axis: it is drawn as a labelled marker at the
plot's top edge ("SLO 20 ms p99 read ↑ above") and the axis fits the data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from dbstor.report.kit.svg import HALO, Frame, Labels, num, text

FAR_FACTOR = 2.5  # a y limit beyond this multiple of the data's largest value is "far"


@dataclass
class Ref:
    """A dashed reference line at a value on the y axis (or x axis), with a label."""

    value: float
    label: str
    axis: str = "y"
    color: str = "#b00020"


def split_far(refs: Sequence[Ref], data: Sequence[float]) -> tuple[list[Ref], list[Ref]]:
    """(near, far): y refs above FAR_FACTOR times the data's largest value are far; x refs,
    and every ref when there is no positive data to fit, are near."""
    top = max(data, default=0.0)
    near, far = [], []
    for ref in refs:
        is_far = ref.axis == "y" and top > 0 and ref.value > FAR_FACTOR * top
        (far if is_far else near).append(ref)
    return near, far


def edge_text(ref: Ref) -> str:
    """The label of a far limit's edge marker: 'SLO 20 ms p99 read ↑ above'."""
    return f"{ref.label} ↑ above"


def ref_lines(
    frame: Frame, refs: Sequence[Ref], x: Callable[[float], float], y: Callable[[float], float]
) -> None:
    """Dashed reference lines (their labels come later, once the data is laid out)."""
    x0, y0, x1, y1 = frame.box
    for ref in refs:
        if ref.axis == "x":
            px = num(x(ref.value))
            line = f'x1="{px}" y1="{y0}" x2="{px}" y2="{y1}"'
        else:
            py = num(y(ref.value))
            line = f'x1="{x0}" y1="{py}" x2="{x1}" y2="{py}"'
        frame.parts.append(
            f'<line class="ref" {line} stroke="{ref.color}" stroke-width="1.5" '
            'stroke-dasharray="7 4"/>'
        )


def ref_labels(
    frame: Frame,
    refs: Sequence[Ref],
    x: Callable[[float], float],
    y: Callable[[float], float],
    labels: Labels,
) -> list[str]:
    """Labels for reference lines, each where it overlaps no data (at the right end if it can)."""
    x0, y0, x1, _ = frame.box
    out = []
    for ref in refs:
        size = 10.0 if ref.axis == "x" else 11.0
        width = 0.58 * size * len(ref.label)
        if ref.axis == "x":
            spots = [(x(ref.value) + 3, y0 + 10)]
        else:
            py = y(ref.value)
            spots = [(x1 - 4 - width, py - 5), (x1 - 4 - width, py + 14), (x0 + 6, py - 5),
                     (x0 + 6, py + 14), ((x0 + x1 - width) / 2, py - 5)]  # fmt: skip
        for left, base in spots:
            rect = (left, base - size, left + width, base + 2)
            if ref.axis == "y" and any(overlap(rect, other) for other in labels.taken):
                continue
            labels.taken.append(rect)
            out.append(text(left, base, ref.label, size, fill=ref.color, font_weight="600", **HALO))
            break
    return out


def edge_markers(frame: Frame, refs: Sequence[Ref], labels: Labels) -> list[str]:
    """Far limits as markers on the plot's top edge: a short dashed stub with an arrow
    pointing up and the label beside it, placed where it overlaps no data label."""
    x0, y0, x1, _ = frame.box
    out = []
    for index, ref in enumerate(refs):
        label = edge_text(ref)
        size = 11.0
        width = 0.58 * size * len(label)
        base = y0 + 14 + 16 * index
        spots = (x1 - 24 - width, x0 + 24, (x0 + x1 - width) / 2)
        for number, left in enumerate(spots):
            rect = (left - 20, base - size, left + width, base + 3)
            last = number == len(spots) - 1  # a far limit is always drawn, over data if it must
            if not last and any(overlap(rect, other) for other in labels.taken):
                continue
            labels.taken.append(rect)
            tip = left - 10
            out.append(
                f'<g class="ref-edge"><title>{escape(ref.label)}: the limit lies above this axis, '
                f'which fits the data</title><line x1="{num(tip)}" y1="{num(y0)}" '
                f'x2="{num(tip)}" y2="{num(base + 2)}" stroke="{ref.color}" stroke-width="1.5" '
                f'stroke-dasharray="3 2"/><path d="M{num(tip - 4)} {num(y0 + 6)}L{num(tip)} '
                f'{num(y0)}L{num(tip + 4)} {num(y0 + 6)}" fill="none" stroke="{ref.color}" '
                'stroke-width="1.5"/>'
                + text(left, base, label, size, fill=ref.color, font_weight="600", **HALO)
                + "</g>"
            )
            break
    return out


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two (left, top, right, bottom) rectangles overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
