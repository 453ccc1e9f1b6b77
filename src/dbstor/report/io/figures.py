"""The figures of a fio run's section: IOPS and CPU per load point, and mean latency at
the host beside the device's await."""

from __future__ import annotations

from dbstor.report.kit.charts import Series, bar_chart, line_chart
from dbstor.report.kit.figures import PERCENT_TICKS, host_tool
from dbstor.report.kit.missing import device_missing
from dbstor.report.kit.summary import main_points, point_label
from dbstor.results.model import Point, Run


def _category(point: Point) -> str:
    """A load point's axis label; failed points say so, since their bars are missing."""
    return point_label(point) + ("" if point.ok else f" {point.status}")


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
    no_device = [device_missing(p) for p in points if p.ok]
    if no_device and all(no_device):
        lines.append(
            Series("device busy %", [], [None] * len(points), color="#009E73", marker="square",
                   dashed=True, right=True, missing=no_device)
        )  # fmt: skip
    elif any(p.device and p.device.util_pct is not None for p in points):
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

    def unresolved(side: str) -> list[str | None]:  # an await under the counters' resolution
        return [
            getattr(p.device, f"{side}_await_reason", None) if p.device else None for p in points
        ]

    index = list(range(len(points)))
    series = [
        Series(f"mean read, host ({tool})", index, host("read"), color="#0072B2"),
        Series(
            "mean read, device await",
            index,
            device("read"),
            color="#0072B2",
            marker="square",
            dashed=True,
            missing=unresolved("read"),
        ),
        Series(
            f"mean write, host ({tool})", index, host("write"), color="#E69F00", marker="triangle"
        ),
        Series(
            "mean write, device await",
            index,
            device("write"),
            color="#E69F00",
            marker="diamond",
            dashed=True,
            missing=unresolved("write"),
        ),
    ]
    series = [s for s in series if any(v is not None for v in [*s.ys, *(s.missing or [])])]
    no_device = [device_missing(p) for p in points if p.ok]
    if no_device and all(no_device):
        series.append(
            Series("device await", index, [None] * len(index), color="#0072B2", marker="square",
                   dashed=True, missing=no_device)
        )  # fmt: skip
    return line_chart(
        series,
        title="Mean latency at the host and at the device",
        x_label="load point",
        y_label="mean latency (ms)",
        categories=[_category(p) for p in points],
        height=330,
        description="The gap between host and device latency is time spent in the host I/O stack and the path.",
    )
