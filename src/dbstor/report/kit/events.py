"""The "Events" part of a run's section: for each point with events, a per-second timeline
of the measured window with each event marked where it began and ended, and a table of
each event's impact (baseline, dip, recovery, the device meanwhile, what went wrong)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from dbstor.events.impact import floor_pct, server_text
from dbstor.report.kit.charts import Series, line_chart
from dbstor.report.kit.refs import Ref
from dbstor.results.model import Point, Run

EVENT_COLOR = "#CC79A7"


def _number(row: dict[str, Any], *keys: str) -> float | None:
    values = [row.get(k) for k in keys]
    got = [float(v) for v in values if isinstance(v, int | float)]
    return sum(got) if got else None


def _timeline(run: Run, point: Point, index: int, rows: Sequence[dict[str, Any]]) -> str:
    """Throughput and latency per measured second of the point's first repeat."""
    mine = [
        r
        for r in rows
        if r.get("run_id") in (None, run.run_id)
        and r.get("point") == index + 1
        and r.get("repeat") in (None, 1)
        and r.get("phase") == "measure"
    ]
    database = any(isinstance(r.get("tps"), int | float) for r in mine)
    p99 = any(isinstance(r.get("txn_lat_p99_ms"), int | float) for r in mine)
    xs, through, latency = [], [], []
    for row in mine:
        xs.append(round(float(row["t_s"]) - point.warmup_s) - 0.5)  # the second's middle
        if database:
            through.append(_number(row, "tps"))
            latency.append(_number(row, "txn_lat_p99_ms" if p99 else "txn_lat_mean_ms"))
        else:
            through.append(_number(row, "io_read_iops", "io_write_iops"))
            latency.append(_number(row, "dev_read_await_ms"))
    unit = "TPS" if database else "IOPS"
    refs = []
    for event in point.events or []:
        if event.get("repeat", 1) != 1 or event.get("started_s") is None:
            continue
        refs.append(Ref(float(event["started_s"]), f"{event['kind']} ▸", "x", EVENT_COLOR))
        ended = event.get("ended_s")
        if ended is not None and ended - event["started_s"] >= 0.5:
            refs.append(Ref(float(ended), "◂ ends", "x", "#999"))
    lat_name = (
        ("p99 transaction latency (ms)" if p99 else "mean transaction latency (ms)")
        if database
        else "mean device read await (ms)"
    )
    return line_chart(
        [
            Series(f"{unit} per second", xs, through, color="#0072B2", marker=None),
            Series(lat_name, xs, latency, color="#D55E00", marker=None, right=True),
        ],
        title=f"Point {index + 1}: {unit} and latency per second, events marked",
        x_label="seconds into the measured window",
        y_label=unit,
        y2_label="ms",
        refs=refs,
        height=300,
    )


def _num(value: Any, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _row(event: dict[str, Any]) -> str:
    when = f"{event['at_s']:g} s" + (f" for {event['for_s']:g} s" if event.get("for_s") else "")
    happened = "–" if event.get("started_s") is None else f"{event['started_s']:.1f} s"
    result = "ok" if event.get("ok") else f"failed: {event.get('error') or 'unknown'}"
    result += server_text(event.get("details") or {})
    impact = event.get("impact")
    if impact is None:
        why = escape(event.get("impact_reason") or "not measured")
        cells = f'<td colspan="5">{why}</td>'
    else:
        unit, dip = impact["unit"], impact.get("dip")
        base = f"{_num(impact['baseline']['throughput'])} {unit}"
        depth = (
            f"none below {floor_pct(impact)}"
            if dip is None
            else f"{dip['depth_pct']:.0f}% (lowest {_num(dip['lowest'])} at {dip['lowest_at_s']} s)"
        )
        if dip is not None and impact.get("band_pct") is not None:
            depth += f"; band {impact['band_pct']:g}%"
        back = impact.get("back_after_s")
        back_text = (
            "–"
            if dip is None
            else (f"{back:g} s" if back is not None else impact.get("recovery_reason", "no"))
        )
        dev = impact["device"]
        before, during = dev["baseline"].get("dev_write_mbps"), dev["during"].get("dev_write_mbps")
        p99 = f"{_num(impact.get('baseline_p99_ms'), 1)} → {_num(impact.get('latency_p99'), 1)}"
        cells = (
            f"<td>{escape(base)}</td><td>{escape(depth)}</td><td>{escape(p99)}</td>"
            f"<td>{escape(back_text)}</td><td>{_num(before, 1)} → {_num(during, 1)}</td>"
        )
    return (
        f"<tr><td>{escape(event['kind'])}</td><td>{escape(when)}</td><td>{escape(happened)}</td>"
        f"{cells}<td>{escape(result)}</td></tr>"
    )


def events_html(run: Run, rows: Sequence[dict[str, Any]]) -> str:
    """The run's events, or '' when no point had any."""
    parts = []
    for index, point in enumerate(run.points):
        if not point.events:
            continue
        shift = max((e.get("window_shift_s") or 0.0 for e in point.events), default=0.0)
        shifted = (
            f" Times are in fio's own measured window, which began {shift:.2f} s after the "
            "one the events were timed from: an event begins that much earlier on this axis "
            "than asked."
            if shift
            else ""
        )
        caption = (
            "One value per measured second (first repeat); a pink line marks when an event "
            f"began, a grey one when it ended.{shifted}"
        )
        chart = _timeline(run, point, index, rows)
        parts.append(f"<figure>{chart}<figcaption>{escape(caption)}</figcaption></figure>")
        parts.append(
            "<table><thead><tr><th>event</th><th>asked</th><th>began</th><th>baseline</th>"
            "<th>dip</th><th>p99 ms before → highest second</th><th>back within the band</th>"
            "<th>device writes MB/s before → during</th>"
            "<th>result</th></tr></thead><tbody>"
            + "".join(_row(e) for e in point.events)
            + "</tbody></table>"
        )
    if not parts:
        return ""
    intro = (
        "<p>Each event happened at its time into the measured window. Baseline: the mean over "
        "up to 10 s before it (other events' seconds left out); dip: the lowest second from "
        "the event until throughput was back within the band of the baseline (5%, or twice "
        "the baseline seconds' own spread where that is wider, so that a load's noise is "
        "neither a dip nor a failure to recover; the dip column gives it); p99: the baseline's, "
        "and the highest of one second from the event until then (a second with fewer "
        "than 100 transactions gives its slowest). A database point's timeline shows "
        "each second's p99 (older runs: its mean).</p>"
    )
    return '<h3 id="events">Events</h3>' + intro + "".join(parts)
