"""Flags and output shared by the commands that run studies (run, io)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from dbstor.commands.flagtypes import COUNT
from dbstor.errors import UserError
from dbstor.study.events import FLAG_HELP, event_from_flag
from dbstor.study.tags import flag_tags, tags_from
from dbstor.testfiles import Safety
from dbstor.units import parse_point_duration

if TYPE_CHECKING:  # the run machinery is imported by the commands that run, not by --help
    from dbstor.results.model import Point, Run
    from dbstor.runs.progress import Progress
    from dbstor.runs.study import StudyOutcome
    from dbstor.study.model import Study

T = TypeVar("T")


def add_repeats_flag(group: argparse._ActionsContainer) -> None:
    """--repeats, for every run kind: each point measured N times, the spread reported."""
    group.add_argument(
        "--repeats",
        type=COUNT,
        default=1,
        help="measure each point N times; the spread of throughput is reported (default 1)",
    )


def add_steady_flags(group: argparse._ActionsContainer, default: str = "auto") -> None:
    """--steady and --max-duration: each point held until its throughput is steady."""
    group.add_argument(
        "--steady",
        choices=("auto", "off"),
        default=default,
        help="auto: run each point until its throughput is steady, up to --max-duration; "
        f"off: each point runs its --duration only (default {default})",
    )
    group.add_argument(
        "--max-duration",
        default=None,
        help="the longest a point may run to get steady, warm-up included "
        "(default: the warm-up and four times --duration)",
    )


def steady_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The Study's steady and max_duration_s from --steady and --max-duration."""
    limit = (
        parse_flag("--max-duration", parse_point_duration, args.max_duration)
        if args.max_duration
        else None
    )
    return {"steady": args.steady, "max_duration_s": limit}


def check_steady_limit(study: Study) -> Study:
    """--max-duration shorter than the warm-up and one measured window: refused."""
    problem = study.steady_problem("--warmup and --duration together")
    if problem is not None:
        raise UserError(f"--max-duration {problem}")
    return study


def add_run_flags(parser: argparse.ArgumentParser) -> None:
    out = parser.add_argument_group("results and safety")
    out.add_argument(
        "--out",
        type=Path,
        default=Path("results"),
        help="folder for run folders (default: ./results)",
    )
    out.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a word of your own on every run (repeatable), e.g. --tag firmware=9.14; "
        "added to a study file's [study] tags",
    )
    out.add_argument(
        "--event",
        action="append",
        default=[],
        metavar="KIND@AT[,K=V]",
        help="an event inside each point (repeatable; docs/events.md): " + FLAG_HELP,
    )
    out.add_argument("--json", action="store_true", help="print the run summary as JSON on stdout")
    out.add_argument("--quiet", action="store_true", help="no progress on stderr")
    out.add_argument(
        "--keep",
        action="store_true",
        help="keep the test files at the end (a later run reuses them)",
    )
    out.add_argument(
        "--allow-overwrite",
        action="store_true",
        help="let dbstor overwrite existing files it did not create",
    )
    out.add_argument(
        "--i-know-this-destroys-data",
        dest="destroy_device",
        action="store_true",
        help="with --allow-overwrite: allow a block device as the target (its data is destroyed)",
    )


def with_tags(study: Study, args: argparse.Namespace) -> Study:
    """The study with --tag KEY=VALUE added to its own tags (a flag wins over the file)."""
    if not args.tag:
        return study
    try:
        tags = tags_from([*study.tags.items(), *flag_tags(args.tag).items()])
    except ValueError as exc:
        raise UserError(f"--tag: {exc}") from None
    return replace(study, tags=tags)


def with_events(study: Study, args: argparse.Namespace) -> Study:
    """The study with --event added to its own [[events]], checked as a study file's are."""
    if not getattr(args, "event", None):
        return study
    return replace(study, events=(*study.events, *(event_from_flag(t) for t in args.event)))


def safety_from(args: argparse.Namespace) -> Safety:
    return Safety(
        allow_overwrite=args.allow_overwrite, destroy_device=args.destroy_device, keep=args.keep
    )


def parse_flag(flag: str, parse: Callable[[str], T], text: str) -> T:
    """Parse a flag's value, turning a parse error into one line that names the flag."""
    try:
        return parse(text)
    except ValueError as exc:
        raise UserError(f"{flag}: {exc}") from None


def point_summary(point: Point) -> dict[str, Any]:
    read, write = point.read_lat_ms, point.write_lat_ms
    return {
        "load": {"kind": point.load.kind, "value": point.load.value},
        "series": point.series,
        "status": point.status,
        "iops": point.iops,
        "read_iops": point.read_iops,
        "write_iops": point.write_iops,
        "read_p99_ms": read.p99 if read else None,
        "write_p99_ms": write.p99 if write else None,
        "cpu_util_pct": point.cpu.util_pct if point.cpu else None,
        "saturated": point.saturated,
    }


def run_summary(run: Run, folder: Path) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "folder": str(folder),
        "report": str(folder / "report.html"),
        "status": run.status,
        "target": run.target.get("label"),
        "workload": run.workload.get("name"),
        "slo": run.slo,
        "peak": run.peak,
        "knee": run.knee,
        "points": [point_summary(p) for p in run.points],
    }


def finish(outcome: StudyOutcome, args: argparse.Namespace, progress: Progress) -> int:
    """Print the terminal summary (and --json on stdout) for a finished study."""
    if not args.quiet:
        from dbstor.report.console import print_comparison, print_run_summary

        for run in outcome.runs:
            print_run_summary(run, progress.console)
        if outcome.comparison:
            print_comparison(outcome.comparison, progress.console)
        progress.say(f"report: {outcome.folder / 'report.html'}")
    if args.json:
        summary: dict[str, Any] = {
            "folder": str(outcome.folder),
            "runs": [
                run_summary(r, f) for r, f in zip(outcome.runs, outcome.run_folders, strict=True)
            ],
            "comparison": outcome.comparison,
        }
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0
