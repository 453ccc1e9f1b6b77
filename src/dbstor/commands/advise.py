"""dbstor advise: which database objects belong on the fast tier (EMC h6080's method).

Reads per-object I/O statistics (SQL Server, Oracle, PostgreSQL or a dbstor run), ranks
the objects by I/O density, draws the skew curve and picks the objects for a fast tier of
a given capacity that save the most stall time.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dbstor.analysis.placement import inputs
from dbstor.analysis.placement.analysis import (
    DEFAULT_FAST_LATENCY_MS,
    FastCapacity,
    Tiers,
    analyse,
    parse_fast_capacity,
    stall_text,
)
from dbstor.analysis.placement.model import DbObject
from dbstor.commands.flagtypes import whole
from dbstor.commands.output import emit_result
from dbstor.errors import UserError
from dbstor.report.tools.placement import render_advise_section, render_page, share_words
from dbstor.units import MAX_COUNT, format_size, parse_duration, parse_latency_ms

EXAMPLES = """examples:
  dbstor advise --sqlserver virtual_file_stats.csv --fast-capacity 500GB
  dbstor advise --sqlserver before.csv after.csv --fast-capacity 500GB --json
  dbstor advise --oracle filestat_before.csv filestat_after.csv --fast-capacity 2TB \\
      --fast-latency 0.5ms --slow-latency 12ms
  dbstor advise --postgres postgresql://bench@db/app --interval 300 --fast-capacity 100GB
  dbstor advise results/RUN_ID --fast-capacity 10GB --html advice.html
  dbstor advise results/RUN_ID --fast-capacity 100MB --fast-path /mnt/flash --write-study moved.toml

One CSV is taken as counted since the instance started; two CSVs (older first) give the
difference. Column names and the queries to export them: docs/advise.md.
"""


def register(subparsers: Any) -> None:
    """Add the 'advise' subcommand."""
    p = subparsers.add_parser(
        "advise",
        help="which database objects belong on the fast tier (per-object I/O statistics)",
        description=(
            "Rank database files, tables or indexes by I/O density, draw the skew curve "
            "and choose the objects for a fast tier of a given capacity that save the most "
            "stall time (exact 0/1 knapsack, or greedy by density for many objects). "
            "Transaction logs are marked as poor candidates, as EMC h6080 found."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_source_flags(p)
    _add_tier_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--html",
        metavar="FILE",
        type=Path,
        help="also write a self-contained HTML page with the advice",
    )
    p.add_argument(
        "--write-study",
        metavar="FILE",
        type=Path,
        help="with RUN_DIR: write the choice as a study of two targets, before (all on the "
        "run's path) and after (the choice on --fast-path), for 'dbstor run FILE'",
    )
    p.add_argument(
        "--fast-path",
        metavar="DIR",
        help="with --write-study: the fast tier's directory (default: --fast-run's data path)",
    )
    p.set_defaults(handler=run)


def _add_source_flags(p: Any) -> None:
    """Where the per-object statistics come from: a file of an engine's view, or a live server."""
    p.add_argument(
        "run_dir",
        nargs="?",
        metavar="RUN_DIR",
        help="a dbstor run folder whose results.json holds engine_stats.objects",
    )
    p.add_argument(
        "--sqlserver",
        nargs="+",
        metavar="CSV",
        type=Path,
        help="sys.dm_io_virtual_file_stats (or fn_virtualfilestats) export, "
        "joined with file names and sizes; one or two snapshots",
    )
    p.add_argument(
        "--oracle",
        nargs="+",
        metavar="CSV",
        type=Path,
        help="v$filestat or DBA_HIST_SEG_STAT export; one or two snapshots",
    )
    p.add_argument(
        "--postgres", metavar="DSN", help="read pg_statio_user_tables/indexes live from this server"
    )
    p.add_argument(
        "--interval",
        default="300",
        metavar="SECONDS",
        help="with --postgres: seconds between the two readings; 0 reads once "
        "(counted since the statistics reset) (default: 300)",
    )


