"""dbstor engines: which engines exist, which are usable here, and why not."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from dbstor.engines.registry import all_engines


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "engines",
        help="list the database engines, which are usable here, and why not",
        description="List every database engine dbstor knows, whether it can run on this machine, and why not.",
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rows = all_engines()
    if args.json:
        json.dump(
            [
                {
                    "name": n,
                    "title": t,
                    "dialect": d,
                    "usable": a.usable,
                    "planned": a.planned,
                    "reason": a.reason,
                }
                for n, t, d, a in rows
            ],
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
        return 0
    table = Table(header_style="bold")
    for header in ("engine", "what", "usable here", "why"):
        table.add_column(header)
    for name, title, _, availability in rows:
        usable = "planned" if availability.planned else ("yes" if availability.usable else "no")
        style = "green" if availability.usable else ("dim" if availability.planned else "yellow")
        table.add_row(name, title, usable, availability.reason, style=style)
    Console().print(table)
    return 0
