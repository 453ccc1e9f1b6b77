"""Charts that read: axes fit the data (a far limit is an edge marker), sub-millisecond
values keep their digits, and a value not measured is a "not measured: why" label, never
a bar of height 0 or a point at 0."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from dbstor.report.kit.absent import is_absent
from dbstor.report.kit.charts import Ref, Series, bar_chart, line_chart
from dbstor.report.kit.refs import split_far
from dbstor.report.kit.svg import value_label

SVG = "{http://www.w3.org/2000/svg}"


def _root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in _root(svg).iter(f"{SVG}text")]


def _left_ticks(svg: str) -> list[float]:
    """The left y axis's tick values (right-aligned labels left of the plot)."""
    out = []
    for t in _root(svg).iter(f"{SVG}text"):
        if t.get("text-anchor") == "end" and float(t.get("x", 0)) < 66:
            out.append(float((t.text or "").replace(",", "")))
    return out


def _slo_chart(slo_ms: float) -> str:
    """IOPS against p99 read latency as the 20 ms-SLO io sweep measured it (0.06-1.2 ms)."""
    return line_chart(
        [Series("chx", [11598, 18976, 25694], [0.136, 0.208, 1.2], ["QD1", "QD2", "QD4"])],
        title="IOPS against p99 read latency",
        x_label="IOPS",
        y_label="p99 read latency (ms)",
        refs=[Ref(slo_ms, f"SLO {slo_ms:g} ms p99 read")],
    )


def test_a_far_slo_is_an_edge_marker_and_the_axis_fits_the_data() -> None:
    svg = _slo_chart(20.0)
    ticks = _left_ticks(svg)
    assert 1.2 <= max(ticks) <= 1.5, ticks  # fitted to the data's 1.2 ms, not stretched to 20
    assert "SLO 20 ms p99 read ↑ above" in _texts(svg)
    assert not [ln for ln in _root(svg).iter(f"{SVG}line") if ln.get("class") == "ref"]
    edge = [g for g in _root(svg).iter(f"{SVG}g") if g.get("class") == "ref-edge"]
    assert len(edge) == 1


def test_a_near_slo_is_a_line_across_the_plot() -> None:
    svg = _slo_chart(2.0)
    ticks = _left_ticks(svg)
    assert 2.0 <= max(ticks) <= 2.5, ticks
    assert "SLO 2 ms p99 read" in _texts(svg)
    assert not any("↑" in t for t in _texts(svg))
    assert len([ln for ln in _root(svg).iter(f"{SVG}line") if ln.get("class") == "ref"]) == 1


def test_far_means_beyond_the_factor_of_the_data_max() -> None:
    near, far = split_far([Ref(2.9, "a"), Ref(3.1, "b"), Ref(50, "x", axis="x")], [0.2, 1.2])
    assert [r.label for r in near] == ["a", "x"] and [r.label for r in far] == ["b"]
    assert split_far([Ref(20, "slo")], [])[1] == []  # nothing to fit: the limit sets the axis


def test_a_bar_chart_keeps_a_far_limit_off_its_axis() -> None:
    svg = bar_chart(
        ["QD1", "QD2"],
        [Series("mean read latency", [], [0.12, 0.3])],
        title="t",
        y_label="mean read latency (ms)",
        refs=[Ref(20.0, "SLO 20 ms")],
    )
    assert max(_left_ticks(svg)) <= 0.5 and "SLO 20 ms ↑ above" in _texts(svg)


@pytest.mark.parametrize(
    ("value", "top", "expected"),
    [(0.12, 0.86, "0.12"), (0.055, 0.86, "0.06"), (0.0043, 0.86, "0.0043"),
     (25694, 25694, "25,694"), (0.4, 5.3, "0.4"), (0.004, 150, "0.0040")],
)  # fmt: skip
def test_value_labels_keep_sub_millisecond_digits(value, top, expected) -> None:
    assert value_label(value, top) == expected


def test_sub_millisecond_bars_are_not_labelled_zero() -> None:
    svg = bar_chart(
        ["QD1", "QD2", "QD4"],
        [Series("client", [], [0.12, 0.2, 0.86]), Series("device", [], [0.055, 0.063, 0.097])],
        title="Mean read latency by layer",
        y_label="mean read latency (ms)",
    )
    words = _texts(svg)
    assert {"0.12", "0.20", "0.86", "0.06", "0.10"} <= set(words), words
    bar_labels = [t for t in _root(svg).iter(f"{SVG}text") if t.get("font-size") == "10"]
    assert bar_labels and all(t.text not in ("0", "0.0", "0.00") for t in bar_labels)