def _add_tier_flags(p: Any) -> None:
    """The fast tier's size and latency, the slow tier's, and how objects are chosen."""
    p.add_argument(
        "--fast-capacity",
        metavar="SIZE",
        help="usable capacity of the fast tier, e.g. 500GB, 2TB, 100GiB, or a share of the "
        "database's tables and indexes, e.g. 50%% (required)",
    )
    p.add_argument(
        "--fast-latency",
        metavar="LATENCY",
        help=f"fast-tier latency per I/O, e.g. 0.5ms (default: {DEFAULT_FAST_LATENCY_MS} ms)",
    )
    p.add_argument(
        "--fast-run",
        metavar="DIR",
        type=Path,
        help="take the fast-tier latency from a dbstor run on that tier",
    )
    p.add_argument(
        "--slow-latency",
        metavar="LATENCY",
        help="slow-tier latency per I/O, e.g. 12ms (default: each object's "
        "observed stall per I/O, when the input has stall times)",
    )
    p.add_argument(
        "--slow-run",
        metavar="DIR",
        type=Path,
        help="take the slow-tier latency from a dbstor run on that tier",
    )
    p.add_argument(
        "--include-logs",
        action="store_true",
        help="let transaction logs and sequential writers compete for the fast tier",
    )
    p.add_argument(
        "--method",
        choices=("auto", "exact", "greedy"),
        default="auto",
        help="knapsack: exact when the object count allows (auto), or greedy",
    )
    p.add_argument(
        "--top",
        type=whole(0, MAX_COUNT),
        default=40,
        metavar="N",
        help="rows of the ranked table on the terminal (default: 40)",
    )


def _latency(text: str | None, folder: Path | None, flag: str) -> tuple[float | None, str | None]:
    if text is not None and folder is not None:
        raise UserError(f"give --{flag}-latency or --{flag}-run, not both")
    if folder is not None:
        from dbstor.analysis.placement.runs import tier_latency_ms

        return tier_latency_ms(folder, f"--{flag}-run")
    if text is None:
        return None, None
    try:
        value = parse_latency_ms(text)
    except ValueError as exc:
        raise UserError(f"--{flag}-latency: {exc}") from None
    if value <= 0:
        raise UserError(f"--{flag}-latency: {text!r}: a tier's latency is above 0, e.g. 0.5ms")
    return value, "given"


def check_values(args: argparse.Namespace) -> FastCapacity:
    """Every value flag of advise checked before any input is read (a study's [placement]
    table too, before its runs): the capacity, the latencies given as numbers, the slow
    tier slower than the fast one, the interval."""
    if not args.fast_capacity:
        raise UserError(
            "--fast-capacity is required: the usable size of the fast tier, e.g. 500GB or 50%"
        )
    try:
        capacity = parse_fast_capacity(args.fast_capacity)
    except ValueError as exc:
        raise UserError(f"--fast-capacity: {exc}") from None
    fast, _ = _latency(args.fast_latency, None, "fast")
    slow, _ = _latency(args.slow_latency, None, "slow")
    if slow is not None and fast is not None and slow <= fast:
        raise UserError(
            f"--slow-latency: {slow:g} ms is not slower than the fast tier ({fast:g} ms): "
            "check --slow-latency/--fast-latency"
        )
    try:
        parse_duration(args.interval)
    except ValueError as exc:
        raise UserError(f"--interval: {exc}") from None
    return capacity


def load_objects(args: argparse.Namespace) -> tuple[list[DbObject], list[str], dict[str, Any]]:
    """The objects from whichever source was given, notes, and a source description."""
    given = [
        name
        for name, value in (
            ("RUN_DIR", args.run_dir),
            ("--sqlserver", args.sqlserver),
            ("--oracle", args.oracle),
            ("--postgres", args.postgres),
        )
        if value
    ]
    if len(given) != 1:
        raise UserError(
            "give exactly one source: RUN_DIR, --sqlserver CSV, --oracle CSV or "
            f"--postgres DSN (got {', '.join(given) or 'none'})"
        )
    if args.run_dir:
        objects = inputs.parse_run(Path(args.run_dir))
        return (
            objects,
            [],
            {
                "format": "dbstor-run",
                "path": str(args.run_dir),
                "counted": f"the measured load points of run {Path(args.run_dir).name}",
            },
        )
    if args.postgres:
        from dbstor.analysis.placement.postgres import mask_dsn, read_postgres

        try:
            interval = parse_duration(args.interval)
        except ValueError as exc:
            raise UserError(f"--interval: {exc}") from None
        objects, notes, counted = read_postgres(args.postgres, interval)
        return (
            objects,
            notes,
            {
                "format": "postgres",
                "dsn": mask_dsn(args.postgres),
                "interval_s": interval,
                "counted": counted,
            },
        )
    fmt = "sqlserver" if args.sqlserver else "oracle"
    paths = args.sqlserver or args.oracle
    objects, notes, counted = inputs.load_files(fmt, list(paths))
    return objects, notes, {"format": fmt, "files": [str(p) for p in paths], "counted": counted}


