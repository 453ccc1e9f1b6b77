"""dbstor engines: which engines exist, which are usable here, and why not."""

from __future__ import annotations

import argparse
import json
import os
import sys

from rich.console import Console

from dbstor.engines.registry import all_engines
from dbstor.errors import UserError
from dbstor.report.kit.terminal import fitted_table

DSN_ENV = "DBSTOR_DSN"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "engines",
        help="list the database engines, which are usable here, and why not",
        description=(
            "List every database engine dbstor knows, whether it can run on this machine, and "
            "why not. With --check --engine E [--dsn DSN]: what a DBA checks before a study: "
            "connect, run every query the engine's counters need once and print what works and "
            "what is missing (a privilege, a setting, a version), exit 0 when all work, 2 when "
            "something is missing or the server cannot be reached. Without --dsn the check uses "
            "a scratch database in a temporary folder, removed afterwards. With --workload W it "
            "also builds W at a small scale in dbstor's own schema or database, runs each "
            "transaction type or query once (result and time) and removes what it made."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    check = parser.add_argument_group("checking one engine before a study")
    check.add_argument(
        "--check",
        action="store_true",
        help="check one engine (--engine): its counter queries and, with --workload, the workload",
    )
    check.add_argument("--engine", help="the engine to check, e.g. postgres, mariadb, sqlite")
    check.add_argument(
        "--dsn",
        help=f"an external server, e.g. postgresql://user@host:5432/db (or set {DSN_ENV} to "
        "keep the password off the command line)",
    )
    check.add_argument(
        "--workload",
        help="also build this workload in dbstor's own schema and run each transaction once",
    )
    check.add_argument(
        "--scale",
        help="the workload's scale for --workload (default: the smallest dbstor tries it at)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.check:
        given = [f for f in ("engine", "dsn", "workload", "scale") if getattr(args, f)]
        if given:
            raise UserError(f"--{given[0]} belongs to --check: add --check, or leave it out")
    else:
        from dbstor.commands.engine_check import check

        if args.json:
            raise UserError("--json lists the engines; leave it out with --check")
        if not args.engine:
            raise UserError("--check needs --engine, e.g. --check --engine postgres --dsn ...")
        if args.scale and not args.workload:
            raise UserError("--scale is the workload's scale: add --workload, or leave it out")
        dsn = args.dsn or os.environ.get(DSN_ENV, "").strip() or None
        return check(args.engine, dsn, args.workload, args.scale, lambda line: print(line))
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
    table = fitted_table(None, ["engine", "what", "usable here", "why"])
    for name, title, _, availability in rows:
        usable = "planned" if availability.planned else ("yes" if availability.usable else "no")
        style = "green" if availability.usable else ("dim" if availability.planned else "yellow")
        table.add_row(name, title, usable, availability.reason, style=style)
    Console().print(table)
    return 0
