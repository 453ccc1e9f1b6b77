"""dbstor report: render a run's or a study's report.html again from its results."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dbstor.errors import UserError
from dbstor.safefs import check_writable, refuse_link

if TYPE_CHECKING:
    from dbstor.results.model import Run


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
    parser.add_argument(
        "--pdf",
        action="store_true",
        help="also print the report to report.pdf through headless Chromium",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # imported when the command runs, not by `dbstor --help`
    from dbstor.analysis.study_compare import study_comparison
    from dbstor.report.pdf import PDF_FILE, write_pdf
    from dbstor.runs.study import STUDY_FILE, load_folder, missing_runs_note, render

    refuse_link(args.folder, "report")  # report.html goes in it: never through a link
    runs, _ = load_folder(args.folder)
    # the study's own comparison (runs/study.py writes it with the same function)
    baseline = args.baseline or (runs[0].study or {}).get("baseline")
    comparison = study_comparison(runs, baseline)
    gone = missing_runs_note(args.folder)
    if gone:
        print(f"dbstor: warning: {gone}", file=sys.stderr)
        if comparison is not None:  # and the report says it too
            comparison["warnings"] = [*comparison.get("warnings", []), gone]
    if args.baseline is not None:
        check_baseline(args.baseline, runs, comparison)
    title = (
        runs[0].study.get("name", runs[0].run_id)
        if (args.folder / STUDY_FILE).exists()
        else ""  # one run: the title the run gave it (report.html.run_title), not its id
    )
    if args.pdf:  # checked before report.html is written: a refusal leaves both as they were
        check_writable(
            args.folder / PDF_FILE,
            fix="copy the folder where you can write and run dbstor report there",
        )
    path = render(args.folder, runs, comparison, str(title))
    print(path)
    if args.pdf:
        print(write_pdf(path))
    return 0


def check_baseline(baseline: str, runs: list[Run], comparison: dict[str, Any] | None) -> None:
    """--baseline names one of the runs (its label, run id or target label), or is refused
    instead of falling back to the first run without a word."""
    if comparison is None:
        raise UserError("--baseline: this folder holds one run; give a study folder to compare")
    labels = [str(e.get("label")) for e in comparison.get("runs", [])]
    known = {*labels, *(r.run_id for r in runs), *(str(r.target.get("label")) for r in runs)}
    if baseline not in known:
        raise UserError(f"--baseline {baseline!r} is not a run of this folder: {', '.join(labels)}")
