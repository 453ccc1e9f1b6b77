"""dbstor io: one fio sweep (or several targets/profiles) from flags, and a report."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

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
from dbstor.commands.flagtypes import COUNT
from dbstor.commands.telemetry_flags import add_telemetry_flags, with_telemetry
from dbstor.errors import UserError
from dbstor.study.data import DATA_HELP, parse_data_pattern
from dbstor.study.load import parse_slo_metric, resolve_profile
from dbstor.study.model import LoadSeries, Study, Target
from dbstor.study.profiles import BUILTIN_PROFILES
from dbstor.study.values import label_from_name, repeated_path, target_label
from dbstor.units import (
    first_repeat,
    parse_int_list,
    parse_latency_ms,
    parse_point_duration,
    parse_size,
    parse_warmup,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    profiles = "\n".join(f"  {p.name:<10} {p.description}" for p in BUILTIN_PROFILES.values())
    parser = subparsers.add_parser(
        "io",
        help="characterise storage with database-shaped fio load at rising load points",
        description=(
            "Run a database-shaped fio profile at rising load points against a target "
            "directory, find the peak and the knee under the SLO, and write a report."
        ),
        epilog=f"profiles:\n{profiles}\n\nsee docs/profiles.md for the source of each shape",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--target",
        action="append",
        required=True,
        metavar="[LABEL=]PATH[,PATH...]",
        help="directory (or block device) to test; repeat for several targets, compared in one report",
    )
    parser.add_argument(
        "--profile",
        action="append",
        metavar="NAME",
        help="fio profile (default io-oltp); repeat or comma-separate for several",
    )
    _add_series_flags(parser)
    _add_point_flags(parser)
    add_telemetry_flags(parser)
    add_run_flags(parser)
    hosts = parser.add_argument_group("several hosts, through Ray (pip install 'dbstor[cluster]')")
    hosts.add_argument(
        "--cluster",
        metavar="ADDR",
        help="the Ray head, HOST:PORT: run the profile on every host of --hosts at once, "
        "one merged curve (see docs/cluster.md)",
    )
    hosts.add_argument(
        "--hosts", metavar="H1,H2", help="with --cluster: the hosts to run on (default: all)"
    )
    parser.set_defaults(handler=run)


def _add_series_flags(parser: argparse.ArgumentParser) -> None:
    """The load series: queue depths, job counts, rates or auto, and the jobs per point."""
    series = parser.add_mutually_exclusive_group()
    series.add_argument(
        "--iodepth",
        metavar="LIST",
        help="closed loop: queue depths, e.g. 1,2,4,8,16,32,64 (the profile's default series)",
    )
    series.add_argument(
        "--numjobs", metavar="LIST", help="closed loop: numbers of fio jobs, e.g. 1,2,4,8"
    )
    series.add_argument(
        "--rate",
        metavar="LIST",
        help="open loop: target IOPS with Poisson arrivals, e.g. 5000,10000,20000",
    )
    series.add_argument(
        "--auto",
        action="store_true",
        help="find the peak, then measure at 10,50,70,80,90,100%% of it",
    )
    parser.add_argument(
        "--jobs",
        type=COUNT,
        default=1,
        metavar="N",
        help="fio jobs at every point of a queue-depth or rate series (default 1)",
    )


def _add_point_flags(parser: argparse.ArgumentParser) -> None:
    """Each point's timing, file size, SLO, steadiness, preconditioning, data and facts."""
    parser.add_argument("--duration", default="30s", help="measured time per point (default 30s)")
    parser.add_argument(
        "--warmup", default="5s", help="warm-up before each point is measured (default 5s)"
    )
    parser.add_argument(
        "--size",
        default="1GiB",
        help="total size of the test files (default 1GiB); make it larger than any cache you do not want to measure",
    )
    parser.add_argument("--slo", default="1ms", help="latency limit for the knee (default 1ms)")
    parser.add_argument(
        "--slo-metric",
        default=None,
        help="which latency the SLO limits (default read_lat_p99_ms; io-log: write_lat_p99_ms)",
    )
    add_repeats_flag(parser)
    add_steady_flags(parser, default="off")  # a sweep of fixed points unless asked
    parser.add_argument(
        "--precondition",
        action="store_true",
        help="write the files until IOPS are steady before measuring (flash)",
    )
    parser.add_argument(
        "--data", default="incompressible", help=f"what the writes write: {DATA_HELP}"
    )
    parser.add_argument(
        "--fact",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a fact about the target for the report, e.g. protocol=FC, drives=24",
    )
    parser.add_argument(
        "--baseline",
        metavar="LABEL",
        help="target label the comparison normalises to (default: the first)",
    )


