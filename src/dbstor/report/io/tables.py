"""A fio run's points table in the HTML report: IOPS (with the spread of repeats), read
and write IOPS, MB/s, latency against the SLO, CPU, the device's await and the flags.

Every string that comes from results is escaped here: labels and facts are user input.
"""

from __future__ import annotations

from html import escape

from dbstor.report.kit.device_shape import shape_note, shape_title
from dbstor.report.kit.fmt import (
    DASH,
    fmt_iops,
    fmt_mbps,
    fmt_ms,
    fmt_pct,
    load_text,
)
from dbstor.report.kit.summary import metric_value, slo_of, table_points
from dbstor.report.kit.tables import cell, flags_cell, head_cell, point_notes, spread_cell
from dbstor.results.model import Point, Run
from dbstor.telemetry.disk import await_text

_LATENCY_COLUMNS = [("read", "p50"), ("read", "p99"), ("read", "p999"), ("write", "p99")]
_STAT = {"p999": "p99.9"}


def _latency_columns(run: Run) -> list[tuple[str, str]]:
    columns = list(_LATENCY_COLUMNS)
    parts = slo_of(run).metric.split("_")
    if len(parts) == 4 and (parts[0], parts[2]) not in columns:
        columns.insert(0, (parts[0], parts[2]))
    return columns


def _iops_cell(point: Point) -> str:
    return spread_cell(fmt_iops(point.iops), point.iops_spread, point.repeats, "IOPS")


def points_table(run: Run) -> str:
    """Every point of a run, in load order, with the SLO metric marked within/over."""
    slo = slo_of(run)
    columns = _latency_columns(run)
    has_tps = any(p.tps is not None for p in run.points)
    head = ["load", "IOPS", "read / write IOPS", "MB/s"] + (["TPS"] if has_tps else [])
    head += [f"{side} {_STAT.get(stat, stat)}|ms" for side, stat in columns]
    head += ["CPU busy", "device await|read / write, ms"]
    shaped = any(shape_note(run, p) for p in run.points if p.ok)
    head += (["at the device|reads, mean size, queue"] if shaped else []) + ["flags"]
    rows = []
    for point in table_points(run):
        load = escape(load_text(point.load.kind, point.load.value, point.load.jobs))
        if not point.ok:
            error = escape(point.error or "no error message recorded")
            rows.append(
                f'<tr class="failed"><th scope="row">{load}</th>'
                f'<td colspan="{len(head) - 2}">{point.status}: {error}</td>{flags_cell(point)}</tr>'
            )
            continue
        mbps = None
        if point.read_mbps is not None or point.write_mbps is not None:
            mbps = (point.read_mbps or 0.0) + (point.write_mbps or 0.0)
        split = f"{fmt_iops(point.read_iops)} / {fmt_iops(point.write_iops)}"
        cells = [_iops_cell(point), cell(split, "num"), cell(fmt_mbps(mbps), "num")]
        if has_tps:
            cells.append(cell(fmt_iops(point.tps), "num"))
        for side, stat in columns:
            value = metric_value(point, f"{side}_lat_{stat}_ms")
            cls = "num"
            title = ""
            if f"{side}_lat_{stat}_ms" == slo.metric and value is not None and slo.limit_ms:
                cls += " over" if value > slo.limit_ms else " within"
                title = f"{slo.text}: {'over' if value > slo.limit_ms else 'within'}"
            cells.append(cell(fmt_ms(value, unit=False), cls, title))
        cells.append(cell(fmt_pct(point.cpu.util_pct if point.cpu else None), "num"))
        device = point.device
        awaits = [
            await_text(device, kind, lambda ms: fmt_ms(ms, False)) for kind in ("read", "write")
        ]
        cells.append(cell(DASH if awaits == [DASH, DASH] else " / ".join(awaits), "num"))
        if shaped:
            cells.append(cell(shape_note(run, point) or DASH, "shape", shape_title(run)))
        cells.append(flags_cell(point))
        rows.append(f'<tr><th scope="row">{load}</th>{"".join(cells)}</tr>')
    header = "".join(head_cell(h) for h in head)
    return (
        f'<div class="scroll"><table class="points"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{point_notes(run)}"
    )
