"""HTML tables of a database run: load points, transaction types, engine I/O per
transaction, errors, the load report, the engine and its largest objects.

Every string from results is escaped here: engine messages and object names are data.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from dbstor.analysis.histogram import MIN_OPS_P99, MIN_OPS_P999
from dbstor.report.database.memory import reads_per_txn
from dbstor.report.kit.device_shape import shape_note, shape_title
from dbstor.report.kit.fmt import (
    DASH,
    fmt_bytes,
    fmt_int,
    fmt_iops,
    fmt_ms,
    fmt_num,
    fmt_pct,
    fmt_per_txn,
    fmt_ratio,
    fmt_value,
)
from dbstor.report.kit.summary import (
    metric_value,
    ok_points,
    peak_of,
    point_label,
    slo_of,
    table_points,
)
from dbstor.report.kit.tables import cell, flags_cell, point_notes, scroll_table, spread_cell
from dbstor.results.model import LatencyStats, Point, Run

TOP_OBJECTS = 10
_BYTES = re.compile(r"(?:[\w.]+=)?\d{4,} bytes")  # the cap again, in bytes
FIRST_MESSAGES = 3
_TXN_STATS = (("mean", "mean"), ("p50", "p50"), ("p95", "p95"), ("p99", "p99"), ("p999", "p99.9"))


def _stat(stats: LatencyStats | None, name: str) -> float | None:
    return None if stats is None else getattr(stats, name)


def _slo_cell(run: Run, point: Point, metric: str, value: float | None) -> str:
    slo = slo_of(run)
    if metric != slo.metric or value is None or not slo.limit_ms:
        return cell(fmt_ms(value, unit=False), "num")
    over = value > slo.limit_ms
    return cell(
        fmt_ms(value, unit=False),
        "num over" if over else "num within",
        f"{slo.text}: {'over' if over else 'within'}",
    )


def db_points_table(run: Run) -> str:
    """Every load point of a database run: transactions, latency, the device, the host."""
    head = ["load", "TPS"]
    head += [f"{label}|txn ms" for _, label in _TXN_STATS]
    head += ["IOPS|device r / w", "read await|device ms", "write await|device ms"]
    head += ["CPU|host / own", "hit ratio"]
    shaped = any(shape_note(run, p) for p in run.points if p.ok)
    head += (["at the device|reads, mean size, queue"] if shaped else []) + ["flags"]
    rows = []
    for point in table_points(run):
        load = escape(point_label(point))
        if not point.ok:
            error = escape(point.error or "no error message recorded")
            rows.append(
                f'<tr class="failed"><th scope="row">{load}</th>'
                f'<td colspan="{len(head) - 2}">{point.status}: {error}</td>{flags_cell(point)}</tr>'
            )
            continue
        cells = [spread_cell(fmt_iops(point.tps), point.tps_spread, point.repeats, "TPS")]
        for stat, _ in _TXN_STATS:
            metric = f"txn_lat_{stat}_ms"
            cells.append(_slo_cell(run, point, metric, metric_value(point, metric)))
        split = DASH
        if point.read_iops is not None or point.write_iops is not None:
            split = f"{fmt_iops(point.read_iops)} / {fmt_iops(point.write_iops)}"
        cells.append(cell(split, "num"))
        for side in ("read", "write"):
            metric = f"{side}_lat_mean_ms"
            cells.append(_slo_cell(run, point, metric, metric_value(point, metric)))
        cpu = point.cpu
        own = f"{fmt_pct(cpu.util_pct)} / {fmt_pct(cpu.own_pct)}" if cpu else DASH
        cells.append(cell(own, "num", "the whole host's CPU / the run's own processes'"))
        cells.append(cell(fmt_ratio(point.cache_hit_ratio), "num"))
        if shaped:
            cells.append(cell(shape_note(run, point) or DASH, "shape", shape_title(run)))
        cells.append(flags_cell(point))
        rows.append(f'<tr><th scope="row">{load}</th>{"".join(cells)}</tr>')
    return scroll_table(head, rows, "points") + point_notes(run)


def _mix(run: Run) -> dict[str, float]:
    mix = (run.workload or {}).get("mix") or {}
    return {str(k): float(v) for k, v in mix.items() if isinstance(v, int | float)}


def _types_in_order(run: Run, points: list[Point]) -> list[str]:
    mix = _mix(run)
    names = {t for p in points for t in (p.txn_types or {})}
    return sorted(names, key=lambda t: (-mix.get(t, 0.0), t))


def txn_types_table(run: Run, point: Point) -> str:
    """One point's transaction types: share of the mix, count and latency."""
    mix = _mix(run)
    types = _types_in_order(run, [point])
    stats = point.txn_types or {}
    total = sum((stats[t].count or 0) for t in types if stats.get(t)) or 0
    shown = [(stat, label) for stat, label in _TXN_STATS if _measured(run, [point], stat)]
    head = ["type", "share of mix|set", "share of mix|done", "count"]
    head += [f"{label}|ms" for _, label in shown]
    rows = []
    for name in types:
        one = stats.get(name)
        done = f"{100.0 * one.count / total:.1f}%" if one and total else DASH
        share = f"{mix[name]:g}%" if name in mix else DASH
        cells = [
            cell(share, "num"),
            cell(done, "num"),
            cell(fmt_int(one.count if one else None), "num"),
        ]
        cells += [cell(fmt_ms(_stat(one, stat), unit=False), "num") for stat, _ in shown]
        rows.append(f'<tr><th scope="row">{escape(name)}</th>{"".join(cells)}</tr>')
    left = [label for stat, label in _TXN_STATS if (stat, label) not in shown]
    return scroll_table(head, rows) + (_not_measured(run, [point], left) if left else "")


