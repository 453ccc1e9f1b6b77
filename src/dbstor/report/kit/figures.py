"""The report's figures, built from runs: the IOPS-latency curve, IOPS and CPU per load
point, host versus device latency, per-second time series, and the comparison bars."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.compare import run_label
from dbstor.report.kit.charts import Highlight, Ref, Series, bar_chart, line_chart
from dbstor.report.kit.fmt import fmt_iops, load_text
from dbstor.report.kit.summary import knee_of, main_points, ok_points, slo_of
from dbstor.report.kit.svg import PALETTE
from dbstor.results.model import Point, Run

PERCENT_TICKS = [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
COMPARED = (
    ("iops", "IOPS"),
    ("tps", "TPS"),
    ("read_lat_ms", "read latency"),
    ("cpu_pct", "CPU"),
)


def run_names(runs: Sequence[Run]) -> list[str]:
    """A short, unique name per run, as the comparison labels it (label, plus workload)."""
    names = [run_label(run, runs) for run in runs]
    if len(set(names)) < len(names):
        names = [f"{name} ({run.run_id})" for name, run in zip(names, runs, strict=True)]
    return names


def host_tool(runs: Sequence[Run]) -> str:
    """Who measured latency at the host: 'fio' for fio runs, else 'the client'."""
    engines = {str((run.engine or {}).get("name", "")) for run in runs}
    return "fio" if engines == {"fio"} else "the client"


def _load_label(point: Point) -> str:
    return load_text(point.load.kind, point.load.value, point.load.jobs)


def _category(point: Point) -> str:
    """A load point's axis label; failed points say so, since their bars are missing."""
    return _load_label(point) + ("" if point.ok else " failed")


def curve_chart(runs: Sequence[Run], names: Sequence[str] | None = None) -> str:
    """IOPS (x) against the SLO latency metric (y): one line per run, the SLO and the knees."""
    slo = slo_of(runs[0])
    names = list(names) if names is not None else run_names(runs)
    series, highlights = [], []
    for index, (run, name) in enumerate(zip(runs, names, strict=True)):
        points = ok_points(run)
        color = PALETTE[index % len(PALETTE)]
        series.append(
            Series(
                name,
                [p.iops for p in points],
                [slo.value(p) for p in points],
                [_load_label(p) for p in points],
                color=color,
                marker=("circle", "square", "triangle", "diamond")[index % 4],
            )
        )
        knee = knee_of(run)
        if knee.state == "found" and knee.iops is not None and knee.latency_ms is not None:
            prefix = f"{name} knee" if len(runs) > 1 else "knee"
            label = f"{prefix} {fmt_iops(knee.iops)} IOPS"
            ring = color if len(runs) > 1 else "#b00020"
            highlights.append(Highlight(knee.iops, knee.latency_ms, label, ring))
    refs = [Ref(slo.limit_ms, slo.text)] if slo.limit_ms is not None else []
    measured = f"measured by {host_tool(runs)}"
    if slo.device:
        measured = "at the device under the target (/proc/diskstats)"
    return line_chart(
        series,
        title=f"IOPS against {slo.name} latency as load rises",
        x_label=f"total IOPS (reads + writes), {measured}",
        y_label=f"{slo.name} latency (ms)",
        refs=refs,
        highlights=highlights,
        height=420,
        description=(
            f"Each line is a run; each marker a load point. The dashed line is the SLO "
            f"({slo.text}); the ringed diamond marks the knee."
        ),
    )


def iops_cpu_chart(run: Run) -> str:
    """IOPS as bars per load point, host CPU and device busy % as lines on a 0-100% axis."""
    points = main_points(run)
    lines = [
        Series(
            "host CPU busy %",
            [],
            [p.cpu.util_pct if p.ok and p.cpu else None for p in points],
            color="#D55E00",
            right=True,
        ),
    ]
    if any(p.device and p.device.util_pct is not None for p in points):
        lines.append(
            Series(
                "device busy %",
                [],
                [p.device.util_pct if p.ok and p.device else None for p in points],
                color="#009E73",
                marker="square",
                dashed=True,
                right=True,
            )
        )
    bars = [Series("IOPS (reads + writes)", [], [p.iops if p.ok else None for p in points])]
    bars[0].color = "#0072B2"
    return bar_chart(
        [_category(p) for p in points],
        bars,
        title="IOPS and CPU per load point",
        y_label="IOPS",
        x_label="load point",
        lines=lines,
        y2_label="busy %",
        y2_ticks=PERCENT_TICKS,
        height=330,
    )


