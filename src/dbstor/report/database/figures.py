"""The report's figures for database runs: the database on the storage's curve, TPS and
transaction latency per load point, what the device saw, and latency per transaction type."""

from __future__ import annotations

from collections.abc import Sequence

from dbstor.analysis.histogram import MIN_OPS_P99
from dbstor.report.database.overlay import (
    NO_READS,
    Overlay,
    device_read_ms,
    host_views,
    on_remote_device,
    placed_points,
    storage_knee,
    storage_read_ms,
)
from dbstor.report.kit.absent import absent_chart
from dbstor.report.kit.charts import Highlight, Series, bar_chart, hbar_chart, line_chart
from dbstor.report.kit.fmt import fmt_int, fmt_iops, fmt_ms
from dbstor.report.kit.missing import (
    count_missing,
    device_missing,
    percentile_missing,
    withheld_everywhere,
)
from dbstor.report.kit.summary import main_points, ok_points, point_label
from dbstor.report.kit.svg import PALETTE
from dbstor.results.model import Point, Run

STORAGE_COLOURS = ("#0072B2", "#56B4E9", "#444444")
DATABASE_COLOURS = ("#D55E00", "#CC79A7", "#E69F00", "#009E73")
HOST_MARKERS = ("triangle", "diamond", "circle", "square")


def load_axis(run: Run) -> str:
    """The x-axis label of a database run's per-point charts: users, or instances × users."""
    kinds = {p.load.kind for p in run.points}
    if kinds == {"instances"}:
        return "load point: database instances × virtual users on each"
    if kinds == {"users"}:
        return "load point: virtual users"
    return "load point"


def _category(point: Point) -> str:
    return point_label(point) + ("" if point.ok else f" {point.status}")


def overlay_chart(overlay: Overlay, names: dict[str, str]) -> str:
    """The storage's curve (fio: IOPS against mean read latency, by QD) with the database's
    operating points (device IOPS against device read await, by users) on top."""
    series: list[Series] = []
    for index, run in enumerate(overlay.storage):
        points = ok_points(run)
        workload = (run.workload or {}).get("name", "fio")
        series.append(
            Series(
                f"storage, fio {workload}: mean read latency",
                [p.iops for p in points],
                [storage_read_ms(p) for p in points],
                [point_label(p) for p in points],
                color=STORAGE_COLOURS[index % len(STORAGE_COLOURS)],
                marker="circle",
            )
        )
    for index, run in enumerate(overlay.databases):
        points = placed_points(run)
        engine = (run.engine or {}).get("title") or (run.engine or {}).get("name", "database")
        workload = (run.workload or {}).get("name", "")
        who = f"{engine} {workload}".strip()
        if len(overlay.databases) > 1:
            who = names.get(run.run_id, who)
        views = host_views(run)
        if views:
            what = "every host's device I/O summed at the shared storage"
        elif on_remote_device(run):
            what = "its server's device mean read await"
        else:
            what = "device mean read await"
        colour = DATABASE_COLOURS[index % len(DATABASE_COLOURS)]
        series.append(
            Series(
                f"database, {who}: {what}",
                [p.iops for p in points],
                [device_read_ms(p) for p in points],
                [point_label(p) for p in points],
                missing=[NO_READS if device_read_ms(p) is None else None for p in points],
                color=colour,
                marker=("square", "triangle", "diamond", "circle")[index % 4],
                connect=False,
                size=5.5,
            )
        )
        for number, view in enumerate(views):
            series.append(
                Series(
                    f"database, {who}: host {view.host}'s own device",
                    view.iops,
                    view.read_ms,
                    None,
                    missing=view.missing,
                    color=colour,
                    marker=HOST_MARKERS[number % len(HOST_MARKERS)],
                    connect=False,
                    size=3.5,
                )
            )
    highlights = []
    knee = storage_knee(overlay.storage[0])
    if knee is not None:
        label = f"storage knee {fmt_iops(knee.iops)} IOPS ({knee.slo_text})"
        highlights.append(Highlight(knee.iops, knee.read_ms, label))
    xs = [x for s in series for x, y in zip(s.xs, s.ys, strict=False) if x and y is not None]
    x_log = bool(xs) and max(xs) / min(xs) > 20
    scale = ", log scale" if x_log else ""
    return line_chart(
        series,
        title=f"{overlay.label}: the storage's curve with the database's load points",
        x_label=f"total IOPS at the device (reads + writes){scale}",
        y_label="mean read latency (ms)",
        highlights=highlights,
        height=440,
        x_log=x_log,
        description=(
            "The line is the storage's curve measured by fio, one marker per queue depth; the "
            "separate markers are the database's load points, placed by what the device saw."
        ),
    )


def tps_chart(run: Run) -> str:
    """Transactions per second as bars per load point, transaction p99 on the right axis."""
    points = main_points(run)
    bars = [Series("transactions per second", [], [p.tps if p.ok else None for p in points])]
    bars[0].color = "#0072B2"
    lines = [
        Series(
            "transaction p99 latency (ms, right axis)",
            [],
            [p.txn_lat_ms.p99 if p.ok and p.txn_lat_ms else None for p in points],
            color="#D55E00",
            right=True,
            missing=[percentile_missing(p, "txn") for p in points],
        )
    ]
    withheld = withheld_everywhere(points, "txn")
    title = "Transactions per second and transaction p99 latency"
    if withheld:
        lines[0].name, lines[0].missing = "transaction p99 latency", [withheld]
        title = "Transactions per second (the transaction p99 was not measured)"
    return bar_chart(
        [_category(p) for p in points],
        bars,
        title=title,
        y_label="transactions per second",
        x_label=load_axis(run),
        lines=lines,
        y2_label="transaction p99 (ms)",
        height=330,
        description="Bars: TPS at each load point. Line: the client's p99 transaction latency.",
    )