def _measured(run: Run, points: list[Point], stat: str) -> bool:
    """Whether any transaction type has this statistic at any of the points."""
    names = _types_in_order(run, points)
    return any(_stat((p.txn_types or {}).get(n), stat) is not None for p in points for n in names)


def _not_measured(run: Run, points: list[Point], stats: list[str]) -> str:
    """One line for the statistics no transaction type has (a column of dashes says less)."""
    counts = [
        one.count
        for p in points
        for one in (p.txn_types or {}).values()
        if one is not None and one.count is not None
    ]
    most = f"at most {fmt_int(max(counts))} transactions of a type" if counts else "too few"
    return (
        f'<p class="meta">Not measured: {escape(", ".join(stats))} by type ({most}; a p99 '
        f"needs at least {MIN_OPS_P99:,}, a p99.9 {MIN_OPS_P999:,}).</p>"
    )


def txn_p99_matrix(run: Run) -> str:
    """p99 latency of every transaction type at every load point: what degrades first."""
    points = [p for p in ok_points(run) if p.txn_types]
    if len(points) < 2:
        return ""
    if not _measured(run, points, "p99"):
        return _not_measured(run, points, ["p99"])
    head = ["type", *(f"{point_label(p)}|p99 ms" for p in points)]
    rows = []
    for name in _types_in_order(run, points):
        cells = "".join(
            cell(fmt_ms(_stat((p.txn_types or {}).get(name), "p99"), unit=False), "num")
            for p in points
        )
        rows.append(f'<tr><th scope="row">{escape(name)}</th>{cells}</tr>')
    return scroll_table(head, rows)


def engine_io_table(run: Run) -> str:
    """Device and engine I/O per transaction, and the engine's cache hit ratio, per point."""
    head = [
        "load",
        "TPS",
        "device reads|per txn",
        "device writes|per txn",
        "engine physical reads|per txn",
        "engine physical writes|per txn",
        "cache hit ratio",
        "read from storage",
        "written to storage",
    ]
    rows = []
    for point in ok_points(run):
        io = point.engine_io or {}
        cells = [
            cell(fmt_iops(point.tps), "num"),
            cell(fmt_per_txn(reads_per_txn(point)), "num"),
            cell(fmt_per_txn(io.get("device_writes_per_txn")), "num"),
            cell(fmt_per_txn(io.get("engine_physical_reads_per_txn")), "num"),
            cell(fmt_per_txn(io.get("engine_physical_writes_per_txn")), "num"),
            cell(fmt_ratio(point.cache_hit_ratio), "num"),
            cell(fmt_bytes(io.get("storage_read_bytes")), "num"),
            cell(fmt_bytes(io.get("storage_write_bytes")), "num"),
        ]
        rows.append(f'<tr><th scope="row">{escape(point_label(point))}</th>{"".join(cells)}</tr>')
    if not rows:
        return "<p>No load point finished.</p>"
    return scroll_table(head, rows)


def errors_block(run: Run) -> str:
    """Errors and retries per point with the first messages, or one line saying none."""
    rows = []
    for point in table_points(run):
        if point.ok and not point.errors and not point.retries and not point.error_messages:
            continue
        messages = list(point.error_messages or [])
        if not point.ok:
            messages.insert(0, f"the point failed: {point.error or 'no error message recorded'}")
        shown = messages[:FIRST_MESSAGES]
        more = len(messages) - len(shown)
        items = "".join(f"<li>{escape(str(m))}</li>" for m in shown)
        if more > 0:
            items += f"<li>… and {more} more</li>"
        rows.append(
            f'<tr><th scope="row">{escape(point_label(point))}</th>'
            f"{cell(fmt_int(point.errors), 'num')}{cell(fmt_int(point.retries), 'num')}"
            f'<td><ul class="messages">{items or "<li>" + DASH + "</li>"}</ul></td></tr>'
        )
    if not rows:
        return "<p>No errors and no retries at any load point.</p>"
    intro = (
        "<p>Errors are transactions that failed and were counted; retries are transactions "
        "run again after a serialisation failure, a deadlock or a busy database.</p>"
    )
    return intro + scroll_table(["load", "errors", "retries", "first messages"], rows)


