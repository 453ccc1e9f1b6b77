"""The SVG kit under the charts: nice ticks, linear scales, text, markers and the frame
(title, legend, axes, grid) that every chart draws into.

Everything is plain SVG with presentation attributes, so it renders without CSS or
JavaScript and prints well.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#444444")
MARKERS = ("circle", "square", "triangle", "diamond")
WIDTH = 720
INK = "#222"
GRID = "#e4e4e4"
HALO = {"paint_order": "stroke", "stroke": "#fff", "stroke_width": "3", "stroke_linejoin": "round"}
FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"


def nice_number(value: float, round_: bool) -> float:
    """The 1-2-5 number nearest to (round_) or not below (not round_) a positive value."""
    exponent = math.floor(math.log10(value))
    fraction = value / 10**exponent
    if round_:
        steps = ((1.5, 1), (3, 2), (7, 5))
        nice = next((n for limit, n in steps if fraction < limit), 10)
    else:
        nice = next((n for n in (1, 2, 5) if fraction <= n), 10)
    return nice * 10**exponent


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values whose span covers [lo, hi] (Heckbert's nice labels)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("tick range must be finite")
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = (lo - pad, hi + pad) if lo != 0 else (0.0, pad)
    step = nice_number((hi - lo) / max(1, count - 1), True)
    first = math.floor(lo / step + 1e-9) * step
    last = math.ceil(hi / step - 1e-9) * step
    n = round((last - first) / step)
    decimals = max(0, -math.floor(math.log10(step)) + 1)
    return [round(first + i * step, decimals) for i in range(n + 1)]


def tick_text(value: float, step: float) -> str:
    """Tick label: 40000 -> '40K', 1500000 -> '1.5M', 0.25 -> '0.25'."""
    for factor, suffix in ((1e6, "M"), (1e3, "K")):
        if abs(value) >= factor and step >= factor / 10:
            text = f"{value / factor:.{_decimals(step / factor)}f}"
            return text + suffix
    return f"{value:,.{_decimals(step)}f}"


def value_label(value: float, top: float) -> str:
    """A bar's value label, with precision from the chart's largest value (`top`): whole
    numbers from 10 up, else two significant digits of `top` (0.86, 0.12, 0.055 for a
    chart up to 0.86); a value that would round to 0 keeps two significant digits of its
    own (0.0043), so a measured value is never labelled "0"."""
    if value == 0 or top >= 10:
        return tick_text(value, 1.0) if abs(value) >= 0.5 or value == 0 else _significant(value)
    decimals = max(0, 1 - math.floor(math.log10(abs(top))))
    shown = f"{value:.{decimals}f}"
    return _significant(value) if float(shown) == 0 else shown


def _significant(value: float, digits: int = 2) -> str:
    magnitude = math.floor(math.log10(abs(value)))
    return f"{value:.{max(0, digits - 1 - magnitude)}f}"


def _decimals(step: float) -> int:
    if step <= 0 or step >= 1:
        return 0
    return max(0, -math.floor(math.log10(step) + 1e-9) + (0 if _is_power_step(step) else 1))


def _is_power_step(step: float) -> bool:
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    return abs(mantissa - round(mantissa)) < 1e-6


@dataclass
class Scale:
    """Maps a data interval [lo, hi] linearly onto pixels [start, end]."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.hi - self.lo or 1.0
        return self.start + (value - self.lo) / span * (self.end - self.start)


