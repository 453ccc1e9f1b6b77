"""The report's figures for query runs, after TR-3476's: elapsed time, disk read MB/s and
host CPU per query (one bar per query; one series per load point in a run, one per target
in a comparison), and the total elapsed time with the baseline at 100."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.dss_compare import finished, per_query, query_order
from dbstor.report.kit.charts import Ref, Series, bar_chart
from dbstor.report.kit.svg import PALETTE
from dbstor.results.model import Point, Run

FIGURES = {
    "elapsed_s": ("Elapsed time per query", "elapsed time (s)", "seconds, lower is better"),
    "read_mbps": ("Disk read MB/s per query", "read MB/s at the device", "MB/s"),
    "cpu_pct": ("Host CPU per query", "host CPU busy (%)", "% of all CPUs"),
}


def query_label(query: dict[str, Any]) -> str:
    """'Q6 PE': the TPC-H name and TR-3476's abbreviation when it ran the query."""
    code = query.get("tr3476_code")
    return f"{query.get('name')} {code}" if code else str(query.get("name"))


def point_name(point: Point) -> str:
    """'power run' or '4 streams (mean per query)'."""
    if point.load.value == 1:
        return "power run"
    return f"{point.load.value:g} streams (mean per query)"


def per_query_chart(
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    figure: str,
    subtitle: str = "",
) -> str:
    """Grouped bars: one group per query, one bar per series (a point or a target)."""
    title, y_label, unit = FIGURES[figure]
    bars = [
        Series(name, [], list(values), color=PALETTE[i % len(PALETTE)])
        for i, (name, values) in enumerate(series)
    ]
    shown = [v for _, values in series for v in values if v is not None]
    return bar_chart(
        list(categories),
        bars,
        title=title + (f": {subtitle}" if subtitle else ""),
        y_label=y_label,
        x_label="query (TPC-H number, TR-3476 abbreviation)",
        value_text=bool(shown),  # labels keep the digits small values need
        height=340,
        description=f"{title} ({unit}), one bar per query and series.",
    )


def run_query_charts(run: Run) -> list[str]:
    """A run's three per-query figures, one series per finished point."""
    queries = query_order([run])
    names = [str(q["name"]) for q in queries]
    categories = [query_label(q) for q in queries]
    points = finished(run)
    charts = []
    for figure in FIGURES:
        series = [(point_name(p), [per_query(p, figure).get(n) for n in names]) for p in points]
        charts.append(per_query_chart(categories, series, figure))
    return charts


def comparison_query_charts(comparison: dict[str, Any]) -> list[str]:
    """Elapsed time, read MB/s and CPU per query, one series per compared run."""
    labels = [str(r.get("label")) for r in comparison.get("runs") or []]
    queries = comparison.get("queries") or []
    categories = [query_label(q) for q in queries]
    charts = []
    for figure in FIGURES:
        series = [
            (
                label,
                [((q.get("figures") or {}).get(figure) or {}).get(label) for q in queries],
            )
            for label in labels
        ]
        charts.append(per_query_chart(categories, series, figure, "across targets"))
    return charts


def relative_chart(comparison: dict[str, Any]) -> str:
    """Total elapsed time and each query's, as a share of the baseline's (= 100)."""
    baseline = str(comparison.get("baseline", "baseline"))
    runs = comparison.get("runs") or []
    queries = comparison.get("queries") or []
    categories = ["total", *(query_label(q) for q in queries)]
    bars = [
        Series(
            str(r.get("label")),
            [],
            [
                (r.get("normalised") or {}).get("total_elapsed_s"),
                *((q.get("normalised") or {}).get(str(r.get("label"))) for q in queries),
            ],
            color=PALETTE[i % len(PALETTE)],
        )
        for i, r in enumerate(runs)
    ]
    return bar_chart(
        categories,
        bars,
        title=f"Elapsed time relative to {baseline} = 100 (lower is better)",
        y_label=f"elapsed time ({baseline} = 100)",
        x_label="total of the queries, then each query",
        refs=[Ref(100.0, f"{baseline} = 100", color="#444")],
        height=340,
        description=(
            "Bars under 100 finished faster than the baseline, bars over 100 took longer."
        ),
    )
