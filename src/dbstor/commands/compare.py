"""dbstor compare: runs made at different times, normalised to a baseline of 100."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dbstor.errors import UserError
from dbstor.safefs import user_dir
from dbstor.study.tags import flag_tags, matches


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare run folders against a baseline (= 100)",
        description=(
            "Compare runs made at different times: throughput, IOPS and CPU at each run's knee "
            "(its peak when it has none, its highest load when every point was within the "
            "SLO) and read latency at that load of the baseline's, all "
            "normalised to the baseline = 100, with improvement factors. Says when the runs "
            "are not comparable."
        ),
    )
    parser.add_argument("folders", nargs="+", type=Path, help="run folders (or study folders)")
    parser.add_argument(
        "--baseline", metavar="FOLDER|LABEL", help="the run to normalise to (default: the first)"
    )
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="compare only the runs with this tag (repeatable: every one must match)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print per run its label and normalised values as JSON"
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="FOLDER",
        help="also write report.html with the comparison into FOLDER",
    )
    parser.set_defaults(handler=run)


def writable_folder(folder: Path, flag: str) -> None:
    """Make the folder, or say in one line why it cannot hold the report."""
    user_dir(folder, flag)


def run(args: argparse.Namespace) -> int:
    # imported when the command runs, not by `dbstor --help`
    from dbstor.analysis.compare import compare_runs
    from dbstor.results.model import Run
    from dbstor.runs.study import load_folder, missing_runs_note

    try:  # checked before any folder is read
        wanted = flag_tags(args.tag) if args.tag else {}
    except ValueError as exc:
        raise UserError(f"--tag: {exc}") from None
    runs: list[Run] = []
    folders: list[Path] = []
    gone = []
    for folder in args.folders:
        note = missing_runs_note(folder)
        if note:
            print(f"dbstor: warning: {note}", file=sys.stderr)
            gone.append(note)
        more_runs, more_folders = load_folder(folder)
        runs += more_runs
        folders += more_folders
    if args.tag:
        kept = [(r, f) for r, f in zip(runs, folders, strict=True) if matches(r.tags, wanted)]
        runs, folders = [r for r, _ in kept], [f for _, f in kept]
    if len(runs) < 2:
        raise UserError(
            "compare needs at least two runs: give two or more run folders"
            + (" with the tags asked for" if args.tag else "")
        )
    baseline = args.baseline
    if baseline is not None:
        as_path = Path(baseline)
        matched = [
            r
            for r, f in zip(runs, folders, strict=True)
            if as_path.exists() and f.resolve() == as_path.resolve()
        ]
        if matched:
            baseline = matched[0].run_id
        elif not any(baseline in (r.run_id, r.target.get("label")) for r in runs):
            raise UserError(
                f"--baseline {baseline!r} is neither one of the folders nor a run label"
            )
    comparison = compare_runs(runs, baseline)
    comparison["warnings"] = [*comparison["warnings"], *gone]
    if args.report:
        from dbstor.runs.study import render

        writable_folder(args.report, "--report")
        render(args.report, runs, comparison, "comparison")
    if args.json:
        out = {
            "baseline": comparison["baseline"],
            "comparable": comparison["comparable"],
            "warnings": comparison["warnings"],
            "runs": [
                {
                    "label": e["label"],
                    "run_id": e["run_id"],
                    "normalised": e["normalised"],
                    "values": e["values"],
                    "withheld": e.get("withheld", {}),
                    "intervals": e.get("intervals", {}),
                    "flags": e.get("flags", []),
                }
                for e in comparison["runs"]
            ],
            "metric_names": comparison.get("metric_names"),
            "same_load": comparison.get("same_load"),
            "same_load_refused": comparison.get("same_load_refused"),
            "factors": comparison["factors"],
            "factors_at": comparison.get("factors_at"),
            "verdict": comparison.get("verdict"),
            "per_disk": comparison.get("per_disk", []),
            "per_disk_withheld": comparison.get("per_disk_withheld", []),
        }
        if "layers" in comparison:  # runs with layers: each one normalised to the baseline's
            out["layers"] = comparison["layers"]
        if comparison.get("roles"):  # runs with roles: each role's own device side by side
            out["roles"] = comparison["roles"]
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from dbstor.report.console import print_comparison

        print_comparison(comparison)
    return 0
