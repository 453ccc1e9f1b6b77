"""A database run's table in the terminal summary: TPS, transaction p99, what the device
saw, CPU and the cache per load point. Strings from results go in as Text."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from dbstor.analysis.layers import device_points, has_layer, layer_figure
from dbstor.report.database.memory import reads_per_txn
from dbstor.report.kit.fmt import DASH, fmt_iops, fmt_ms, fmt_num, fmt_pct, fmt_per_txn, fmt_ratio
from dbstor.report.kit.summary import point_label, reads_from_memory, slo_of, table_points
from dbstor.report.kit.terminal import STATUS_STYLE, flag_line, point_latency
from dbstor.results.model import Point, Run


def points_table(run: Run, name: str) -> tuple[Table, list[Text]]:
    """A database run's points: users, TPS, transaction p99, what the device saw, CPU and
    the cache; flags go below the table so that it fits 80 columns."""
    slo = slo_of(run)
    status = Text(run.status, style=STATUS_STYLE.get(run.status, ""))
    engine = (run.engine or {}).get("title") or (run.engine or {}).get("name", "")
    workload = (run.workload or {}).get("name", "")
    title = Text.assemble(name, " · ", f"{workload} on {engine}", " · ", status)
    table = Table(  # no edge padding: an instances run's load column needs the two columns
        title=title,
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    instances = all(p.load.kind == "instances" for p in run.points)
    table.add_column("load\ninst×\nusers" if instances else "load", no_wrap=True)
    # an external server's own device (--db-host) when this host saw none of its I/O
    seen, layer = device_points(run.points)
    views = {id(p): v for p, v in zip(run.points, seen, strict=True)}
    device, read = ("db host", "db host rd") if layer else ("device", "dev read")
    own = any(p.cpu and p.cpu.own_pct is not None for p in run.points)
    cpu = "CPU\nhost/own" if own else "CPU"
    headers = ("TPS", "txn p99\nms", f"{device}\nIOPS", f"{read}\nawait ms", cpu)
    storage = has_layer([p.layers for p in run.points], "storage")
    more = ("storage\nread ms",) if storage else ()
    for header in (*headers, *more, "hit\nratio", "db rd\n/txn" if layer else "dev rd\n/txn"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    flagged: list[Text] = []
    if layer:
        flagged.append(
            Text(
                "device columns: the database server's own device (remote_device layer, "
                "--db-host), not this host's",
                style="dim",
            )
        )
    for point in table_points(run):
        label = point_label(point)
        short = _instances_label(point) if instances else label
        if not point.ok:
            table.add_row(Text(short), *[DASH] * (len(table.columns) - 2), Text("!", style="red"))
            flagged.append(
                Text(
                    f"{label}: {point.status}: {point.error or 'no error message recorded'}",
                    style="red",
                )
            )
            continue
        txn = point.txn_lat_ms.p99 if point.txn_lat_ms else None
        seen_point = views.get(id(point), point)
        iops = seen_point.iops
        read = point_latency(seen_point, "read", "mean")
        style = ""
        if slo.metric == "read_lat_mean_ms" and read is not None and slo.limit_ms:
            style = "bold red" if read > slo.limit_ms else "green"
        memory = reads_from_memory(point)
        cells: list[Any] = [
            fmt_iops(point.tps),
            fmt_ms(txn, unit=False),
            fmt_iops(iops),
            Text(fmt_ms(read, unit=False), style=style),
            _cpu_cell(point),
            *(
                [fmt_ms(layer_figure(point.layers, "storage", "read_latency_ms"), unit=False)]
                if storage
                else []
            ),
            Text(fmt_ratio(point.cache_hit_ratio), style="yellow" if memory else ""),
            Text(fmt_per_txn(reads_per_txn(seen_point)), style="yellow" if memory else ""),
        ]
        line = flag_line(point, label)
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


def _cpu_cell(point: Point) -> str:
    """The host's CPU and, where counted, the run's own processes' beside it: '100/24%'
    (the report's 'host / own'); the host's alone where the own was not counted."""
    cpu = point.cpu
    if cpu is None or cpu.own_pct is None or cpu.util_pct is None:
        return fmt_pct(cpu.util_pct if cpu else None)
    return f"{cpu.util_pct:.0f}/{cpu.own_pct:.0f}%"
