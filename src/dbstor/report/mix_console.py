"""The terminal's lines for a [mix] (comparison.json's "mix", analysis/mix.py): each
workload together beside alone, and its share of the device."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dbstor.analysis.mix import headline, why_no_factor
from dbstor.report.kit.fmt import DASH, fmt_factor, fmt_ms, fmt_num, fmt_pct, load_text


def print_mix(groups: list[dict[str, Any]], console: Console) -> None:
    """One table per target's mix, its headlines and the overlap note under it."""
    for group in groups:
        names = [str(n) for n in group.get("workloads") or []]
        table = Table(
            title=Text(f"{' + '.join(names)} together on {group.get('target')}"),
            title_justify="left",
            header_style="bold",
        )
        for header in ("workload", "load", "throughput alone -> together", "x", "latency", "x"):
            table.add_column(header, justify="left" if header in ("workload", "load") else "right")
        table.add_column("share", justify="right")
        for member in group.get("members") or []:
            for point in member.get("points") or []:
                load, device = point.get("load") or {}, point["device"]
                share = device.get("share")
                stat = str(point.get("latency_of") or "").rsplit(" ", 1)[-1]
                table.add_row(
                    Text(str(member.get("workload"))),
                    Text(load_text(load.get("kind"), load.get("value"))),
                    Text(
                        f"{fmt_num(point['alone'].get('throughput'))} -> "
                        f"{fmt_num(point['together'].get('throughput'))} {point.get('unit')}"
                    ),
                    Text(fmt_factor(point.get("throughput_factor"))),
                    Text(
                        f"{stat} {fmt_ms(point['alone'].get('latency_ms'), unit=False)} -> "
                        f"{fmt_ms(point['together'].get('latency_ms'))}"
                    ),
                    Text(fmt_factor(point.get("latency_factor"))),
                    Text(fmt_pct(share * 100) if share is not None else DASH),
                )
        console.print(table)
        for member in group.get("members") or []:
            others = [n for n in names if n != member.get("workload")]
            words = headline(member, others)
            why = why_no_factor(member)
            console.print(Text(words or f"{member.get('workload')}: no factor ({why})"))
        if group.get("overlap"):
            console.print(Text(str(group["overlap"]), "yellow"))
