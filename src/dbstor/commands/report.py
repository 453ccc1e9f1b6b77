"""dbstor report: render a run's or a study's report.html again from its results."""

from __future__ import annotations

import argparse
from pathlib import Path

from dbstor.analysis.compare import compare_runs
from dbstor.runs.study import STUDY_FILE, load_folder, render


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="render report.html again from a run or study folder",
        description="Render report.html again from the results in a run folder or a study folder.",
    )
    parser.add_argument(
        "folder", type=Path, help="a run folder (results.json) or a study folder (study.json)"
    )
    parser.add_argument(
        "--baseline", metavar="LABEL", help="for a study: the run the comparison normalises to"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    runs, _ = load_folder(args.folder)
    comparison = compare_runs(runs, args.baseline) if len(runs) > 1 else None
    title = (
        runs[0].study.get("name", runs[0].run_id)
        if (args.folder / STUDY_FILE).exists()
        else runs[0].run_id
    )
    path = render(args.folder, runs, comparison, str(title))
    print(path)
    return 0
