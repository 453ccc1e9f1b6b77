"""The engine's own waits over each point's measured window (results.json
`engine_window`, engines/window.py): per wait event the waits, the time waited and the
mean wait, and the engine's named rates and ratios; only for runs whose engine gave them.

Every name here comes from results (an engine's wait event names): escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.fmt import fmt_int, fmt_ms, fmt_num, fmt_ratio
from dbstor.report.kit.summary import ok_points, point_label
from dbstor.report.kit.tables import cell, scroll_table
from dbstor.results.model import Point, Run

INTRO = (
    "<p>What the engine itself counted over each point's measured window: how often its "
    "sessions waited on each event and for how long, and its own rates. A data-file read's "
    "mean wait is the read latency as the engine saw it: the storage's, or the host's page "
    "cache's where the engine reads through it (microseconds say so); a commit's wait on "
    "the log is the log device's write latency plus the engine's own work.</p>"
)


def _window(point: Point) -> dict[str, Any]:
    found = point.engine_window
    return found if isinstance(found, dict) else {}


def waits_block(run: Run) -> str:
    """The heading, the waits table and the rates table; '' when no point has figures."""
    points = [p for p in ok_points(run) if _window(p)]
    if not points:
        return ""
    parts = ["<h3>The engine's own waits</h3>", INTRO]
    events = _events(points)
    if events:
        parts.append(_waits_table(points, events))
    idle = sorted({e for p in points for e in _window(p).get("waits") or {}} - set(events))
    if idle:
        parts.append(f"<p>No wait in any point: {escape(', '.join(idle))}.</p>")
    rates = _names(points, "rates")
    ratios = _names(points, "ratios")
    if rates or ratios:
        what = "Its own rates, per second of each point's window" if rates else "Its own ratios"
        parts.append(f"<p>{what}{' (ratios as a percentage)' if rates and ratios else ''}:</p>")
        parts.append(_rates_table(points, rates, ratios))
    shown = {"all", *events, *rates, *ratios}  # an idle event's reason explains no dash
    reasons = sorted(
        {
            str(why)
            for p in points
            for name, why in (_window(p).get("why_null") or {}).items()
            if name in shown
        }
    )
    if reasons:
        items = "".join(f"<li>{escape(r)}</li>" for r in reasons)
        parts.append(f"<p>A dash is a figure the engine did not give:</p><ul>{items}</ul>")
    awr = [_awr_line(p) for p in points if isinstance(_window(p).get("awr"), dict)]
    if awr:
        items = "".join(f"<li>{escape(line)}</li>" for line in awr)
        parts.append(f"<p>AWR snapshots at each point's edges (asked for):</p><ul>{items}</ul>")
    return "".join(parts)


def _awr_line(point: Point) -> str:
    """'8 users: snapshots 41 to 42 (@?/rdbms/admin/awrrpt.sql ...)' or why none."""
    awr = _window(point)["awr"]
    if awr.get("begin_snap_id") is not None and awr.get("end_snap_id") is not None:
        return (
            f"{point_label(point)}: snapshots {awr['begin_snap_id']} to {awr['end_snap_id']} "
            f"({awr.get('report') or 'awrrpt.sql between them'})"
        )
    return f"{point_label(point)}: {awr.get('why') or 'no AWR snapshot'}"


def _events(points: list[Point]) -> list[str]:
    """The wait events with a wait (or an unknown count) at some point, in name order."""
    names: set[str] = set()
    for point in points:
        for name, row in (_window(point).get("waits") or {}).items():
            if isinstance(row, dict) and row.get("waits") != 0:
                names.add(name)
    return sorted(names)


def _names(points: list[Point], section: str) -> list[str]:
    return sorted({n for p in points for n in _window(p).get(section) or {}})


def _waits_table(points: list[Point], events: list[str]) -> str:
    head = ["load", "wait event", "waits", "waits|per second", "time waited|s", "mean wait"]
    rows = []
    for point in points:
        window = _window(point)
        seconds = window.get("seconds")
        for k, event in enumerate(events):
            row = (window.get("waits") or {}).get(event) or {}
            count, wait_ms = row.get("waits"), row.get("wait_ms")
            per_s = count / seconds if count is not None and seconds else None
            label = escape(point_label(point)) if k == 0 else ""
            cells = [
                f"<td>{escape(event)}</td>",
                cell(fmt_int(count), "num"),
                cell(fmt_num(per_s), "num"),
                cell(fmt_num(wait_ms / 1000 if wait_ms is not None else None), "num"),
                cell(fmt_ms(row.get("mean_ms")), "num"),
            ]
            rows.append(f'<tr><th scope="row">{label}</th>{"".join(cells)}</tr>')
    return scroll_table(head, rows)


def _rates_table(points: list[Point], rates: list[str], ratios: list[str]) -> str:
    head = ["load", *rates, *ratios]
    rows = []
    for point in points:
        window = _window(point)
        cells = [cell(fmt_num((window.get("rates") or {}).get(n)), "num") for n in rates]
        cells += [cell(fmt_ratio((window.get("ratios") or {}).get(n)), "num") for n in ratios]
        rows.append(f'<tr><th scope="row">{escape(point_label(point))}</th>{"".join(cells)}</tr>')
    return scroll_table(head, rows)
