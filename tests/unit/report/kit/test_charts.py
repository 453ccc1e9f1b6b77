"""The SVG kit and charts: nice ticks, scales, label placement, None tolerance, escaping."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from dbstor.report.kit.charts import Highlight, Ref, Series, bar_chart, line_chart
from dbstor.report.kit.svg import Labels, Scale, nice_number, nice_ticks, tick_text

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in parse(svg).iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("value", "round_", "expected"),
    [(0.38, True, 0.5), (13525, True, 10000), (26, True, 20), (4.2, False, 5), (1.0, False, 1)],
)
def test_nice_number(value, round_, expected):
    assert nice_number(value, round_) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0, 1.9, [0.0, 0.5, 1.0, 1.5, 2.0]),
        (0, 54100, [0, 10000, 20000, 30000, 40000, 50000, 60000]),
        (0, 9.6, [0, 2, 4, 6, 8, 10]),
        (0, 0.019, [0.0, 0.005, 0.01, 0.015, 0.02]),
    ],
)
def test_nice_ticks_are_round_and_cover_the_data(lo, hi, expected):
    assert nice_ticks(lo, hi) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("lo", "hi"), [(0.2, 0.25), (3, 3), (0, 0), (-4, 17), (123, 98765), (5, 1)]
)
def test_nice_ticks_cover_any_range_with_even_steps(lo, hi):
    ticks = nice_ticks(lo, hi)
    assert ticks[0] <= min(lo, hi) and ticks[-1] >= max(lo, hi)
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1 and steps.pop() > 0
    assert 3 <= len(ticks) <= 11


def test_nice_ticks_refuse_infinite_ranges():
    with pytest.raises(ValueError):
        nice_ticks(0, float("inf"))


@pytest.mark.parametrize(
    ("value", "step", "expected"),
    [
        (40000, 10000, "40K"),
        (1_500_000, 500_000, "1.5M"),
        (0.25, 0.05, "0.25"),
        (2, 1, "2"),
        (0.5, 0.5, "0.5"),
    ],
)
def test_tick_text(value, step, expected):
    assert tick_text(value, step) == expected


def test_scale_maps_linearly_and_inverts_for_y():
    x = Scale(0, 100, 50, 650)
    assert x(0) == 50 and x(100) == 650 and x(50) == 350
    y = Scale(0, 2, 300, 40)
    assert y(0) == 300 and y(2) == 40 and y(1) == 170


def test_labels_never_overlap_and_give_up_when_full():
    labels = Labels((0, 0, 200, 100))
    spots = [labels.place(100, 50, "QD8") for _ in range(12)]
    placed = [s for s in spots if s]
    assert len(placed) >= 4 and None in spots
    assert len(set(placed)) == len(placed)


def test_line_chart_skips_none_and_breaks_the_line():
    svg = line_chart(
        [Series("run", [1, 2, None, 4, 5], [0.1, None, 0.3, 0.4, 0.5], ["a", "b", "c", "d", "e"])],
        title="t",
        x_label="x",
        y_label="y",
    )
    root = parse(svg)
    markers = [c for c in root.iter(f"{SVG}circle") if c.find(f"{SVG}title") is not None]
    assert len(markers) == 3  # (1, 0.1), (4, 0.4), (5, 0.5); the legend's has no tooltip
    paths = [p for p in root.iter(f"{SVG}path") if p.get("stroke") != "#222"]
    assert len(paths) == 1  # only d-e are consecutive; a stands alone


def test_line_chart_reference_line_and_highlight_are_drawn():
    svg = line_chart(
        [Series("FC", [1000, 2000, 3000], [0.2, 0.6, 1.4], ["QD1", "QD2", "QD4"])],
        title="curve",
        x_label="IOPS",
        y_label="ms",
        refs=[Ref(1.0, "SLO 1 ms p99 read")],
        highlights=[Highlight(2500, 1.0, "knee 2,500 IOPS")],
    )
    root = parse(svg)
    dashed = [line for line in root.iter(f"{SVG}line") if line.get("class") == "ref"]
    assert len(dashed) == 1 and dashed[0].get("stroke-dasharray")
    words = texts(svg)
    assert "SLO 1 ms p99 read" in words and "knee 2,500 IOPS" in words
    assert {"QD1", "QD2", "QD4"} <= set(words)
    assert root.get("viewBox") == "0 0 720 380"


def test_line_chart_axis_covers_a_reference_near_the_data():
    svg = line_chart(
        [Series("a", [1, 2], [0.1, 0.2])],
        title="t",
        x_label="x",
        y_label="y",
        refs=[Ref(0.45, "limit")],
    )
    assert "0.5" in texts(svg) and "limit" in texts(svg)


def test_charts_with_no_data_say_so():
    svg = line_chart([Series("a", [None], [None])], title="empty", x_label="x", y_label="y")
    assert "no data to plot" in texts(svg)
    svg = bar_chart(["a"], [Series("s", [], [None])], title="empty", y_label="y")
    assert "no data to plot" in texts(svg)


def test_bar_chart_groups_bars_and_escapes_names():
    svg = bar_chart(
        ["IOPS", "CPU"],
        [Series("<b>FC</b>", [], [100, 100]), Series("x & y", [], [420, None])],
        title="rel",
        y_label="%",
        refs=[Ref(100, "FC = 100")],
    )
    root = parse(svg)
    rects = list(root.iter(f"{SVG}rect"))
    assert len(rects) == 3
    assert "<b>FC</b>" in texts(svg) and "&lt;b&gt;" in svg and "<b>" not in svg


def test_bar_chart_with_lines_on_a_right_axis():
    svg = bar_chart(
        ["QD1", "QD2"],
        [Series("IOPS", [], [1000, 2000])],
        lines=[Series("CPU", [], [20, 55], right=True)],
        title="t",
        y_label="IOPS",
        y2_label="busy %",
        y2_ticks=[0, 50, 100],
    )
    assert "busy %" in texts(svg) and "100" in texts(svg)


def test_line_chart_log_axis_and_points_without_a_line():
    from dbstor.report.kit.charts import hbar_chart

    svg = line_chart(
        [
            Series("storage", [20000, 50000, 56000], [0.05, 0.2, 1.2], ["QD1", "QD8", "QD64"]),
            Series("db", [0, 600, 1000], [0.0, 0.07, 0.09], ["a", "b", "c"], connect=False),
        ],
        title="t",
        x_label="IOPS, log scale",
        y_label="ms",
        x_log=True,
    )
    root = parse(svg)
    assert {"100", "1K", "10K", "100K"} <= set(texts(svg))
    lines = [p for p in root.iter(f"{SVG}path") if p.get("stroke") not in ("#222",)]
    assert len(lines) == 1  # the storage's line only; the db's points stand alone
    markers = [c for c in root.iter(f"{SVG}circle") if c.find(f"{SVG}title") is not None]
    assert len(markers) == 5  # x = 0 cannot sit on a log axis
    xs = sorted(float(c.get("cx")) for c in markers)
    assert xs[1] - xs[0] < xs[2] - xs[1]  # 600 -> 1000 is closer than 1000 -> 20000

    bars = hbar_chart(
        ["trade_status", "market_feed"],
        [Series("mean", [], [1.5, 7.9]), Series("p99", [], [6.6, None])],
        title="by type",
        x_label="ms",
    )
    assert "trade_status" in texts(bars) and "7.9" in texts(bars)
    assert (
        len([r for r in parse(bars).iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]) == 3
    )
    assert "no data to plot" in texts(hbar_chart([], [], title="e", x_label="x"))
