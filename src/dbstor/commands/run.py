"""dbstor run: a study file, a database run from flags, or the built-in default study."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from dbstor.commands import cluster_flags
from dbstor.commands.common import (
    add_repeats_flag,
    add_run_flags,
    add_steady_flags,
    check_steady_limit,
    finish,
    parse_flag,
    safety_from,
    steady_settings,
    with_events,
    with_tags,
)
from dbstor.commands.default_study import default_study
from dbstor.commands.flagtypes import COUNT, SEED
from dbstor.commands.run_series import series_from_flags
from dbstor.commands.target_flags import add_place_flag, parse_target, with_place
from dbstor.commands.telemetry_flags import add_telemetry_flags, with_telemetry
from dbstor.errors import UserError
from dbstor.study.load import load_study, parse_slo_metric
from dbstor.study.model import DEFAULT_RATE_USERS, DatabaseSpec, Study, Target
from dbstor.study.values import target_label
from dbstor.units import (
    first_repeat,
    parse_latency_ms,
    parse_memory,
    parse_option,
    parse_percent,
    parse_point_duration,
    parse_scale,
    parse_timeout,
    parse_warmup,
)

DSN_ENV = "DBSTOR_DSN"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a study file, a database from flags, or the default study",
        description=(
            "Run a study: every target x workload in the TOML file over its load series, then "
            "one report with the comparison normalised to the baseline. With --engine, run a "
            "real database on a target from flags. With neither, run the default study: "
            "brokerage on SQLite and the io-oltp fio sweep on ./dbstor-data, short points. "
            "See examples/ for study files and 'dbstor engines' for the engines usable here."
        ),
    )
    parser.add_argument(
        "study",
        nargs="?",
        type=Path,
        help="study file (TOML); omit for --engine flags or the default study",
    )
    db = parser.add_argument_group("a database from flags")
    _add_database_flags(db)
    load = parser.add_argument_group("load points (one of --users, --instances, --rate, --streams)")
    _add_load_flags(load)
    _add_workload_and_point_flags(db)
    add_place_flag(parser)
    add_telemetry_flags(parser)
    add_run_flags(parser)
    cluster_flags.add_cluster_flags(parser)
    flag_only = tuple(
        (action.dest, action.option_strings[0], action.default)
        for action in (*db._group_actions, *load._group_actions)
        if action.option_strings and action.dest != "engine"
    )
    parser.set_defaults(handler=run, flag_only=flag_only)


def _add_database_flags(db: argparse._ArgumentGroup) -> None:
    """Which engine, workload, target and server (the database from flags)."""
    db.add_argument(
        "--engine", help="sqlite (embedded), postgres, mariadb or mysql; see 'dbstor engines'"
    )
    db.add_argument(
        "--workload",
        default="brokerage",
        help="database workload (default brokerage: TPC-E-like OLTP)",
    )
    db.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="[ROLE=]PATH[,PATH...]",
        help="where the database goes: data=/mnt/lun1,/mnt/lun2 log=/mnt/log temp=/mnt/tmp fast=/mnt/flash (a bare path is data; fast holds what --place names)",
    )
    db.add_argument(
        "--label",
        help="the target's label in results and reports (default: the data directory's name)",
    )
    db.add_argument(
        "--dsn",
        help=f"an external server instead of a managed one (or set {DSN_ENV} to keep the password off the command line)",
    )
    db.add_argument(
        "--scale",
        default=None,
        help=(
            "workload scale (default per workload): brokerage customers (1000), orders "
            "warehouses (1), blocks rows per user (10000), dss TPC-H scale factor (1, fractions allowed)"
        ),
    )


def _add_load_flags(load: argparse._ArgumentGroup) -> None:
    """The load series: users, instances, rate or streams, and the client processes."""
    load.add_argument(
        "--users",
        default=None,
        help="virtual users per point, e.g. 1,2,4,8,16 (closed loop), or auto: doubled from 1 "
        "until throughput stops rising or the SLO is crossed, then measured at fractions of "
        "the best; with --instances or --rate: one number, the users per instance",
    )
    load.add_argument(
        "--instances",
        default=None,
        help="independent databases driven at once, e.g. 1,2,4,6,8, or auto (searched like --users auto)",
    )
    load.add_argument(
        "--rate",
        default=None,
        help=(
            "open loop: transactions per second per point, e.g. 100,200,400,800 (Poisson "
            f"arrivals served by --users users, default {DEFAULT_RATE_USERS}; latency from each "
            "transaction's intended start)"
        ),
    )
    load.add_argument(
        "--streams",
        default=None,
        help="query workloads (dss): concurrent query streams per point, e.g. 1,2,4 (default: one power run)",
    )
    load.add_argument(
        "--client-processes",
        default="auto",
        help=(
            "client processes the users are spread over (default auto: one, and one more "
            "for each further 128 users, at least one per core for an external server)"
        ),
    )


def _add_workload_and_point_flags(db: argparse._ArgumentGroup) -> None:
    """The workload's options, the engine's memory, and each point's timing and SLO."""
    db.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a workload option, e.g. --option all_warehouses=true --option procedures=false (see docs/<workload>.md)",
    )
    db.add_argument(
        "--update-pct",
        default=None,
        help="blocks: share of transactions that update (default 25, TR-4415's 75/25)",
    )
    db.add_argument(
        "--queries",
        default=None,
        help="dss: tr3476 (default: TR-3476's six), all (22), or a list such as 1,6,Q12",
    )
    db.add_argument(
        "--cold",
        action="store_true",
        help="dss: restart the engine and drop its files from the page cache before each point",
    )
    db.add_argument(
        "--query-timeout",
        default=None,
        help="dss: a query running longer than this fails (recorded) and the run goes on, e.g. 10min",
    )
    db.add_argument(
        "--think-time",
        default="0ms",
        help="mean think time between a user's transactions (default 0ms)",
    )
    db.add_argument(
        "--buffer",
        default=None,
        help="the engine's own cache size, e.g. 32MiB (small by default so the storage works)",
    )
    db.add_argument(
        "--memory-limit",
        default=None,
        help="cap a managed server's memory with a cgroup, e.g. 512MiB",
    )
    db.add_argument(
        "--seed", type=SEED, default=1, help="data and transaction random seed (default 1)"
    )
    db.add_argument("--duration", default="30s", help="measured time per point (default 30s)")
    db.add_argument("--warmup", default="10s", help="warm-up before each point (default 10s)")
    add_repeats_flag(db)
    add_steady_flags(db)
    db.add_argument("--slo", default="1ms", help="latency limit for the knee (default 1ms)")
    db.add_argument(
        "--slo-metric",
        default=None,
        help="which latency the SLO limits (default read_lat_mean_ms: device read await)",
    )


