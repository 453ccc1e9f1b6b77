"""A fio run's table in the terminal summary: IOPS, MB/s, host latency against the SLO,
CPU and the device's await per load point. Strings from results go in as Text."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from dbstor.analysis.layers import has_layer, layer_figure
from dbstor.report.kit.fmt import DASH, fmt_iops, fmt_mbps, fmt_ms, fmt_pct, load_text
from dbstor.report.kit.summary import slo_of, table_points
from dbstor.report.kit.terminal import STATUS_STYLE, flag_line, point_latency
from dbstor.results.model import Run
from dbstor.telemetry.disk import await_text


def points_table(run: Run, name: str) -> tuple[Table, list[Text]]:
    """The points table, and one line per point that carries flags (kept out of the table
    so that it fits an 80-column terminal)."""
    slo = slo_of(run)
    has_tps = any(p.tps is not None for p in run.points)
    status = Text(run.status, style=STATUS_STYLE.get(run.status, ""))
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
    storage = has_layer([p.layers for p in run.points], "storage")
    if storage:
        table.add_column("storage\nread ms", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    flagged: list[Text] = []
    for point in table_points(run):
        label = load_text(point.load.kind, point.load.value, point.load.jobs)
        load = Text(label)
        if not point.ok:
            blanks = [DASH] * (len(table.columns) - 2)
            table.add_row(load, *blanks, Text("!", style="red"))
            flagged.append(
                Text(
                    f"{label}: {point.status}: {point.error or 'no error message recorded'}",
                    style="red",
                )
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
            value = point_latency(point, side, stat)
            style = ""
            if f"{side}_lat_{stat}_ms" == slo.metric and value is not None and slo.limit_ms:
                style = "bold red" if value > slo.limit_ms else "green"
            cells.append(Text(fmt_ms(value, unit=False), style=style))
        cells.append(fmt_pct(point.cpu.util_pct if point.cpu else None))
        device = point.device
        cells.append(await_text(device, "read", lambda ms: fmt_ms(ms, False)))
        if storage:
            cells.append(fmt_ms(layer_figure(point.layers, "storage", "read_latency_ms"), False))
        line = flag_line(point, label)
        cells.append(Text("*" if line else "", style="yellow"))
        if line:
            flagged.append(line)
        table.add_row(load, *cells)
    return table, flagged
