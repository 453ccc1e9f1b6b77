"""The terminal summary: a table of every load point, the peak and the knee, and the
comparison against a baseline. Strings from results go in as Text, never as markup."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from dbstor.analysis.dss_compare import is_query_run
from dbstor.analysis.layers import LAYER_WORDS
from dbstor.report.database import console as database_console
from dbstor.report.database.memory import memory_sentence
from dbstor.report.io import console as io_console
from dbstor.report.kit import role_comparison
from dbstor.report.kit.comparison import (
    compared,
    figure_text,
    not_compared_sentence,
    verdict_lines,
    with_interval,
    withheld_lines,
)
from dbstor.report.kit.doubts import headline_lines
from dbstor.report.kit.figures import run_names
from dbstor.report.kit.fmt import (
    DASH,
    fmt_factor,
    fmt_iops,
    fmt_ms,
    fmt_num,
)
from dbstor.report.kit.shared import shared_sentence
from dbstor.report.kit.summary import (
    cache_sentence,
    is_database,
)
from dbstor.report.kit.terminal import STATUS_STYLE, fitted_table
from dbstor.report.mix_console import print_mix
from dbstor.report.queries.console import print_dss_comparison, print_dss_summary
from dbstor.results.model import Run


def print_run_summary(run: Run, console: Console | None = None) -> None:
    """Print every load point of a run, then its peak and its knee under the SLO; for a
    database whose reads came from memory, say so in yellow."""
    if is_query_run(run):
        print_dss_summary(run, console)
        return
    console = console or Console()
    name = run_names([run])[0]
    builder = database_console.points_table if is_database(run) else io_console.points_table
    table, flagged = builder(run, name)
    console.print(table)
    for line in flagged:
        console.print(line)
    memory = memory_sentence(run)
    if memory:
        console.print(Text(memory, style="bold yellow"))
    shared = shared_sentence(run)  # how much of the device's I/O was not the run's
    if shared:
        console.print(Text(shared, style="yellow"))
    if run.status != "complete":
        done = sum(1 for p in run.points if p.ok)
        style = STATUS_STYLE.get(run.status, "yellow")
        console.print(
            Text(f"run {run.status}: {done} of {len(run.points)} load points finished", style)
        )
    for note in run.notes or []:
        console.print(Text(f"note: {note}", style="yellow"))
    peak, knee = headline_lines(run)  # refused where the report refuses them
    console.print(Text(peak))
    console.print(Text(knee, style="bold"))
    cache = cache_sentence(run)
    if cache:
        console.print(Text(cache, style="dim"))


def _pair(values: dict[str, Any], normalised: dict[str, Any], key: str, header: str) -> str:
    """A compared figure and its share of the baseline; a latency's unit is in its heading
    where the heading has one (an older comparison's names have none)."""
    value = values.get(key)
    if value is None:
        return DASH
    in_heading = key in ("read_lat_ms", "response_ms") and _short(header).endswith(" ms")
    shown = fmt_ms(value, unit=False) if in_heading else None
    shown = shown or figure_text(key, value)
    norm = normalised.get(key)
    return shown if norm is None else f"{shown} ({fmt_num(norm, 3)})"


def _short(header: str) -> str:
    """A compared figure's name for the terminal: 'p99 read ms', 'mean dev read ms'; a CPU
    of mixed kinds is 'CPU %', its kinds said under the table."""
    for long, short in (
        (" latency (ms)", " ms"),
        (" time (ms)", " ms"),
        ("device ", "dev "),
        ("response", "resp"),
        (" (%)", " %"),
        ("'s own CPU", " CPU"),  # server's own CPU (%) -> server CPU %
    ):
        header = header.replace(long, short)
    return header.split(":", 1)[0]


def print_comparison(comparison: dict, console: Console | None = None) -> None:
    """Print a comparison (values with baseline = 100 in brackets, factors and warnings),
    then a study's other workloads' comparisons and the runs compared with none, as the
    document shows them; for a study whose runs share no workload, only that they were not
    compared (as the document says). A [mix]'s tables come first (report/mix_console.py)."""
    console = console or Console()
    if comparison.get("mix"):
        print_mix(comparison["mix"], console)
        comparison = {k: v for k, v in comparison.items() if k != "mix"}
        if not comparison:
            return
    for block in (comparison, *(comparison.get("others") or [])):
        _print_one(block, console)
    for line in comparison.get("not_compared") or []:
        console.print(Text(str(line), style="yellow"))


def _print_one(comparison: dict, console: Console) -> None:
    if comparison.get("kind") == "dss":
        print_dss_comparison(comparison, console)
        return
    if comparison.get("shares_no_workload"):
        console.print(Text(not_compared_sentence(comparison), style="yellow"))
        return
    baseline = str(comparison.get("baseline", ""))
    runs = comparison.get("runs") or []
    keys = [
        (k, n)
        for k, n in compared(comparison)
        if any((r.get("values") or {}).get(k) is not None for r in runs)
    ]
    workloads = list(dict.fromkeys(str(r.get("workload", DASH)) for r in runs))
    one = f": {workloads[0]}" if len(workloads) == 1 else ""  # in the title, not a column
    title = Text(f"Compared with {baseline} (= 100){one}")
    rows = [
        [  # several workloads: each under its run's name (a column of its own is 80 wide)
            Text(str(run.get("label")) + ("" if one else f"\n{run.get('workload', DASH)}")),
            Text(str(run.get("basis", DASH)).replace("highest load", "highest")),  # 80 columns
            *(
                _pair(run.get("values") or {}, run.get("normalised") or {}, k, header)
                for k, header in keys
            ),
        ]
        for run in runs
    ]
    left = ["run" if one else "run, workload", "at"]
    table = fitted_table(title, left, [_short(header) for _, header in keys], rows)
    if keys:  # else no figure to set side by side: the lines below say why
        console.print(table)
    for _, header in keys:
        if ":" in header:  # whose CPU, where the runs' CPU figures are of different kinds
            console.print(Text(f"{_short(header)}: {header.split(':', 1)[1].strip()}", "dim"))
    if comparison.get("comparable") is False:
        console.print(
            Text(
                "these runs are not comparable as they stand: no verdict is drawn; see the warnings",
                "bold red",
            )
        )
    for warning in comparison.get("warnings") or []:
        console.print(Text(f"warning: {warning}", style="yellow"))
    print_layer_comparison(comparison, console)
    print_role_comparison(comparison, console)
    for lead, text in verdict_lines(comparison):
        console.print(Text(f"{lead}: {text}"))
    for line in withheld_lines(comparison):
        console.print(Text(line, style="yellow"))
    per_disk = comparison.get("per_disk") or []
    if per_disk:
        disks = fitted_table(
            Text("Per-disk efficiency"),
            ["run"],
            ["drives", "baseline drives", "drive reduction", "performance", "per disk"],
        )
        for row in per_disk:
            disks.add_row(
                Text(str(row.get("label"))),
                fmt_num(row.get("drives")),
                fmt_num(row.get("baseline_drives")),
                fmt_factor(row.get("drive_reduction")),
                with_interval(row, "performance"),
                with_interval(row, "per_disk"),
            )
        console.print(disks)


LAYER_COLUMNS = (  # the unit in the heading, so that 80 columns hold the table
    ("read_latency_ms", "mean read ms"),
    ("write_latency_ms", "mean write ms"),
    ("iops", "IOPS"),
    ("tps", "TPS"),
    ("txn_latency_ms", "mean txn ms"),
)


def print_role_comparison(comparison: dict, console: Console) -> None:
    """Each run's roles on their own devices side by side; nothing when no run has them.
    A role not measured is said below the table, not folded into a figure's column."""
    rows = role_comparison.role_rows(comparison)
    if not rows:
        return
    measured = [list(map(Text, r)) for r in rows if len(r) > 3]
    right = ["r IOPS", "w IOPS", "MB/s r/w", "r await ms", "w await ms", "share"]
    title = Text(role_comparison.title(comparison))
    console.print(fitted_table(title, ["run", "role", "device"], right, measured))
    for row in rows:
        if len(row) == 3:
            console.print(Text(f"{row[0]}, {row[1]}: {row[2]}", style="yellow"))


def print_layer_comparison(comparison: dict, console: Console) -> None:
    """Each run's latency and IOPS at every layer at the same load, with the baseline's
    same layer = 100 in brackets (TR-4367 Figures 1 and 2); nothing without layers."""
    block = comparison.get("layers")
    if not block:
        return
    load = block.get("load") or {}
    value = load.get("value")
    at = f"{load.get('kind') or 'load'} {fmt_num(value)}" if value is not None else DASH
    words = (comparison.get("same_load") or {}).get("load_words")
    at = words or at
    rows, gaps = [], []
    for run in block.get("runs") or []:
        missing = run.get("missing") or {}
        for layer in block.get("layers") or []:
            values = (run.get("values") or {}).get(layer) or {}
            normalised = (run.get("normalised") or {}).get(layer) or {}
            cells = []
            for key, _ in LAYER_COLUMNS:
                count = key in ("iops", "tps")
                shown = fmt_iops(values.get(key)) if count else fmt_ms(values.get(key), unit=False)
                norm = normalised.get(key)
                cells.append(shown if norm is None else f"{shown} ({fmt_num(norm, 3)})")
            words = LAYER_WORDS.get(layer, layer)
            if all(values.get(key) is None for key, _ in LAYER_COLUMNS) and layer in missing:
                gaps.append(f"{run.get('label')}, {words}: missing: {missing[layer]}")
            rows.append([Text(str(run.get("label"))), Text(words), *map(Text, cells)])
    table = fitted_table(
        Text(f"By layer, at {at} ({comparison.get('baseline')}'s layer = 100)"),
        ["run", "layer"],
        [header for _, header in LAYER_COLUMNS],
        rows,
    )
    console.print(table)
    for gap in gaps:  # below the table: a reason folded into a figure's column is unreadable
        console.print(Text(gap, style="yellow"))
    for run in block.get("runs") or []:
        if run.get("withheld"):
            line = (
                f"{run.get('label')}'s layers are not set beside the baseline's: {run['withheld']}"
            )
            console.print(Text(line, style="yellow"))
