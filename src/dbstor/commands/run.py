"""dbstor run: a study from a TOML file, or the built-in default study."""

from __future__ import annotations

import argparse
from pathlib import Path

from dbstor.commands.common import add_run_flags, finish, safety_from
from dbstor.progress import Progress
from dbstor.study.load import load_study
from dbstor.study.model import Study, Target
from dbstor.study.profiles import BUILTIN_PROFILES
from dbstor.study_runner import run_study

DEFAULT_DATA_DIR = Path("dbstor-data")


def default_study(data_dir: Path = DEFAULT_DATA_DIR) -> Study:
    """The main job: the io-oltp sweep on ./dbstor-data with short points (about a minute)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return Study(
        name="default study: io-oltp on ./dbstor-data",
        targets=(Target(label="dbstor-data", paths=(data_dir.absolute(),)),),
        profiles=(BUILTIN_PROFILES["io-oltp"],),
        duration_s=5.0,
        warmup_s=2.0,
        file_size=512 * 1024**2,
        source="built-in default",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a study file (several targets and profiles, one report), or the default study",
        description=(
            "Run a study: every target x profile in the TOML file over its load series, then "
            "one report with the comparison normalised to the baseline. With no file, runs the "
            "default study: the io-oltp sweep on ./dbstor-data with short points. "
            "See examples/ for study files."
        ),
    )
    parser.add_argument(
        "study", nargs="?", type=Path, help="study file (TOML); omit for the default study"
    )
    add_run_flags(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    study = load_study(args.study) if args.study else default_study()
    progress = Progress(quiet=args.quiet)
    outcome = run_study(study, args.out, safety_from(args), progress)
    return finish(outcome, args, progress)
