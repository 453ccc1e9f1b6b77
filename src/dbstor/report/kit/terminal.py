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
    """A table with left-aligned columns then right-aligned ones, each at least as wide as
    its heading's longest word (and a left column as its cells' longest word, up to
    WORD_LIMIT), so that a narrow terminal (80 columns) wraps between words and never cuts
    a heading ('CPU %: the engine…') or a name ('dbstor-da ta'); a longer word folds onto
    the next line instead of being cut. The points tables' box (no side rules) leaves the
    width to the figures. `rows` are added; more can be."""
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for i, header in enumerate(left):
        words = [_longest_word(str(row[i])) for row in rows if i < len(row)]
        wide = max([_longest_word(header), *(min(w, WORD_LIMIT) for w in words)])
        table.add_column(header, min_width=wide, overflow="fold")
    for header in right or []:
        table.add_column(header, justify="right", min_width=_longest_word(header), overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


WORD_LIMIT = 24


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=1)
