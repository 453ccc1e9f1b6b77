"""dbstor tco: the consolidation cost case of TR-4403 and TR-4415.

The CPU headroom a faster storage gives lets the same databases run on fewer servers;
this command counts the servers needed, the licences retired, and the yearly cash flows
with ROI, NPV and payback. Every price is an input (a TOML file and/or flags).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dbstor.analysis.tco.cashflow import compute
from dbstor.analysis.tco.model import FIELDS, TcoInputs, resolve
from dbstor.analysis.tco.uncertainty import interval_words, with_cpu_interval
from dbstor.commands.output import emit_result
from dbstor.errors import UserError
from dbstor.report.tools.tco import render_page, render_tco_section

EXAMPLES = """examples:
  dbstor tco consolidation.toml
  dbstor tco --servers 10 --cores-per-server 12 --sockets 2 --cpu-before 10% \\
      --cpu-after 40% --ceiling 70% --license sqlserver-enterprise --example-prices \\
      --storage-price 250000 --storage-support 25000 --legacy-storage-support 60000
  dbstor tco consolidation.toml --before-run results/legacy --after-run results/flash --json

Flags override the TOML file. Keys, example prices and their sources: docs/tco.md.
"""


METAVARS = {
    "int": "N",
    "pct": "PCT",
    "money": "AMOUNT",
    "float": "FACTOR",
    "path": "DIR",
    "str": "NAME",
}


def register(subparsers: Any) -> None:
    """Add the 'tco' subcommand."""
    p = subparsers.add_parser(
        "tco",
        help="consolidation cost case: servers, licences retired, ROI, NPV, payback",
        description=(
            "Turn the CPU headroom that faster storage gives into a server consolidation "
            "(TR-4403, TR-4415): servers needed under a CPU ceiling, licences retired "
            "(SQL Server per core, Oracle per processor), yearly cash flows, ROI, NPV and "
            "payback in months. Prices are inputs; --example-prices fills the missing ones "
            "with documented example values."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        nargs="?",
        type=Path,
        metavar="CONSOLIDATION.toml",
        help="the inputs as TOML (see docs/tco.md); flags override it",
    )
    for spec in FIELDS:
        if spec.kind == "bool":
            p.add_argument(spec.flag, dest=spec.name, action="store_true", help=spec.help)
            continue
        names = [spec.flag, "--licence"] if spec.name == "licence" else [spec.flag]
        if spec.name == "licence_price":
            names.append("--licence-price")
        p.add_argument(
            *names, dest=spec.name, default=None, metavar=METAVARS[spec.kind], help=spec.help
        )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--html",
        metavar="FILE",
        type=Path,
        help="also write a self-contained HTML page with the cost case",
    )
    p.set_defaults(handler=run)


def _cpu_from_runs(
    inputs: TcoInputs,
) -> tuple[str | None, tuple[float, float] | None]:
    """CPU before/after from run folders: (where from, the CPU factor's interval as
    multipliers); (None, None) when no run was given."""
    v = inputs.values
    before_run, after_run = v["before_run"], v["after_run"]
    for flag, run_key, value_key in (
        ("--before-run", "before_run", "cpu_before"),
        ("--after-run", "after_run", "cpu_after"),
    ):
        if v[run_key] is not None and inputs.sources.get(value_key) is not None:
            raise UserError(f"give --{value_key.replace('_', '-')} or {flag}, not both")
    if before_run is None and after_run is None:
        return None, None
    from dbstor.analysis.tco.runs import cpu_from_run, cpu_from_runs
    from dbstor.analysis.tco.uncertainty import cpu_multipliers

    if before_run is not None and after_run is not None:
        v["cpu_before"], v["cpu_after"], how, (pb, pa) = cpu_from_runs(before_run, after_run)
        inputs.sources["cpu_before"] = inputs.sources["cpu_after"] = "from the runs"
        return how, cpu_multipliers(pb, pa)
    points = {}
    notes = []
    if before_run is not None:
        v["cpu_before"], how, points["before"] = cpu_from_run(before_run, "--before-run")
        inputs.sources["cpu_before"] = "from the run"
        notes.append(f"before: {how}")
    if after_run is not None:
        v["cpu_after"], how, points["after"] = cpu_from_run(after_run, "--after-run")
        inputs.sources["cpu_after"] = "from the run"
        notes.append(f"after: {how}")
    return "; ".join(notes), cpu_multipliers(points.get("before"), points.get("after"))


def run(args: argparse.Namespace) -> int:
    """Handler of 'dbstor tco'."""
    result = cost_case(args)
    return emit_result(
        args,
        result,
        page=lambda: render_page("dbstor tco: consolidation cost case", render_tco_section(result)),
        text=lambda: format_text(result),
    )


def cost_case(
    args: argparse.Namespace,
    cpu: tuple[float, float, str] | None = None,
    multipliers: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """The cost case of these flags (what --json prints). `cpu`: (before %, after %, where
    they come from) measured by a study's runs, instead of flags or run folders, with the
    interval of their factor (`multipliers`, analysis/tco/uncertainty.py)."""
    inputs = resolve(args.file, args)
    cpu_note, measured = _cpu_from_runs(inputs)
    if cpu is not None:
        inputs.values["cpu_before"], inputs.values["cpu_after"], cpu_note = cpu
        inputs.sources["cpu_before"] = inputs.sources["cpu_after"] = cpu_note
        measured = multipliers
    if inputs.cpu_after is None:
        raise UserError(
            "--cpu-after is required (the CPU utilisation after the storage "
            "change), or --after-run with a dbstor run on the new storage"
        )
    if inputs.cpu_after <= 0:
        raise UserError("--cpu-after must be above 0%: the measured utilisation after the change")
    how = (
        "the CPU figures' own spread (analysis/tco/uncertainty.py)"
        if measured
        else "no interval: the CPU figures were given by hand, or their points recorded no spread"
    )
    return with_cpu_interval(compute(inputs, cpu_note), measured, how)


def _m(x: float | None, currency: str = "") -> str:
    return "-" if x is None else f"{x:,.0f}" + (f" {currency}" if currency else "")


def format_text(result: dict[str, Any]) -> str:
    """The terminal report: servers, licences, line items, cash flows, ROI/NPV/payback."""
    cur, s, lic = result["currency"], result["servers"], result["licences"]
    head = f"CPU: {s['cpu_before_pct']:g}% before, " if s["cpu_before_pct"] is not None else "CPU: "
    examples = result.get("example_prices") or []
    lines = [f"EXAMPLE PRICES, not quotes: {', '.join(examples)}", ""] if examples else []
    lines += [
        f"Servers: {s['before']} -> {s['after']} ({s['retired']} retired; {s['needed_exact']:g} "
        f"needed at {s['ceiling_pct']:g}% CPU at most)" + interval_words(s),
        head
        + f"{s['cpu_after_pct']:g}% after the storage change"
        + (f" ({s['headroom_factor']:g}x)" if s["headroom_factor"] else "")
        + f"; {s['cpu_consolidated_pct']:g}% on each consolidated server",
        "Servers after at other ceilings: "
        + ", ".join(f"{c} {m}" for c, m in s["after_by_ceiling"].items())
        + " (--ceiling; docs/tco.md says why the default is 70%)",
        f"Licences ({lic['model']}): {lic['per_server']} {lic['unit']}s per server, "
        f"{lic['before']} -> {lic['after']} ({lic['retired']} retired)",
    ]
    saved = result.get("licence_savings") or {}
    if saved.get("retired"):  # the seeds' figure: purchase avoided + support over the years
        lines.append(
            f"Licences saved over {saved['years']} years: {_m(saved['total'], cur)} (purchase "
            f"avoided {_m(saved['purchase_avoided'], cur)} + support {_m(saved['support'], cur)})"
        )
    lines.append("")
    items = [("", "item", "year 0", "each year")]
    items += [("benefit", x["item"], *_amounts(x)) for x in result["benefits"]]
    items += [("cost", x["item"], *_amounts(x)) for x in result["costs"]]
    lines += _table(items, left={0, 1})
    lines.append("")
    flows = [("year", "benefits", "costs", "net", "discounted", "cumulative")]
    flows += [
        (
            str(f["year"]),
            _m(f["benefits"]),
            _m(f["costs"]),
            _m(f["net"]),
            _m(f["discounted"]),
            _m(f["cumulative"]),
        )
        for f in result["cash_flows"]
    ]
    lines += _table(flows, left=set())
    lines.append("")
    roi, payback = result["roi_pct"], result["payback_months"]
    if result.get("needs"):
        lines.append(f"No ROI, NPV or payback: {result['needs']}")
    else:
        lines.append(
            f"ROI {'-' if roi is None else f'{roi:.0f}%'} | NPV {_m(result['npv'], cur)} at "
            f"{result['discount_rate_pct']:g}% | payback "
            + ("not within the period" if payback is None else f"{payback:.1f} months")
            + f" | net over {result['years']} years {_m(result['totals']['net'], cur)}"
        )
    if result["notes"]:
        lines.append("Notes:")
        lines += [f"  - {n}" for n in result["notes"]]
    lines.append("Assumptions:")
    lines += [f"  - {a}" for a in result["assumptions"]]
    return "\n".join(lines) + "\n"


def _amounts(line: dict[str, Any]) -> tuple[str, str]:
    """A line item's year-0 and yearly amounts, or the flag it needs when not given."""
    if line.get("not_given"):
        return f"not given ({line['not_given']})", ""
    return _m(line["year0"]), _m(line["yearly"])


def _table(rows: list[tuple[str, ...]], left: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            c.ljust(widths[i]) if i in left else c.rjust(widths[i]) for i, c in enumerate(r)
        ).rstrip()
        for r in rows
    ]
