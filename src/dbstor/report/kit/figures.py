"""Figures and names more than one kind of run uses: a short unique name per run, who
measured latency at the host, the IOPS-latency curve (fio and database runs), and the
per-second time series."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dbstor.analysis.curve import backward_steps, measured_throughput
from dbstor.analysis.labels import run_label
from dbstor.report.kit.absent import is_absent
from dbstor.report.kit.charts import Highlight, Ref, Series, line_chart
from dbstor.report.kit.fmt import fmt_iops, load_text
from dbstor.report.kit.missing import device_missing, percentile_missing
from dbstor.report.kit.refs import split_far
from dbstor.report.kit.summary import Slo, knee_of, ok_points, point_label, slo_of
from dbstor.report.kit.svg import PALETTE
from dbstor.results.model import Point, Run

PERCENT_TICKS = [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]


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


def backwards_sentence(
    run: Run,
    name: str = "",
    what: str = "IOPS",
    value: Callable[[Point], float | None] = measured_throughput,
) -> str:
    """One sentence naming where a run's curve goes backwards (its throughput falls as the
    load rises: QD1 7,512 -> QD2 6,204 IOPS), or "" when it never does."""
    steps = backward_steps(run.points, value)
    if not steps:
        return ""
    said = [
        f"from {fmt_iops(value(low))} {what} at {point_label(low)} to "
        f"{fmt_iops(value(high))} at {point_label(high)} "
        f"({(value(high) or 0.0) / (value(low) or 1.0) * 100 - 100:+.0f}%)"
        for low, high in steps
    ]
    whose = f"{name}'s curve" if name else "The curve"
    return (
        f"{whose} goes backwards: {what} fell as the load rose, {'; and '.join(said)}. "
        "More load bought less throughput there."
    )


def device_iops(point: Point) -> float | None:
    """Reads plus writes per second, None when neither was measured (never 0)."""
    if point.read_iops is None and point.write_iops is None:
        return None
    return (point.read_iops or 0.0) + (point.write_iops or 0.0)


def curve_caption(runs: Sequence[Run], names: Sequence[str] | None = None) -> str:
    """The caption of curve_chart: how to read it (the SLO as a line, or as the marker at
    the top edge when it lies far above every point), and where a curve goes backwards."""
    slo = slo_of(runs[0])
    said = ["Each marker is a load point, labelled with its load."]
    values = [v for run in runs for p in ok_points(run) if (v := slo.value(p)) is not None]
    if slo.limit_ms is None:
        said.append("The rightmost marker is the peak.")
    elif split_far([Ref(slo.limit_ms, slo.text)], values)[1]:
        said.append(
            f"The {slo.text} lies far above every point, so it is marked at the top "
            "edge and the axis fits the data: every point is within it. The rightmost "
            "marker is the peak."
        )
    else:
        said.append(
            "Where a line crosses the dashed SLO line is the knee (ringed); the rightmost "
            "marker is the peak."
        )
    names = list(names) if names is not None else run_names(runs)
    for run, name in zip(runs, names, strict=True):
        step = backwards_sentence(run, name if len(runs) > 1 else "", "IOPS", device_iops)
        if step:
            said.append(step)
    return " ".join(said)


def _slo_missing(run: Run, slo: Slo, point: Point, name: str) -> str | None:
    """Why a point has no value of the SLO's metric (its device, or too few operations)."""
    if slo.value(point) is not None:
        return None
    side, _, stat = slo.metric.partition("_lat_")
    reason = device_missing(point) if slo.device else None
    reason = reason or percentile_missing(point, side, stat.removesuffix("_ms"))
    if not reason:
        return None
    return (
        f"{name}: {slo.name} latency not measured: {reason}"
        if name
        else (f"{slo.name[:1].upper()}{slo.name[1:]} latency not measured: {reason}")
    )


def figure_html(chart: str, caption: str) -> str:
    """A <figure> with its caption; a chart drawn as its reason (nothing measured) gets no
    caption, so a caption never describes a chart that is not there."""
    if is_absent(chart) or not caption:
        return f"<figure>{chart}</figure>"
    return f"<figure>{chart}<figcaption>{caption}</figcaption></figure>"


def curve_chart(
    runs: Sequence[Run], names: Sequence[str] | None = None, unstated: Sequence[str] = ()
) -> str:
    """IOPS (x) against the SLO latency metric (y): one line per run, the SLO and the knees.
    A knee the text does not state (the run ids in `unstated`: flagged points either side)
    is not ringed: the chart never marks a knee the document says could not be stated."""
    slo = slo_of(runs[0])
    names = list(names) if names is not None else run_names(runs)
    series, highlights = [], []
    for index, (run, name) in enumerate(zip(runs, names, strict=True)):
        points = ok_points(run)
        color = PALETTE[index % len(PALETTE)]
        series.append(
            Series(
                name,
                [device_iops(p) for p in points],
                [slo.value(p) for p in points],
                [point_label(p) for p in points],
                color=color,
                marker=("circle", "square", "triangle", "diamond")[index % 4],
                missing=[_slo_missing(run, slo, p, name if len(runs) > 1 else "") for p in points],
            )
        )
        knee = knee_of(run)
        stated = run.run_id not in unstated
        if (
            knee.state == "found"
            and knee.iops is not None
            and knee.latency_ms is not None
            and stated
        ):
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
    no_device = [device_missing(p) for p in run.points if p.ok]
    why = no_device[0] if no_device and all(no_device) and not any(iops) else None
    series = [
        Series(
            "device IOPS" if has_tps else "IOPS",
            xs,
            iops,
            color="#0072B2",
            marker=None,
            missing=[why] if why else None,
        ),
        Series("host CPU busy %", xs, cpu, color="#D55E00", marker=None, right=True),
    ]
    if has_tps:
        tps_series = Series("transactions per second", xs, tps, color="#009E73", marker=None)
        if _apart(tps, iops):  # one axis would lay the TPS flat on the floor of the IOPS
            return _tps_apart(tps_series, series, refs)
        series.insert(0, tps_series)
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


SCALE_APART = 5.0  # peaks further apart than this do not share an axis


def _apart(a: Sequence[float | None], b: Sequence[float | None]) -> bool:
    """Whether two series' peaks are so far apart that one axis would flatten the smaller."""
    top_a = max((v for v in a if v is not None), default=0.0)
    top_b = max((v for v in b if v is not None), default=0.0)
    low, high = sorted((top_a, top_b))
    return low > 0 and high / low > SCALE_APART


def _tps_apart(tps: Series, iops_cpu: list[Series], refs: list[Ref]) -> str:
    """The per-second chart as two, each on its own axis: TPS with the host CPU, then the
    device's IOPS (hundreds of transactions beside tens of thousands of reads)."""
    iops, cpu = iops_cpu
    common = {"x_label": "seconds of sampling, load points back to back", "refs": refs}
    return line_chart(
        [tps, cpu],
        title="Per-second TPS and CPU (warm-up included)",
        y_label="transactions per second",
        y2_label="busy %",
        y2_ticks=PERCENT_TICKS,
        height=260,
        **common,
    ) + line_chart(
        [iops, cpu],  # the CPU again on the right: the two charts' time axes line up
        title="Per-second IOPS at the device and CPU (warm-up included)",
        y_label="device IOPS",
        y2_label="busy %",
        y2_ticks=PERCENT_TICKS,
        height=260,
        **common,
    )


def _sum(row: dict[str, Any], *keys: str) -> float | None:
    values = [row.get(k) for k in keys]
    numbers = [v for v in values if isinstance(v, int | float)]
    return float(sum(numbers)) if numbers else None