def _target(text: str, index: int, facts: dict[str, object]) -> Target:
    label, sep, paths_text = text.partition("=")
    if not sep:
        label, paths_text = "", text
    paths = tuple(Path(p).expanduser().absolute() for p in paths_text.split(",") if p)
    if not paths:
        raise UserError(
            f"--target {text!r}: give a path, e.g. --target /mnt/lun1 or --target FC=/mnt/fc"
        )
    whole = Path(text).expanduser()
    if sep and os.path.lexists(whole) and not all(os.path.lexists(p) for p in paths):
        raise UserError(  # a folder named with '=': say how it was read, not "b is missing"
            f"--target {text!r} reads as LABEL=PATH (label {label!r}); for the path {whole} "
            f"give a label first: --target T={text}"
        )
    twice = repeated_path(paths)
    if twice is not None:
        raise UserError(f"--target {text!r}: {twice} is given twice: give each folder once")
    if sep:
        label = parse_flag("--target", target_label, label)
    else:
        label = label_from_name(paths[0].name, f"T{index + 1}")
    return Target(label=label, paths=paths, facts=facts)


def _facts(items: list[str]) -> dict[str, object]:
    facts: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"--fact {item!r}: write KEY=VALUE, e.g. --fact protocol=FC")
        if key in facts:
            raise UserError(f"--fact {item!r}: {key} is given twice: give each fact once")
        facts[key] = int(value) if value.isdigit() else value
    return facts


def study_from_args(args: argparse.Namespace) -> Study:
    names = [
        n.strip() for item in (args.profile or ["io-oltp"]) for n in item.split(",") if n.strip()
    ]
    twice = first_repeat(names)
    if twice is not None:
        raise UserError(f"--profile: {twice} is named twice: name each profile once")
    profiles = tuple(resolve_profile(n) for n in names)
    facts = _facts(args.fact)
    targets = tuple(_target(t, i, facts) for i, t in enumerate(args.target))
    if len({t.label for t in targets}) != len(targets):
        raise UserError(
            "--target: two targets have the same label; name them, e.g. --target FC=/mnt/fc --target ISCSI=/mnt/iscsi"
        )
    series = None
    if args.iodepth:
        series = LoadSeries(
            "iodepth", tuple(parse_flag("--iodepth", parse_int_list, args.iodepth)), jobs=args.jobs
        )
    elif args.numjobs:
        if args.jobs != 1:  # accepted and then ignored, before: refused
            raise UserError(
                "--jobs does not apply to --numjobs (its values are the jobs): drop one"
            )
        series = LoadSeries("jobs", tuple(parse_flag("--numjobs", parse_int_list, args.numjobs)))
    elif args.rate:
        series = LoadSeries(
            "rate",
            tuple(parse_flag("--rate", parse_int_list, args.rate)),
            jobs=args.jobs,
            iodepth=64,
        )
    elif args.auto:
        series = LoadSeries("auto", jobs=args.jobs)
    limit = parse_flag("--slo", parse_latency_ms, args.slo)
    if limit <= 0:
        raise UserError("--slo: must be above zero, e.g. 1ms")
    metric = (
        parse_flag("--slo-metric", parse_slo_metric, args.slo_metric) if args.slo_metric else None
    )
    duration = parse_flag("--duration", parse_point_duration, args.duration)
    size = parse_flag("--size", parse_size, args.size)
    if size < 1024 * 1024:
        raise UserError("--size: must be at least 1MiB")
    labels = [t.label for t in targets]
    if args.baseline and args.baseline not in labels:
        raise UserError(f"--baseline {args.baseline!r} is not a target label: {', '.join(labels)}")
    return check_steady_limit(
        Study(
            name=f"{'+'.join(names)} on {', '.join(labels)}",
            targets=targets,
            profiles=profiles,
            series=series,
            duration_s=duration,
            warmup_s=parse_flag("--warmup", parse_warmup, args.warmup),
            repeats=args.repeats,
            **steady_settings(args),
            file_size=size,
            slo_metric=metric,
            slo_limit_ms=limit,
            precondition=args.precondition,
            baseline=args.baseline,
            source="command line",
            data=parse_data_pattern(args.data),
        )
    )


def run(args: argparse.Namespace) -> int:
    # imported when the command runs, not by `dbstor --help`
    from dbstor.runs.progress import Progress
    from dbstor.runs.study import run_study

    study = study_from_args(args)
    study = with_telemetry(study, args)
    if args.hosts and not args.cluster:
        raise UserError("--hosts needs --cluster ADDR (the Ray head), e.g. --cluster head:6379")
    progress = Progress(quiet=args.quiet)
    if args.cluster:  # only here is Ray imported
        from dbstor.cluster.runs import run_study_on_hosts

        outcome = run_study_on_hosts(
            args.cluster, args.hosts, study, args.out, safety_from(args), progress
        )
    else:
        outcome = run_study(
            with_events(with_tags(study, args), args), args.out, safety_from(args), progress
        )
    return finish(outcome, args, progress)