@dataclass
class Labels:
    """Places text labels so that they overlap neither each other, nor the markers and lines
    blocked beforehand, nor the plot's edges; a label that fits nowhere is left out."""

    box: tuple[float, float, float, float]
    taken: list[tuple[float, float, float, float]] = field(default_factory=list)

    def block(self, x: float, y: float, radius: float = 5.0) -> None:
        """Keep labels off a square around (x, y)."""
        self.taken.append((x - radius, y - radius, x + radius, y + radius))

    def block_line(self, a: tuple[float, float], b: tuple[float, float]) -> None:
        """Keep labels off a line segment (blocked as small squares along it)."""
        steps = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 4))
        for i in range(steps + 1):
            t = i / steps
            self.block(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), 1.5)

    def place(
        self, x: float, y: float, text: str, size: float = 10.5, gap: float = 6
    ) -> tuple[float, float] | None:
        """The baseline-left corner for the label of a mark at (x, y), or None."""
        width, height = 0.58 * size * len(text), size
        up, down, mid = -gap - 1, gap + height, height / 2 - 1
        spots = [
            (gap, up), (gap, down), (-gap - width, up), (-gap - width, down),
            (gap + 2, mid), (-gap - 2 - width, mid), (-width / 2, up - 2), (-width / 2, down + 2),
            (2 * gap, up - height), (2 * gap, down + height),
        ]  # fmt: skip
        for dx, dy in spots:
            left, base = x + dx, y + dy
            rect = (left, base - height + 1, left + width, base + 2)
            if not self._inside(rect) or any(_overlap(rect, other) for other in self.taken):
                continue
            self.taken.append(rect)
            return left, base
        return None

    def _inside(self, rect: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = self.box
        return rect[0] >= x0 + 2 and rect[2] <= x1 + 16 and rect[1] >= y0 - 4 and rect[3] <= y1 - 2


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def num(value: float) -> str:
    """A coordinate with at most one decimal, to keep the SVG small."""
    return f"{value:.1f}".removesuffix(".0")


def text(
    x: float,
    y: float,
    content: str,
    size: float = 11,
    anchor: str = "start",
    fill: str = INK,
    **attrs: str,
) -> str:
    """An escaped <text> element; extra attributes use _ for - (font_weight=...)."""
    extra = "".join(f' {k.replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    return (
        f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" text-anchor="{anchor}"'
        f' fill="{fill}"{extra}>{escape(content)}</text>'
    )


def marker_svg(
    kind: str | None, x: float, y: float, color: str, size: float = 4.0, title: str = ""
) -> str:
    """A point marker (circle, square, triangle, diamond) with an optional tooltip."""
    tip = f"<title>{escape(title)}</title>" if title else ""
    paint = f'fill="{color}" stroke="#fff" stroke-width="1"'
    if kind == "square":
        shape = f'<rect x="{num(x - size)}" y="{num(y - size)}" width="{num(2 * size)}" height="{num(2 * size)}" {paint}>'
        return shape + tip + "</rect>"
    if kind in ("triangle", "diamond"):
        s = size * 1.3
        pts = (
            [(x, y - s), (x + s, y + s * 0.8), (x - s, y + s * 0.8)]
            if kind == "triangle"
            else [(x, y - s), (x + s, y), (x, y + s), (x - s, y)]
        )
        coords = " ".join(f"{num(a)},{num(b)}" for a, b in pts)
        return f'<polygon points="{coords}" {paint}>{tip}</polygon>'
    if kind is None:
        return ""
    return f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(size)}" {paint}>{tip}</circle>'