def _options(args: argparse.Namespace) -> dict[str, object]:
    pairs = [parse_flag("--option", parse_option, item) for item in args.option]
    twice = first_repeat(key for key, _ in pairs)
    if twice is not None:
        raise UserError(f"--option: {twice} is given twice: give each option once")
    options = dict(pairs)
    if args.update_pct is not None:
        options["update_pct"] = parse_flag("--update-pct", parse_percent, args.update_pct)
    if args.queries is not None:
        options["queries"] = args.queries
    return options


def _client_processes(text: str, external: bool) -> int:
    if text == "auto":
        from dbstor.drivers.processes import AUTO

        return AUTO  # per point, by its users (drivers/processes.py processes_for)
    try:
        return COUNT(text)
    except argparse.ArgumentTypeError as exc:
        raise UserError(f"--client-processes: {exc}, or auto") from None


def study_from_flags(args: argparse.Namespace) -> Study:
    dsn = args.dsn or os.environ.get(DSN_ENV, "").strip() or None  # set but empty: not set
    if not args.target and dsn is None:
        raise UserError(
            "--engine needs --target (where the database goes) or --dsn (an external server)"
        )
    target = (
        parse_target(args.target, args.label)
        if args.target
        else Target(
            label=parse_flag("--label", target_label, args.label) if args.label else "external",
            paths=(),
        )
    )
    spec = DatabaseSpec(
        engine=args.engine,
        workload=args.workload,
        scale=parse_flag("--scale", parse_scale, args.scale) if args.scale else None,
        series=series_from_flags(args),
        think_time_ms=parse_flag("--think-time", parse_latency_ms, args.think_time),
        client_processes=_client_processes(args.client_processes, dsn is not None),
        options=_options(args),
        cold=args.cold,
        query_timeout_s=parse_flag("--query-timeout", parse_timeout, args.query_timeout)
        if args.query_timeout
        else None,
        dsn=dsn,
        buffer_bytes=parse_flag("--buffer", parse_memory, args.buffer) if args.buffer else None,
        memory_limit_bytes=parse_flag("--memory-limit", parse_memory, args.memory_limit)
        if args.memory_limit
        else None,
        seed=args.seed,
    )
    limit = parse_flag("--slo", parse_latency_ms, args.slo)
    if limit <= 0:
        raise UserError("--slo: must be above zero, e.g. 1ms")
    return check_steady_limit(
        Study(
            name=f"{args.workload} on {args.engine}, {target.label}",
            targets=(target,),
            profiles=(),
            databases=(spec,),
            duration_s=parse_flag("--duration", parse_point_duration, args.duration),
            warmup_s=parse_flag("--warmup", parse_warmup, args.warmup),
            repeats=args.repeats,
            **steady_settings(args),
            slo_metric=parse_flag("--slo-metric", parse_slo_metric, args.slo_metric)
            if args.slo_metric
            else None,
            slo_limit_ms=limit,
            source="command line",
        )
    )


def _refuse_ignored_flags(args: argparse.Namespace) -> None:
    """A study file, or the default study, takes none of the database flags: one given
    would be ignored without a word, so it is refused naming where the setting goes."""
    given = [flag for dest, flag, default in args.flag_only if getattr(args, dest) != default]
    if not given:
        return
    if args.study:
        raise UserError(
            f"{given[0]} does not apply to a study file: set it in {args.study} (see "
            "docs/studies.md), or drop the file and give --engine"
        )
    raise UserError(f"{given[0]} needs --engine (a database from flags), e.g. --engine sqlite")


def run(args: argparse.Namespace) -> int:
    # the run machinery is imported here, when a run starts, not by `dbstor --help`
    from dbstor.commands.study_analyses import check_as_run_would, print_pdf, run_with_analyses
    from dbstor.runs.progress import Progress

    if args.study and args.engine:
        raise UserError("give a study file or --engine flags, not both")
    if not args.engine:
        _refuse_ignored_flags(args)
    if args.study:
        study = load_study(args.study)
        cluster_flags.check_cluster_flags_beside(study, args)
    cluster_flags.check_cluster_flags(args, DSN_ENV)
    if args.engine:
        study = study_from_flags(args)
    elif not args.study:
        study = default_study()
    study = with_place(with_telemetry(study, args), args.place)
    check_as_run_would(study)  # the one validation `dbstor study FILE` makes too
    progress = Progress(quiet=args.quiet)
    outcome = cluster_flags.run_on_cluster(study, args, safety_from(args), progress)
    if outcome is None:  # this host
        outcome = run_with_analyses(
            with_events(with_tags(study, args), args), args.out, safety_from(args), progress
        )
    print_pdf(study, outcome, progress)
    return finish(outcome, args, progress)