def run(args: argparse.Namespace) -> int:
    """Handler of 'dbstor advise'."""
    result = advice(args)
    return emit_result(
        args,
        result,
        page=lambda: render_page(
            "dbstor advise: fast-tier placement", render_advise_section(result)
        ),
        text=lambda: format_text(result, args.top),
    )


def advice(args: argparse.Namespace) -> dict[str, Any]:
    """The placement advice of these flags (what --json prints); a study's [placement] too."""
    capacity = check_values(args)
    fast, fast_source = _latency(args.fast_latency, args.fast_run, "fast")
    slow, slow_source = _latency(args.slow_latency, args.slow_run, "slow")
    if fast is None:
        fast, fast_source = DEFAULT_FAST_LATENCY_MS, "default; set --fast-latency or --fast-run"
    if slow is not None and slow <= fast:
        raise UserError(
            f"the slow tier ({slow:g} ms) is not slower than the fast tier "
            f"({fast:g} ms); check --slow-latency/--fast-latency"
        )
    write_study_to = getattr(args, "write_study", None)  # absent in a hand-built Namespace
    if write_study_to and not args.run_dir:
        raise UserError("--write-study needs RUN_DIR, the dbstor run whose objects are ranked")
    objects, notes, source = load_objects(args)
    tiers = Tiers(
        capacity.bytes_for(0), fast, fast_source or "given", slow, slow_source, capacity.share
    )
    result = analyse(objects, tiers, include_logs=args.include_logs, method=args.method)
    result["source"] = source
    result["notes"] = [source["counted"], *notes, *result["notes"]]
    if write_study_to:
        from dbstor.commands.advise_study import write_study

        line = write_study(
            Path(args.run_dir), result, write_study_to, args.fast_path, args.fast_run
        )
        result["notes"].append(line)
    return result


def format_text(result: dict[str, Any], top: int = 40) -> str:
    """The terminal report: summary lines, the ranked table, notes and assumptions."""
    fast, res, skew = result["fast_tier"], result["result"], result["skew"]["point"]
    saved = res["stall_saved_ms"]
    lines = [
        f"Fast tier: {format_size(fast['capacity_bytes'])}{share_words(fast)}, "
        + (
            f"{fast['latency_ms']:g} ms per I/O ({fast['latency_source']})"
            if fast.get("latency_ms") is not None
            else f"latency {fast['latency_source']}"
        ),
        f"Chosen: {len(result['chosen'])} of {result['totals']['objects']} objects, "
        f"{format_size(res['used_bytes'])} ({res['capacity_share']:.1%} of the capacity), "
        f"{result['method']} knapsack on "
        + ("stall time saved" if result["objective"] == "stall_ms" else "I/O moved"),
        f"The fast tier would serve {res['io_share']:.1%} of the I/O"
        + (
            ""
            if saved is None
            else f" and save {stall_text(saved)} of stall ({(res['stall_saved_share'] or 0):.1%})"
        ),
        f"Skew point: {skew['io_share']:.1%} of the I/O in {skew['capacity_share']:.1%} "
        "of the capacity",
        "",
    ]
    header = (
        "#",
        "object",
        "kind",
        "size",
        "reads",
        "writes",
        "I/O/GiB",
        "I/O%",
        "ms/IO",
        "fast",
        "reason",
    )
    table = [header]
    for r in result["ranking"][: max(top, 0)]:
        table.append(
            (
                str(r["rank"]),
                r["name"],
                r["kind"],
                format_size(r["size_bytes"]),
                f"{r['reads']:,}",
                "-" if r["writes"] is None else f"{r['writes']:,}",
                "-" if r["density"] is None else f"{r['density']:,.0f}",
                f"{100 * r['io_share']:.1f}",
                "-" if r["avg_stall_ms"] is None else f"{r['avg_stall_ms']:.2f}",
                "yes" if r["chosen"] else "",
                r["reason"],
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    left = {1, 2}
    for row in table:
        cells = [
            c.ljust(widths[i]) if i in left else c.rjust(widths[i]) for i, c in enumerate(row[:-1])
        ]
        lines.append("  ".join(cells) + "  " + row[-1])
    hidden = len(result["ranking"]) - max(top, 0)
    if hidden > 0:
        lines.append(f"... {hidden} more (--top N, or --json)")
    lines.append("")
    lines.append("Notes:")
    lines.extend(f"  - {n}" for n in result["notes"])
    lines.append("Assumptions:")
    lines.extend(f"  - {a}" for a in result["assumptions"])
    return "\n".join(lines) + "\n"