def tps_caption(run: Run) -> str:
    """The caption of tps_chart: the p99 line only when it is drawn."""
    said = "Bars: transactions per second the virtual users completed."
    withheld = withheld_everywhere(main_points(run), "txn")
    if withheld:
        return f"{said} The p99 transaction latency was not measured: {withheld}."
    return (
        f"{said} Line: the p99 transaction latency the client measured, from the start of a "
        "transaction to its commit (right axis)."
    )


def device_chart(run: Run) -> str:
    """What the device saw: read and write IOPS per point, read and write await (right)."""
    points = main_points(run)

    def value(point: Point, name: str) -> float | None:
        return getattr(point, name) if point.ok else None

    def awaits(side: str) -> list[float | None]:
        out = []
        for p in points:
            stats = getattr(p, f"{side}_lat_ms") if p.ok else None
            out.append(stats.mean if stats else None)
        return out

    missing = [device_missing(p) for p in points]
    bars = [
        Series("device reads/s", [], [value(p, "read_iops") for p in points], color="#0072B2",
               missing=missing),
        Series("device writes/s", [], [value(p, "write_iops") for p in points], color="#E69F00",
               missing=missing),
    ]  # fmt: skip
    lines = [
        Series("mean read await (ms, right axis)", [], awaits("read"), color="#009E73"),
        Series(
            "mean write await (ms, right axis)",
            [],
            awaits("write"),
            color="#CC79A7",
            marker="square",
            dashed=True,
        ),
    ]
    lines = [s for s in lines if any(v is not None for v in s.ys)]
    for line in lines:
        line.right = True
    if not lines and all(v is None for s in bars for v in s.ys) and any(missing):
        why = next(r for r in missing if r)
        return absent_chart("What the device under the target saw", [f"Not measured: {why}."])
    return bar_chart(
        [_category(p) for p in points],
        bars,
        title="What the device under the target saw",
        y_label="IOPS at the device",
        x_label=load_axis(run),
        lines=lines,
        y2_label="device mean await (ms)",
        height=330,
        description="Bars: reads and writes per second at the block device. Lines: its mean await.",
    )


def txn_types_chart(run: Run, point: Point) -> str:
    """Mean and p99 latency per transaction type at one point, in mix order."""
    mix = (run.workload or {}).get("mix") or {}
    types = sorted(point.txn_types or {}, key=lambda t: (-float(mix.get(t) or 0.0), t))
    stats = [point.txn_types[t] for t in types] if point.txn_types else []
    bars = [
        Series("mean", [], [s.mean if s else None for s in stats], color="#56B4E9"),
        Series("p99", [], [s.p99 if s else None for s in stats], color="#0072B2",
               missing=[count_missing(s, "transactions of this type") for s in stats]),
    ]  # fmt: skip
    counts = [s.count for s in stats if s]
    if counts and all(bars[1].missing or [None]) and max(counts) < MIN_OPS_P99:
        most, need = fmt_int(max(counts)), fmt_int(MIN_OPS_P99)
        bars[1].missing = [
            f"at most {most} transactions of a type, fewer than the {need} a p99 needs"
        ]
    no_p99 = all(s is None or s.p99 is None for s in stats)  # the axis names what is drawn
    return hbar_chart(
        types,
        bars,
        title=f"Transaction latency by type at {point_label(point, compact=False)}",
        x_label=f"{'mean' if no_p99 else 'mean and p99'} transaction latency (ms)",
        value_text=lambda v: fmt_ms(v, unit=False),
        description="Mean and p99 latency of each transaction type, the mix's largest first.",
    )


def tps_latency_curve(runs: Sequence[Run], names: dict[str, str]) -> str:
    """Database runs as curves: TPS (x) against transaction p99 (y), one line per run."""
    series = []
    for index, run in enumerate(runs):
        points = [p for p in ok_points(run) if p.tps is not None]
        name = names.get(run.run_id, run.run_id)
        withheld = withheld_everywhere(points, "txn")
        series.append(
            Series(
                name,
                [p.tps for p in points],
                [p.txn_lat_ms.p99 if p.txn_lat_ms else None for p in points],
                [point_label(p) for p in points],
                color=PALETTE[index % len(PALETTE)],
                marker=("circle", "square", "triangle", "diamond")[index % 4],
                missing=[withheld or percentile_missing(p, "txn") for p in points],
            )
        )
    if all(all(v is None for v in s.ys) for s in series):
        reasons = [
            f"Transaction p99 latency not measured{' for ' + s.name if len(series) > 1 else ''}: "
            f"{(s.missing or ['no finished load point'])[0]}."
            for s in series
        ]
        return absent_chart("Transactions per second against transaction p99 latency", reasons)
    return line_chart(
        series,
        title="Transactions per second against transaction p99 latency",
        x_label="transactions per second",
        y_label="transaction p99 latency (ms)",
        height=380,
        description="Each line is a database run; each marker a load point, labelled with its load.",
    )
