"""dbstor capacity: usable capacity of drives after right-sizing, partitioning, RAID and reserves."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dbstor.commands.flagtypes import whole
from dbstor.errors import UserError
from dbstor.units import parse_percent, parse_size

EPILOG = """\
examples:
  dbstor capacity --drives 48x800GB --raid raid-dp --raid-group 23 --spares 2 --partitioning root-data
  dbstor capacity --drives 12x3.84TB --raid raid6 --raid-group 6 --fs-reserve 5%
  dbstor capacity --drives 24x1TB --raid raid-dp --right-size netapp --json

Every deduction is printed as a line with its source; worked examples of the seed reports'
configurations are in docs/efficiency.md.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from dbstor.analysis.capacity import PARTITIONING
    from dbstor.analysis.capacity_data import RAID_LEVELS

    p = subparsers.add_parser(
        "capacity",
        help="usable capacity of a set of drives after right-sizing, RAID, spares and reserves",
        description=(
            "Walk from raw drive capacity to usable capacity: right-sizing, drive partitioning, "
            "spares, RAID parity and file-system reserves, one line per deduction."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--drives", required=True, help="COUNTxSIZE, e.g. 48x800GB (sizes as sold, decimal)"
    )
    p.add_argument(
        "--raid", default="raid-dp", choices=tuple(RAID_LEVELS), help="RAID type (default raid-dp)"
    )
    p.add_argument(
        "--raid-group",
        type=whole(2, 100_000),
        help="members per RAID group, parity included (default per type)",
    )
    p.add_argument(
        "--spares", type=whole(0, 100_000), default=0, help="whole spare drives (default 0)"
    )
    p.add_argument(
        "--partitioning", default="none", choices=PARTITIONING, help="ONTAP drive partitioning"
    )
    p.add_argument(
        "--root-partition", help="root partition size per drive, e.g. 54GiB (with --partitioning)"
    )
    p.add_argument(
        "--right-size",
        default="none",
        help="none (default), netapp (NetApp's right-sized table for HDDs) or a size per drive, e.g. 745GiB",
    )
    p.add_argument(
        "--fs-reserve",
        help="file-system reserve, e.g. 10%% (default: 10%% for ONTAP RAID types, else 0)",
    )
    p.add_argument(
        "--snap-reserve", default="0", help="aggregate snapshot reserve, e.g. 5%% (default 0)"
    )
    p.add_argument("--json", action="store_true", help="print the walk as JSON on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = walk(args)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_walk(result)
    return 0


def walk(args: argparse.Namespace) -> dict[str, Any]:
    """The capacity walk of these flags (what --json prints); a study's [capacity] too."""
    from dbstor.analysis.capacity import parse_drives, usable

    try:
        drives = parse_drives(args.drives)
    except ValueError as exc:
        raise UserError(f"--drives: {exc}") from None
    root = None
    if args.root_partition:
        if args.partitioning == "none":
            raise UserError("--root-partition needs --partitioning root-data or root-data-data")
        try:
            root = parse_size(args.root_partition)
        except ValueError as exc:
            raise UserError(f"--root-partition: {exc}") from None
    try:
        fs = parse_percent(args.fs_reserve) if args.fs_reserve is not None else None
        snap = parse_percent(args.snap_reserve)
    except ValueError as exc:
        raise UserError(f"reserve: {exc}") from None
    try:
        return usable(
            drives,
            raid=args.raid,
            raid_group=args.raid_group,
            spares=args.spares,
            partitioning=args.partitioning,
            root_partition=root,
            right_size=args.right_size,
            fs_reserve_pct=fs,
            snap_reserve_pct=snap,
        )
    except ValueError as exc:
        raise UserError(f"capacity: {exc}") from None


def print_walk(result: dict[str, Any]) -> None:
    """One line per step: what it takes, what is left (TB decimal and TiB binary)."""
    w = sys.stdout.write
    w(f"{'step':<14}{'takes':>12}{'left TB':>11}{'left TiB':>11}  what\n")
    for line in result["deductions"]:
        takes = f"{-line['deduct_bytes'] / 1e12:.3f}" if line["deduct_bytes"] else ""
        w(
            f"{line['step']:<14}{takes:>12}{line['remaining_tb']:>11.3f}{line['remaining_tib']:>11.3f}  {line['label']}\n"
        )
        if line["source"]:
            w(f"{'':48}source: {line['source']}\n")
    w(
        f"\nraw {result['raw_tb']:.2f} TB -> usable {result['usable_tb']:.2f} TB "
        f"({result['usable_tib']:.2f} TiB, {result['usable_pct_of_raw']:.1f}% of raw)\n"
    )
    for note in result["notes"]:
        w(f"note: {note}\n")