class Frame:
    """The plot area of one chart: title, legend, axes, grid; callers add the marks."""

    def __init__(
        self,
        title: str,
        legend: Sequence[tuple[str, str, str | None, bool]],
        height: int,
        right_axis: bool = False,
        width: int = WIDTH,
    ) -> None:
        self.width, self.height = width, height
        self.band = 0.0
        rows = _legend_rows(legend, width - 80)
        top = 34 + 18 * len(rows)
        self.box = (66.0, float(top), float(width - (64 if right_axis else 22)), float(height - 46))
        self.parts: list[str] = [text(12, 20, title, 14, font_weight="600")]
        for row_index, row in enumerate(rows):
            x = 66.0
            y = 38 + 18 * row_index
            for name, color, kind, dashed in row:
                dash = ' stroke-dasharray="5 3"' if dashed else ""
                self.parts.append(
                    f'<line x1="{num(x)}" y1="{y - 4}" x2="{num(x + 22)}" y2="{y - 4}" '
                    f'stroke="{color}" stroke-width="2.5"{dash}/>'
                )
                self.parts.append(marker_svg(kind, x + 11, y - 4, color, 3.5))
                self.parts.append(text(x + 28, y, name, 11.5))
                x += 40 + 6.5 * len(name)

    def y_axis(self, ticks: list[float], label: str, right: bool = False) -> Scale:
        """Draw a y axis (grid lines for the left one) and return its scale."""
        x0, y0, x1, y1 = self.box
        scale = Scale(ticks[0], ticks[-1], y1, y0)
        step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
        for tick in ticks:
            y = scale(tick)
            if not right:
                self.parts.append(
                    f'<line x1="{x0}" y1="{num(y)}" x2="{x1}" y2="{num(y)}" stroke="{GRID}"/>'
                )
            tx, anchor = (x1 + 6, "start") if right else (x0 - 6, "end")
            self.parts.append(text(tx, y + 4, tick_text(tick, step), 10.5, anchor))
        lx = x1 + 52 if right else 16.0
        cy = (y0 + y1) / 2
        self.parts.append(
            text(lx, cy, label, 11.5, "middle", transform=f"rotate(-90 {num(lx)} {num(cy)})")
        )
        return scale

    def x_axis(self, ticks: list[float], label: str) -> Scale:
        """Draw a numeric x axis and return its scale."""
        x0, _, x1, y1 = self.box
        scale = Scale(ticks[0], ticks[-1], x0, x1)
        step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
        for tick in ticks:
            x = scale(tick)
            self.parts.append(
                f'<line x1="{num(x)}" y1="{y1}" x2="{num(x)}" y2="{y1 + 4}" stroke="{INK}"/>'
            )
            self.parts.append(text(x, y1 + 17, tick_text(tick, step), 10.5, "middle"))
        self._x_label(label)
        return scale

    def x_categories(self, names: Sequence[str], label: str) -> Scale:
        """Draw a category x axis (one band per name); the scale maps index -> band centre."""
        x0, _, x1, y1 = self.box
        band = (x1 - x0) / max(1, len(names))
        scale = Scale(-0.5, len(names) - 0.5, x0, x1)
        every = max(
            1, math.ceil(len(names) * 7 * max((len(n) for n in names), default=1) / (x1 - x0))
        )
        for index, name in enumerate(names):
            if index % every == 0:
                self.parts.append(text(scale(index), y1 + 17, name, 10.5, "middle"))
        self._x_label(label)
        self.band = band
        return scale

    def _x_label(self, label: str) -> None:
        x0, _, x1, y1 = self.box
        self.parts.append(text((x0 + x1) / 2, y1 + 36, label, 11.5, "middle"))

    def render(self, description: str) -> str:
        """The finished <svg> element with an accessible description."""
        x0, y0, x1, y1 = self.box
        axes = f'<path d="M{x0} {y0}V{y1}H{x1}" fill="none" stroke="{INK}"/>'
        return (
            f'<svg class="chart" viewBox="0 0 {self.width} {self.height}" role="img" '
            f'xmlns="http://www.w3.org/2000/svg" style="{FONT}"><desc>{escape(description)}</desc>'
            + "".join(self.parts[:1])
            + axes
            + "".join(self.parts[1:])
            + "</svg>"
        )


def _legend_rows(items: Sequence[tuple[str, str, str | None, bool]], space: float) -> list[list]:
    rows: list[list] = []
    used = space + 1
    for item in items:
        need = 40 + 6.5 * len(item[0])
        if used + need > space:
            rows.append([])
            used = 0.0
        rows[-1].append(item)
        used += need
    return rows


def path(points: list[tuple[float, float]], color: str, dashed: bool) -> str:
    """A polyline through the points (nothing for fewer than two)."""
    if len(points) < 2:
        return ""
    d = "M" + "L".join(f"{num(a)} {num(b)}" for a, b in points)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return f'<path d="{d}" fill="none" stroke="{color}" stroke-width="2"{dash}/>'