def load_report(run: Run) -> str:
    """How long building the database took: rows, seconds, rows per second, size."""
    loads = [x for x in (run.workload or {}).get("load") or [] if isinstance(x, dict)]
    if not loads:
        return "<p>No load report: the database was not built by this run.</p>"
    rows = [
        f'<tr><th scope="row">{escape(fmt_value(x.get("instance")))}</th>'
        f"{cell(fmt_int(x.get('rows')), 'num')}{cell(fmt_num(x.get('seconds'), 3), 'num')}"
        f"{cell(fmt_int(x.get('rows_per_s')), 'num')}{cell(fmt_bytes(x.get('bytes')), 'num')}</tr>"
        for x in loads
    ]
    return scroll_table(["instance", "rows", "seconds", "rows/s", "row data"], rows)


def engine_rows(engine: dict[str, Any]) -> list[tuple[str, str]]:
    """How the engine ran, its cache and its memory cap, in words (no machine paths: the
    cgroup and the server's address are the appendix's)."""
    managed = engine.get("managed")
    if managed is False:
        how = "external server: dbstor did not start it and did not size its memory"
    elif managed:
        how = "managed: dbstor created it on the target and removed it afterwards"
    else:
        how = DASH
    buffer = engine.get("buffer_bytes")
    settings = engine.get("settings") if isinstance(engine.get("settings"), dict) else {}
    default = next(
        (
            value
            for value in (
                engine.get("cache_bytes"),
                settings.get("shared_buffers_bytes"),
                settings.get("innodb_buffer_pool_size"),
            )
            if isinstance(value, int | float) and not isinstance(value, bool)
        ),
        None,
    )
    if buffer is not None:
        cache = f"{fmt_bytes(buffer)} (--buffer)"
    elif default is not None:
        cache = f"{fmt_bytes(default)} (dbstor's default for this engine)"
    else:
        cache = "the engine's own default"
    limit = engine.get("memory_limit_bytes")
    cap = f"{fmt_bytes(limit)} (--memory-limit)" if limit is not None else "none"
    how_capped = str(engine.get("memory_cap") or "")
    if how_capped.startswith("none"):  # 'none: no memory limit requested', or why not applied
        cap = how_capped if limit is None else f"{cap}; {how_capped}"
    elif ": " in how_capped:
        detail = how_capped.split(": ", 1)[-1]
        detail = _BYTES.sub("", detail, count=1).strip() if _BYTES.match(detail) else detail
        cap += (" " if detail.startswith("(") else "; ") + detail if detail else ""
    elif limit is None:
        cap += ": the host's page cache can hold the database"
    return [("how it ran", how), ("engine cache", cache), ("memory cap", cap)]


_OBJECT_COLUMNS = (
    ("reads", "reads", fmt_int),
    ("writes", "writes", fmt_int),
    ("read_bytes", "read", fmt_bytes),
    ("write_bytes", "written", fmt_bytes),
    ("read_stall_ms", "read stall|ms", fmt_int),
    ("write_stall_ms", "write stall|ms", fmt_int),
    ("rows_changed", "rows changed|ins + upd + del", fmt_int),  # last: not an I/O counter
)


def objects_table(run: Run) -> str:
    """The largest tables and indexes, with their I/O when the engine counts it."""
    stats = run.engine_stats or {}
    objects = [o for o in stats.get("objects") or [] if isinstance(o, dict)]
    if not objects:
        return "<p>The engine reported no per-object figures.</p>"
    objects.sort(key=lambda o: -(o.get("size_bytes") or 0))
    top = objects[:TOP_OBJECTS]
    columns = [c for c in _OBJECT_COLUMNS if any(o.get(c[0]) is not None for o in objects)]
    head = ["object", "kind", "size", *(label for _, label, _ in columns)]
    rows = []
    for one in top:
        cells = [
            cell(str(one.get("kind") or DASH)),
            cell(fmt_bytes(one.get("size_bytes")), "num"),
        ]
        cells += [cell(fmt(one.get(key)), "num") for key, _, fmt in columns]
        rows.append(f'<tr><th scope="row">{escape(str(one.get("name")))}</th>{"".join(cells)}</tr>')
    total = sum(o.get("size_bytes") or 0 for o in objects)
    since = stats.get("cumulative_since")
    notes = [f"{len(objects)} objects, {fmt_bytes(total)} in all"]
    if len(objects) > len(top):
        notes[0] += f"; the {len(top)} largest are shown"
    if since and columns:
        notes.append(f"I/O counted since {since}")
    if not columns:
        notes.append("this engine keeps no per-object I/O counters, so only sizes are shown")
    elif absent := [c[1].split("|")[0] for c in _OBJECT_COLUMNS[:-1] if c not in columns]:
        engine = (run.engine or {}).get("title") or "this engine"
        notes.append(f"not kept by {engine} per object, so not shown: {', '.join(absent)}")
    if _OBJECT_COLUMNS[-1] in columns:
        notes.append("rows changed: rows inserted, updated and deleted, not block writes")
    return scroll_table(head, rows) + f'<p class="meta">{escape("; ".join(notes))}.</p>'


def peak_point(run: Run) -> Point | None:
    """The point the transaction-type detail is shown for: the highest TPS."""
    point = peak_of(run)
    return point if point is not None and point.txn_types else None