def test_a_value_not_measured_is_a_label_not_a_zero_bar() -> None:
    reason = "no block device under the target (tmpfs)"
    svg = bar_chart(
        ["QD1", "QD2"],
        [
            Series("IOPS at the host", [], [53952, 68482]),
            Series("IOPS at the device", [], [None, None], missing=[reason, reason]),
        ],
        title="t",
        y_label="IOPS",
    )
    rects = [r for r in _root(svg).iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(rects) == 2  # the host's bars only
    assert all(float(r.get("height", 0)) > 0 for r in rects)
    gaps = [g for g in _root(svg).iter(f"{SVG}g") if g.get("class") == "not-measured"]
    assert len(gaps) == 2
    assert gaps[0].find(f"{SVG}title").text == f"not measured: {reason}"
    assert any(t.startswith("not measured: no block device") for t in _texts(svg))
    assert f"IOPS at the device: not measured ({reason})" in _texts(svg)  # the legend


def test_a_chart_with_nothing_measured_gives_the_reason_in_its_place() -> None:
    reason = "no point had the 1,000 transactions a p99 needs (at most 312, at 4 users)"
    svg = line_chart(
        [Series("run", [10, 20], [None, None], missing=[reason, reason])],
        title="TPS against transaction p99 latency",
        x_label="transactions per second",
        y_label="transaction p99 latency (ms)",
    )
    assert is_absent(svg)
    assert reason in " ".join(_texts(svg)) and "no data to plot" not in svg
    assert not list(_root(svg).iter(f"{SVG}circle")) and not list(_root(svg).iter(f"{SVG}path"))


def test_a_line_never_puts_a_missing_value_at_zero() -> None:
    svg = line_chart(
        [Series("db", [100, 200, 300], [0.5, None, 0.7], missing=[None, "no device reads", None])],
        title="t",
        x_label="IOPS",
        y_label="mean read latency (ms)",
    )
    markers = [c for c in _root(svg).iter(f"{SVG}circle") if c.find(f"{SVG}title") is not None]
    assert len(markers) == 2
    zero_y = 380 - 46  # the plot's bottom edge, where 0 ms lies
    assert all(float(c.get("cy")) < zero_y - 10 for c in markers)
    assert len(list(_root(svg).iter(f"{SVG}path"))) == 1  # the axes; no line over the gap


def test_a_far_limit_is_drawn_even_where_bars_fill_the_top() -> None:
    svg = bar_chart(
        ["a", "b", "c", "d"],
        [Series("s", [], [10.0, 10.0, 10.0, 10.0])],
        title="t",
        y_label="y",
        refs=[Ref(100.0, "limit")],
    )
    assert "limit ↑ above" in _texts(svg) and max(_left_ticks(svg)) == 10


def _per_second_rows(tps: float, iops: float) -> list[dict]:
    return [
        {
            "run_id": "r",
            "point": p,
            "repeat": 0,
            "load_kind": "users",
            "load_value": users,
            "tps": tps * users,
            "dev_read_iops": iops * users,
            "dev_write_iops": 0.0,
            "cpu_util_pct": 50.0,
        }
        for p, users in enumerate((1, 2))
        for _ in range(4)
    ]


def test_tps_far_below_the_device_iops_gets_its_own_axis() -> None:
    """The default study: ~800 TPS beside ~60,000 device IOPS on one axis lay the TPS
    flat on the floor; drawn apart, the TPS axis fits the TPS."""
    from dbstor.report.kit.figures import timeseries_chart
    from dbstor.results.model import Run

    run = Run("r", "0", {}, {}, {}, {}, {}, {}, "")
    apart = timeseries_chart(run, _per_second_rows(400.0, 30000.0)) or ""
    charts = [c + "</svg>" for c in apart.split("</svg>") if "<svg" in c]
    assert len(charts) == 2
    assert "Per-second TPS and CPU (warm-up included)" in _texts(charts[0])
    assert 800 <= max(_left_ticks(charts[0])) <= 1000  # the TPS's own scale, not 60K
    assert "60K" in _texts(charts[1])  # the device's IOPS on theirs
    together = timeseries_chart(run, _per_second_rows(400.0, 1200.0)) or ""
    assert together.count("<svg") == 1  # alike in size: one chart, one axis


def _tips(svg: str) -> list[str]:
    return [t.text or "" for t in _root(svg).iter(f"{SVG}title")]


def test_tooltips_say_values_as_the_tables_do_not_in_e_notation():
    """A marker's tooltip read 'fast: QD1 (1.004e+04, 0.2202)' and a category line's
    '(0, 0.08487)': the load point and the figures in the tables' words instead."""
    curve = line_chart(
        [Series("fast", [10044.0, 36343.0], [0.2202, 2.023], labels=["QD1", "QD16"])],
        title="IOPS against latency",
        x_label="total IOPS, log scale",
        y_label="p99 read latency (ms)",
    )
    assert _tips(curve) == [
        "fast: QD1: total IOPS 10,044, p99 read latency (ms) 0.2202",
        "fast: QD16: total IOPS 36,343, p99 read latency (ms) 2.023",
    ]
    banded = line_chart(
        [Series("mean read", [0, 1], [0.08487, 0.1702])],
        title="mean latency",
        x_label="load point",
        y_label="mean latency (ms)",
        categories=["QD1", "QD4"],
    )
    assert _tips(banded) == ["mean read: QD1: 0.08487", "mean read: QD4: 0.1702"]
    bars = bar_chart(
        ["QD1", "QD4"],
        [Series("IOPS", [0, 1], [10044.0, 22126.0])],
        title="IOPS",
        y_label="IOPS",
        lines=[Series("CPU", [0, 1], [68.39, 94.82], right=True)],
    )
    tips = _tips(bars)
    assert "IOPS, QD1: 10,044" in tips and "CPU, QD4: 94.82" in tips
    assert not any("e+" in t for t in tips)
