"""HTML tables of query runs: the points, every query of a point (TPC-H number, TR-3476
name, rows, seconds, MB/s, IOPS, CPU, cache), the load, and the comparison across targets.

Every string from results is escaped here: query errors are data.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.dss_compare import query_figure
from dbstor.report.kit.device_shape import shape_note, shape_title
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_int, fmt_iops, fmt_mbps, fmt_num, fmt_pct
from dbstor.report.kit.tables import cell, scroll_table
from dbstor.results.model import Point, Run


def fmt_s(value: float | None) -> str:
    """Seconds with three significant digits: 0.0123 -> '0.0123', 2131.1 -> '2,131'."""
    return fmt_num(value, 3)


def point_title(point: Point) -> str:
    what = "power run" if point.load.value == 1 else f"throughput run, {point.load.value:g} streams"
    cache = {q.get("cache") for q in point.queries or []} - {None}
    return what + (f" ({', '.join(sorted(map(str, cache)))})" if cache else "")


def _status(point: Point) -> str:
    if point.status == "running":
        return "still running"
    return "ok" if point.ok else f"failed: {point.error or 'no error recorded'}"


def points_table(run: Run) -> str:
    """One row per point: totals, queries per hour, geometric mean, the device, the CPU."""
    rows = []
    shaped = any(shape_note(run, p) for p in run.points if p.ok)
    for point in run.points:
        m = point.workload_metrics or {}
        bad = int(m.get("queries_failed", 0)) + int(m.get("queries_timeout", 0))
        cls = "" if point.ok else ' class="failed"'
        rows.append(
            f'<tr{cls}><th scope="row">{escape(point_title(point))}</th>'
            + cell(fmt_s(m.get("total_elapsed_s")), "num")
            + cell(fmt_int(m.get("queries_per_hour")), "num")
            + cell(fmt_s(m.get("geomean_s")), "num")
            + cell(
                f"{fmt_int(m.get('queries_ok'))} / {bad}"
                if m
                else fmt_int(len(point.queries or [])),
                "num",
            )
            + cell(fmt_mbps(point.read_mbps), "num")
            + cell(fmt_iops(point.read_iops), "num")
            + cell(fmt_mbps(point.write_mbps), "num")
            + cell(fmt_pct(point.cpu.util_pct if point.cpu else None), "num")
            + (cell(shape_note(run, point) or DASH, "shape", shape_title(run)) if shaped else "")
            + cell(_status(point))
            + "</tr>"
        )
    return scroll_table(
        [
            "point",
            "total elapsed|s",
            "queries|per hour",
            "geometric mean|s",
            "ok / not ok",
            "read|MB/s",
            "read|IOPS",
            "write|MB/s",
            "CPU",
            *(["at the device|reads, mean size, queue"] if shaped else []),
            "status",
        ],
        rows,
        "points",
    )


def queries_table(point: Point) -> str:
    """Every query of a point in stream and run order."""
    streams = point.load.value > 1
    rows = []
    for q in point.queries or []:
        ok = q.get("status") == "ok"
        status = "ok" if ok else f"{q.get('status')}: {q.get('error') or DASH}"
        cells = [
            *([cell(fmt_int(q.get("stream")), "num")] if streams else []),
            cell(fmt_int(q.get("position")), "num"),
            f'<th scope="row">{escape(str(q.get("name")))}</th>',
            cell(str(q.get("tr3476") or DASH)),
            cell(str(q.get("title") or DASH)),
            cell(fmt_int(q.get("rows")), "num"),
            cell(fmt_s(q.get("elapsed_s")), "num"),
            cell(fmt_mbps(q.get("read_mbps")), "num"),
            cell(fmt_iops(q.get("read_iops")), "num"),
            cell(fmt_pct(query_figure(q, "cpu_pct")), "num"),
            cell(str(q.get("cache") or DASH)),
            cell(status),
        ]
        cls = "" if ok else ' class="failed"'
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    head = [
        *(["stream"] if streams else []),
        "#",
        "TPC-H",
        "TR-3476 name",
        "title",
        "rows",
        "elapsed|s",
        "read|MB/s",
        "read|IOPS",
        "CPU",
        "cache",
        "status",
    ]
    return scroll_table(head, rows, "queries")


def load_table(run: Run) -> str:
    """Building the database: rows, seconds, rows/s, bytes generated and MB/s, its size."""
    workload = run.workload or {}
    loads = [x for x in workload.get("load") or [] if isinstance(x, dict)]
    if not loads:
        return "<p>No load report: the database was not built by this run.</p>"
    rows = [
        "<tr>"
        + cell(fmt_int(x.get("rows")), "num")
        + cell(fmt_num(x.get("seconds"), 3), "num")
        + cell(fmt_int(x.get("rows_per_s")), "num")
        + cell(fmt_bytes(x.get("bytes")), "num")
        + cell(fmt_mbps(x.get("mb_per_s")), "num")
        + cell(fmt_bytes(workload.get("database_bytes")), "num")
        + "</tr>"
        for x in loads
    ]
    head = ["rows", "seconds", "rows/s", "generated", "MB/s", "database on disk"]
    return scroll_table(head, rows)


# --- across targets ----------------------------------------------------------------------


def _with_norm(value: Any, norm: Any, fmt: Any) -> str:
    if not isinstance(value, int | float):
        return DASH
    shown = fmt(value)
    return shown if not isinstance(norm, int | float) else f"{shown} ({fmt_num(norm, 3)})"


def comparison_runs_table(comparison: dict[str, Any]) -> str:
    """Each run at the compared point: totals with the baseline's = 100 in brackets."""
    rows = []
    for r in comparison.get("runs") or []:
        v, n = r.get("values") or {}, r.get("normalised") or {}
        rows.append(
            f'<tr><th scope="row">{escape(str(r.get("label")))}</th>'
            + cell(str(r.get("basis") or DASH))
            + cell(str(r.get("cache") or DASH))
            + cell(_with_norm(v.get("total_elapsed_s"), n.get("total_elapsed_s"), fmt_s), "num")
            + cell(_with_norm(v.get("queries_per_hour"), n.get("queries_per_hour"), fmt_int), "num")
            + cell(_with_norm(v.get("geomean_s"), n.get("geomean_s"), fmt_s), "num")
            + cell(_with_norm(v.get("read_mbps"), n.get("read_mbps"), fmt_mbps), "num")
            + cell(_with_norm(v.get("cpu_pct"), n.get("cpu_pct"), fmt_pct), "num")
            + "</tr>"
        )
    head = [
        "run",
        "at",
        "cache",
        "total elapsed|s (= 100)",
        "queries|per hour",
        "geometric mean|s",
        "read|MB/s",
        # whose: the run's own processes where counted (dss_compare.point_values)
        "host CPU" if comparison.get("cpu_from") in (None, "the whole host") else "CPU|run's own",
    ]
    return scroll_table(head, rows)


def comparison_queries_table(comparison: dict[str, Any]) -> str:
    """Each query's seconds on every run, the baseline's = 100 in brackets."""
    labels = [str(r.get("label")) for r in comparison.get("runs") or []]
    rows = []
    for q in comparison.get("queries") or []:
        values, norm = q.get("values") or {}, q.get("normalised") or {}
        rows.append(
            f'<tr><th scope="row">{escape(str(q.get("name")))}</th>'
            + cell(str(q.get("tr3476") or DASH))
            + "".join(
                cell(_with_norm(values.get(label), norm.get(label), fmt_s), "num")
                for label in labels
            )
            + "</tr>"
        )
    head = ["query", "TR-3476 name", *(f"{label}|s (= 100)" for label in labels)]
    return scroll_table(head, rows)
