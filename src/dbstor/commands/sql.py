"""dbstor sql: the schema, stored routines and transactions or queries dbstor would run, in
one engine's dialect, printed without connecting anywhere, so that a DBA can read them
before pointing dbstor at a production-like server."""

from __future__ import annotations

import argparse

from dbstor.commands.common import parse_flag
from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.engines.registry import engine_class
from dbstor.errors import UserError
from dbstor.units import parse_scale
from dbstor.workloads.base import Workload
from dbstor.workloads.registry import WORKLOADS, workload_class
from dbstor.workloads.script import Section


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sql",
        help="print the SQL dbstor would run on an engine, without connecting",
        description=(
            "Print, in the engine's own SQL dialect, the schema (tables, keys, indexes, "
            "statistics), the stored routines (procedures and functions) and the transactions "
            "or queries dbstor would run for a workload, without connecting anywhere: read them "
            "before pointing dbstor at a production-like server, or load the schema yourself. "
            "The orders and brokerage transactions show sample values (orders' calls name "
            "each parameter), so they paste into the engine's own client on a loaded "
            "database; blocks shows the driver's placeholders (%s or ?), bound at run time. "
            "Then 'dbstor engines "
            "--check --engine E --dsn DSN --workload W' tries them on the server in a scratch "
            "schema."
        ),
    )
    parser.add_argument("--engine", required=True, help="the engine, e.g. postgres, mariadb")
    parser.add_argument("--workload", required=True, help=f"the workload: {', '.join(WORKLOADS)}")
    parser.add_argument(
        "--scale",
        help="the workload's scale (default per workload; it changes some types and batches)",
    )
    parser.set_defaults(handler=run)


def render(section: Section, dialect: str) -> list[str]:
    """A section as script lines: a comment heading, then its statements."""
    own = registry.get(dialect)
    note = f" ({section.note})" if section.note else ""
    lines = [f"-- == {section.title}{note} =="]
    if not section.statements and not section.named:
        lines.append("-- (none on this engine)")
    lines += [own.script_statement(s) for s in section.statements]
    for name, text in section.named.items():
        texts = [text] if isinstance(text, str) else list(text)
        lines += [f"-- {name}", *(own.script_statement(t) for t in texts)]
    return [*lines, ""]


def run(args: argparse.Namespace) -> int:
    engine = engine_class(args.engine)
    cls = workload_class(args.workload)
    scale = parse_flag("--scale", parse_scale, args.scale) if args.scale else cls.default_scale
    workload = cls(scale)
    if engine.dialect not in workload.dialects:
        raise UserError(
            f"the {workload.name} workload has no SQL for {engine.title} ({engine.dialect}); "
            f"it runs on {', '.join(workload.dialects)}"
        )
    return emit(workload, engine)


def emit(workload: Workload, engine: type[Engine]) -> int:
    """Print the workload's script in the engine's dialect."""
    print(
        f"-- dbstor sql: {workload.name} at scale {workload.scale:g} ({workload.scale_unit}) "
        f"on {engine.title}, dialect {engine.dialect}; in the order dbstor runs it"
    )
    print()
    for section in workload.script(engine.dialect):
        print("\n".join(render(section, engine.dialect)))
    return 0