def latency_chart(run: Run) -> str:
    """Mean latency seen at the host (fio or the client) beside the device's await."""
    points = main_points(run)
    tool = "fio" if host_tool([run]) == "fio" else "client"

    def host(side: str) -> list[float | None]:
        stats = [getattr(p, f"{side}_lat_ms") if p.ok else None for p in points]
        return [s.mean if s else None for s in stats]

    def device(side: str) -> list[float | None]:
        return [
            getattr(p.device, f"{side}_await_ms") if p.ok and p.device else None for p in points
        ]

    index = list(range(len(points)))
    series = [
        Series(f"read, host ({tool})", index, host("read"), color="#0072B2"),
        Series(
            "read, device await",
            index,
            device("read"),
            color="#0072B2",
            marker="square",
            dashed=True,
        ),
        Series(f"write, host ({tool})", index, host("write"), color="#E69F00", marker="triangle"),
        Series(
            "write, device await",
            index,
            device("write"),
            color="#E69F00",
            marker="diamond",
            dashed=True,
        ),
    ]
    series = [s for s in series if any(v is not None for v in s.ys)]
    return line_chart(
        series,
        title="Mean latency at the host and at the device",
        x_label="load point",
        y_label="mean latency (ms)",
        categories=[_category(p) for p in points],
        height=330,
        description="The gap between host and device latency is time spent in the host I/O stack and the path.",
    )


def timeseries_chart(run: Run, rows: Sequence[dict[str, Any]]) -> str | None:
    """IOPS and CPU per second across the whole run, one band per load point; None if no rows."""
    rows = [r for r in rows if r.get("run_id") in (None, run.run_id)]
    if not rows:
        return None
    xs, iops, cpu, tps, refs = [], [], [], [], []
    last_key = None
    for second, row in enumerate(rows):
        key = (row.get("point"), row.get("repeat"))
        if key != last_key:
            label = load_text(row.get("load_kind"), row.get("load_value"))
            refs.append(Ref(float(second), label, axis="x", color="#888"))
            last_key = key
        xs.append(float(second))
        iops.append(
            _sum(row, "io_read_iops", "io_write_iops")
            or _sum(row, "dev_read_iops", "dev_write_iops")
        )
        cpu.append(row.get("cpu_util_pct"))
        tps.append(row.get("tps") if isinstance(row.get("tps"), int | float) else None)
    has_tps = any(v is not None for v in tps)
    series = [
        Series("device IOPS" if has_tps else "IOPS", xs, iops, color="#0072B2", marker=None),
        Series("host CPU busy %", xs, cpu, color="#D55E00", marker=None, right=True),
    ]
    if has_tps:
        series.insert(0, Series("transactions per second", xs, tps, color="#009E73", marker=None))
    return line_chart(
        series,
        title=f"Per-second {'TPS, ' if has_tps else ''}IOPS and CPU (warm-up included)",
        x_label="seconds of sampling, load points back to back",
        y_label="per second" if has_tps else "IOPS",
        refs=refs,
        y2_label="busy %",
        y2_ticks=PERCENT_TICKS,
        height=300,
    )


def _sum(row: dict[str, Any], *keys: str) -> float | None:
    values = [row.get(k) for k in keys]
    numbers = [v for v in values if isinstance(v, int | float)]
    return float(sum(numbers)) if numbers else None


def comparison_chart(comparison: dict[str, Any]) -> str:
    """Grouped bars of the normalised values (baseline = 100) per metric, one bar per run."""
    runs = comparison.get("runs") or []
    metrics = [
        (key, name)
        for key, name in COMPARED
        if any((r.get("normalised") or {}).get(key) is not None for r in runs)
    ]
    bars = [
        Series(
            str(r.get("label")),
            [],
            [(r.get("normalised") or {}).get(key) for key, _ in metrics],
            color=PALETTE[i % len(PALETTE)],
        )
        for i, r in enumerate(runs)
    ]
    baseline = str(comparison.get("baseline", "baseline"))
    return bar_chart(
        [name for _, name in metrics],
        bars,
        title=f"Relative to {baseline} = 100",
        y_label=f"relative value ({baseline} = 100)",
        refs=[Ref(100.0, f"{baseline} = 100", color="#444")],
        height=340,
        description=(
            "Higher is better for IOPS and TPS, lower for latency; more CPU usually means the "
            "host waits less on storage and does more work."
        ),
    )
