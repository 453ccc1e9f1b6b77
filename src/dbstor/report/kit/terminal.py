"""Terminal pieces the fio and database tables share: status colours, a latency figure of
a point, and the line of trust flags printed below a table."""

from __future__ import annotations

from rich.text import Text

from dbstor.report.kit.fmt import fmt_iops
from dbstor.report.kit.summary import point_flags
from dbstor.results.model import Point

STATUS_STYLE = {"complete": "green", "interrupted": "yellow", "running": "yellow", "failed": "red"}


def point_latency(point: Point, side: str, stat: str) -> float | None:
    """One latency figure of a finished point ('read', 'p99'), or None."""
    stats = getattr(point, f"{side}_lat_ms")
    return None if stats is None or not point.ok else getattr(stats, stat)


def flag_line(point: Point, label: str) -> Text | None:
    """The line of trust flags printed below a table for one point, or None if it has none."""
    flags = point_flags(point)
    spread, what = (
        (point.tps_spread, "TPS") if point.tps_spread is not None else (point.iops_spread, "IOPS")
    )
    if point.repeats > 1 and spread is not None:
        flags.append(
            f"{what} {fmt_iops(spread.minimum)}–{fmt_iops(spread.maximum)} over {point.repeats}"
        )
    if point.saturated and point.saturation_reason:
        flags = [f"saturated ({point.saturation_reason})" if f == "saturated" else f for f in flags]
    if point.errors or point.retries:
        flags.append(f"{point.errors} errors, {point.retries} retries")
        if point.error_messages:
            flags.append(f"first: {point.error_messages[0]}")
    return Text(f"* {label}: {', '.join(flags)}", style="yellow") if flags else None
