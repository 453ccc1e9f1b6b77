"""The terminal summary: a table of every load point, the peak and the knee, and the
comparison against a baseline. Strings from results go in as Text, never as markup."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dbstor.analysis.dss_compare import is_query_run
from dbstor.report.database.memory import memory_sentence, point_label, reads_per_txn
from dbstor.report.kit.figures import COMPARED, run_names
from dbstor.report.kit.fmt import (
    DASH,
    fmt_factor,
    fmt_iops,
    fmt_mbps,
    fmt_ms,
    fmt_num,
    fmt_pct,
    fmt_per_txn,
    fmt_ratio,
    load_text,
)
from dbstor.report.kit.summary import (
    cache_sentence,
    is_database,
    knee_sentence,
    peak_sentence,
    point_flags,
    reads_from_memory,
    slo_of,
    table_points,
)
from dbstor.report.queries.console import print_dss_comparison, print_dss_summary
from dbstor.results.model import Point, Run

_STATUS_STYLE = {"complete": "green", "interrupted": "yellow", "running": "yellow", "failed": "red"}


def _lat(point: Point, side: str, stat: str) -> float | None:
    stats = getattr(point, f"{side}_lat_ms")
    return None if stats is None or not point.ok else getattr(stats, stat)


def _points_table(run: Run, name: str) -> tuple[Table, list[Text]]:
    """The points table, and one line per point that carries flags (kept out of the table
    so that it fits an 80-column terminal)."""
    slo = slo_of(run)
    has_tps = any(p.tps is not None for p in run.points)
    status = Text(run.status, style=_STATUS_STYLE.get(run.status, ""))
    workload = (run.workload or {}).get("name", "")
    title = Text.assemble(name, " · ", str(workload), " · ", status)
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("load", no_wrap=True)
    for header in ("IOPS", "MB/s", *(["TPS"] if has_tps else [])):
        table.add_column(header, justify="right", no_wrap=True)
    for header in ("read p50", "read p99", "write p99"):
        table.add_column(f"{header}\nms", justify="right", no_wrap=True)
    table.add_column("CPU", justify="right", no_wrap=True)
    table.add_column("dev read\nawait ms", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    flagged: list[Text] = []
    for point in table_points(run):
        label = load_text(point.load.kind, point.load.value, point.load.jobs)
        load = Text(label)
        if not point.ok:
            blanks = [DASH] * (len(table.columns) - 2)
            table.add_row(load, *blanks, Text("!", style="red"))
            flagged.append(
                Text(f"{label}: failed: {point.error or 'no error message recorded'}", style="red")
            )
            continue
        mbps = None
        if point.read_mbps is not None or point.write_mbps is not None:
            mbps = (point.read_mbps or 0.0) + (point.write_mbps or 0.0)
        iops = None if point.read_iops is None and point.write_iops is None else point.iops
        cells: list[Any] = [fmt_iops(iops), fmt_mbps(mbps)]
        if has_tps:
            cells.append(fmt_iops(point.tps))
        for side, stat in (("read", "p50"), ("read", "p99"), ("write", "p99")):
            value = _lat(point, side, stat)
            style = ""
            if f"{side}_lat_{stat}_ms" == slo.metric and value is not None and slo.limit_ms:
                style = "bold red" if value > slo.limit_ms else "green"
            cells.append(Text(fmt_ms(value, unit=False), style=style))
        cells.append(fmt_pct(point.cpu.util_pct if point.cpu else None))
        device = point.device
        awaits = DASH
        if device is not None and device.read_await_ms is not None:
            awaits = fmt_ms(device.read_await_ms, False)
        cells.append(awaits)
        line = _flag_line(point, label)
        cells.append(Text("*" if line else "", style="yellow"))
        if line:
            flagged.append(line)
        table.add_row(load, *cells)
    return table, flagged


def _flag_line(point: Point, label: str) -> Text | None:
    flags = point_flags(point)
    if point.repeats > 1 and point.iops_spread is not None:
        spread = point.iops_spread
        flags.append(
            f"IOPS {fmt_iops(spread.minimum)}–{fmt_iops(spread.maximum)} over {point.repeats}"
        )
    if point.saturated and point.saturation_reason:
        flags = [f"saturated ({point.saturation_reason})" if f == "saturated" else f for f in flags]
    if point.errors or point.retries:
        flags.append(f"{point.errors} errors, {point.retries} retries")
        if point.error_messages:
            flags.append(f"first: {point.error_messages[0]}")
    return Text(f"* {label}: {', '.join(flags)}", style="yellow") if flags else None


def _db_points_table(run: Run, name: str) -> tuple[Table, list[Text]]:
    """A database run's points: users, TPS, transaction p99, what the device saw, CPU and
    the cache; flags go below the table so that it fits 80 columns."""
    slo = slo_of(run)
    status = Text(run.status, style=_STATUS_STYLE.get(run.status, ""))
    engine = (run.engine or {}).get("title") or (run.engine or {}).get("name", "")
    workload = (run.workload or {}).get("name", "")
    title = Text.assemble(name, " · ", f"{workload} on {engine}", " · ", status)
    table = Table(
        title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD, padding=(0, 1)
    )
    instances = all(p.load.kind == "instances" for p in run.points)
    table.add_column("load\ninst×users" if instances else "load", no_wrap=True)
    headers = ("TPS", "txn p99\nms", "device\nIOPS", "dev read\nawait ms", "CPU")
    for header in (*headers, "hit\nratio", "dev rd\n/txn"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    flagged: list[Text] = []
    for point in table_points(run):
        label = point_label(point)
        short = _instances_label(point) if instances else label
        if not point.ok:
            table.add_row(Text(short), *[DASH] * (len(table.columns) - 2), Text("!", style="red"))
            flagged.append(
                Text(f"{label}: failed: {point.error or 'no error message recorded'}", style="red")
            )
            continue
        txn = point.txn_lat_ms.p99 if point.txn_lat_ms else None
        iops = None if point.read_iops is None and point.write_iops is None else point.iops
        read = _lat(point, "read", "mean")
        style = ""
        if slo.metric == "read_lat_mean_ms" and read is not None and slo.limit_ms:
            style = "bold red" if read > slo.limit_ms else "green"
        memory = reads_from_memory(point)
        cells: list[Any] = [
            fmt_iops(point.tps),
            fmt_ms(txn, unit=False),
            fmt_iops(iops),
            Text(fmt_ms(read, unit=False), style=style),
            fmt_pct(point.cpu.util_pct if point.cpu else None),
            Text(fmt_ratio(point.cache_hit_ratio), style="yellow" if memory else ""),
            Text(fmt_per_txn(reads_per_txn(point)), style="yellow" if memory else ""),
        ]
        line = _flag_line(point, label)
        cells.append(Text("*" if line else "", style="yellow"))
        if line:
            flagged.append(line)
        table.add_row(Text(short), *cells)
    return table, flagged


def _instances_label(point: Point) -> str:
    """'8 × 4' for 8 instances of 4 users each: the column header says which is which."""
    value = point.load.value
    each = point.load.jobs / value if value and point.load.jobs > 1 else 1
    return f"{fmt_num(value)} × {fmt_num(each)}"


def print_run_summary(run: Run, console: Console | None = None) -> None:
    """Print every load point of a run, then its peak and its knee under the SLO; for a
    database whose reads came from memory, say so in yellow."""
    if is_query_run(run):
        print_dss_summary(run, console)
        return
    console = console or Console()
    name = run_names([run])[0]
    builder = _db_points_table if is_database(run) else _points_table
    table, flagged = builder(run, name)
    console.print(table)
    for line in flagged:
        console.print(line)
    memory = memory_sentence(run)
    if memory:
        console.print(Text(memory, style="bold yellow"))
    if run.status != "complete":
        done = sum(1 for p in run.points if p.ok)
        style = _STATUS_STYLE.get(run.status, "yellow")
        console.print(
            Text(f"run {run.status}: {done} of {len(run.points)} load points finished", style)
        )
    for note in run.notes or []:
        console.print(Text(f"note: {note}", style="yellow"))
    console.print(Text(peak_sentence(run)))
    console.print(Text(knee_sentence(run), style="bold"))
    cache = cache_sentence(run)
    if cache:
        console.print(Text(cache, style="dim"))


def _pair(values: dict[str, Any], normalised: dict[str, Any], key: str) -> str:
    value = values.get(key)
    if value is None:
        return DASH
    if key == "read_lat_ms":
        shown = fmt_ms(value)
    elif key == "cpu_pct":
        shown = fmt_pct(value)
    else:
        shown = fmt_iops(value)
    norm = normalised.get(key)
    return shown if norm is None else f"{shown} ({fmt_num(norm, 3)})"


def print_comparison(comparison: dict, console: Console | None = None) -> None:
    """Print a comparison: values with baseline = 100 in brackets, factors and warnings."""
    if comparison.get("kind") == "dss":
        print_dss_comparison(comparison, console)
        return
    console = console or Console()
    baseline = str(comparison.get("baseline", ""))
    runs = comparison.get("runs") or []
    keys = [
        (k, n) for k, n in COMPARED if any((r.get("values") or {}).get(k) is not None for r in runs)
    ]
    title = Text(f"Compared with {baseline} (= 100)")
    table = Table(title=title, title_justify="left", header_style="bold")
    for header in ("run", "workload", "at"):
        table.add_column(header)
    for _, header in keys:
        table.add_column(header, justify="right")
    for run in runs:
        values, normalised = run.get("values") or {}, run.get("normalised") or {}
        table.add_row(
            Text(str(run.get("label"))),
            Text(str(run.get("workload", DASH))),
            Text(str(run.get("basis", DASH))),
            *(_pair(values, normalised, k) for k, _ in keys),
        )
    console.print(table)
    if comparison.get("comparable") is False:
        console.print(
            Text("these runs are not comparable as they stand; see the warnings", "bold red")
        )
    for warning in comparison.get("warnings") or []:
        console.print(Text(f"warning: {warning}", style="yellow"))
    for factor in comparison.get("factors") or []:
        console.print(Text(f"{factor.get('label')} vs {baseline}: {factor.get('text')}"))
    per_disk = comparison.get("per_disk") or []
    if per_disk:
        disks = Table(title=Text("Per-disk efficiency"), title_justify="left", header_style="bold")
        for header in (
            "run",
            "drives",
            "baseline drives",
            "drive reduction",
            "performance",
            "per disk",
        ):
            disks.add_column(header, justify="left" if header == "run" else "right")
        for row in per_disk:
            disks.add_row(
                Text(str(row.get("label"))),
                fmt_num(row.get("drives")),
                fmt_num(row.get("baseline_drives")),
                fmt_factor(row.get("drive_reduction")),
                fmt_factor(row.get("performance_factor")),
                fmt_factor(row.get("per_disk_efficiency")),
            )
        console.print(disks)
