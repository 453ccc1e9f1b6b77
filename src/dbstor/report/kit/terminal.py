"""Terminal pieces the fio and database tables share: status colours, a latency figure of
a point, the line of trust flags printed below a table, and a table whose headings are
never cut at 80 columns."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table
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


def fitted_table(
    title: Text | None,
    left: list[str],
    right: list[str] | None = None,
    rows: Sequence[Sequence[str | Text]] = (),
) -> Table:
    """A table with left-aligned columns then right-aligned ones in the points tables' box
    (no side rules, no edge padding: the width goes to the figures), whose cells fold a
    word too long for its column onto the next line instead of cutting it ('dbstor-…').
    No column is given a minimum width: rich drops or crops the last columns of a table
    whose minimums add up to more than the terminal, so headings stay whole by being
    short (the callers put units in headings, a study's one workload in the title).
    `rows` are added; more can be."""
    table = Table(
        title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False
    )
    for header in left:
        table.add_column(header, overflow="fold")
    for header in right or []:
        table.add_column(header, justify="right", overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table
