"""dbstor check: a regression gate for pipelines. Exit 0 when every metric is within bounds,
1 when one regressed beyond both the bound and the runs' own spread, 2 on bad input or
runs that are not comparable."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dbstor.analysis.compare import comparability_warnings
from dbstor.catalog.entries import folders, run_entry
from dbstor.catalog.gate import (
    DEFAULT_METRICS,
    as_json,
    failed,
    judge,
    junit_xml,
    metric_name,
)
from dbstor.errors import UserError
from dbstor.results.store import RESULTS_FILE, read_run_folder, write_text_atomic
from dbstor.study.tags import matches, parse_tag
from dbstor.units import parse_percent


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="fail a pipeline when a run regressed against its baseline",
        description=(
            "Compare RUN with a baseline run, metric by metric: throughput at the knee, peak "
            "throughput and p99 latency at the series' middle load. A metric regresses when it "
            "moved the wrong way by more than --max-regression AND by more than the runs' own "
            "spread (measured with repeats). Exit 0: within bounds; 1: a regression; 2: bad "
            "input, or runs that are not the same measurement."
        ),
        epilog=(
            "examples: dbstor check results/new --baseline results/old; "
            "dbstor check results/new --baseline release=9.14 --max-regression 5%% --junit check.xml"
        ),
    )
    parser.add_argument("run", type=Path, metavar="RUN", help="the run folder to check")
    parser.add_argument(
        "--baseline",
        required=True,
        metavar="RUN_OR_TAG",
        help="a run folder, or KEY=VALUE: the newest run under --results with that tag and "
        "the same comparison key",
    )
    parser.add_argument(
        "--results",
        type=Path,
        metavar="DIR",
        help="where to look for a tagged baseline (default: the folder holding RUN)",
    )
    parser.add_argument(
        "--max-regression", default="5%", help="allowed change the wrong way (default 5%%)"
    )
    parser.add_argument(
        "--metric",
        default=",".join(DEFAULT_METRICS),
        help="comma-separated: knee, peak, latency_at_load (or knee_iops, knee_tps, peak_iops, "
        "peak_tps, p99_at_load); default all three",
    )
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write a JUnit XML report")
    parser.set_defaults(handler=run)


def _entry(folder: Path, what: str) -> dict[str, Any]:
    if not (folder / RESULTS_FILE).is_file():
        raise UserError(f"{what} {folder}: not a dbstor run folder (no {RESULTS_FILE})")
    row = run_entry(folder, folder.parent)
    if row["kind"] != "run":
        raise UserError(row["error"])
    return row


def _tagged_baseline(run: dict[str, Any], folder: Path, where: Path, text: str) -> Path:
    try:
        wanted = dict([parse_tag(text)])
    except ValueError as exc:
        raise UserError(f"--baseline: {exc}") from None
    found = []
    for candidate, kind in folders(where):
        if kind != "run" or candidate.resolve() == folder.resolve():
            continue
        row = run_entry(candidate, where)
        if row["kind"] == "run" and row["key"] == run["key"] and matches(row["tags"], wanted):
            found.append((str(row["created_at"]), candidate))
    if not found:
        raise UserError(
            f"--baseline {text}: no run under {where} with that tag and this run's comparison "
            f"key ({run['key']}): tag a run with --tag {text}, or give a run folder"
        )
    return max(found)[1]


def run(args: argparse.Namespace) -> int:
    try:
        bound = parse_percent(args.max_regression)
        metrics = [metric_name(m.strip()) for m in args.metric.split(",") if m.strip()]
    except ValueError as exc:
        raise UserError(f"check: {exc}") from None
    if not metrics:
        raise UserError("--metric: name at least one metric, e.g. knee")
    twice = sorted({m for m in metrics if metrics.count(m) > 1})
    if twice:
        raise UserError(f"--metric: {', '.join(twice)} is given twice; give each metric once")
    current = _entry(args.run, "RUN")
    if "=" in args.baseline and not Path(args.baseline).exists():
        where = args.results or args.run.parent
        base_folder = _tagged_baseline(current, args.run, where, args.baseline)
    else:
        base_folder = Path(args.baseline)
    if base_folder.resolve() == args.run.resolve():
        raise UserError(
            f"--baseline {base_folder} is the run itself ({args.run}): a run always passes "
            "against itself; give an earlier run of the same test"
        )
    base = _entry(base_folder, "--baseline")
    if base["key"] != current["key"]:
        raise UserError(
            f"not comparable: {args.run} is '{current['key']}' but the baseline is "
            f"'{base['key']}' (target | workload | load series | engine must match)"
        )
    comparable, warnings = comparability_warnings(
        [read_run_folder(base_folder), read_run_folder(args.run)]
    )
    if not comparable:
        raise UserError(f"not comparable: {'; '.join(warnings)}")
    verdicts = [judge(current, base, m, bound) for m in metrics]
    if args.junit:
        write_text_atomic(
            args.junit, junit_xml(current, base, verdicts), fix="give another --junit file"
        )
    if args.json:
        json.dump(as_json(current, base, verdicts) | {"warnings": warnings}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"{args.run} against {base_folder} ({current['key']})")
        width = max(len(v.status) for v in verdicts)
        for v in verdicts:
            print(f"  {v.metric:<16} {v.status:<{width}}  {v.why}")
        for w in warnings:
            print(f"  note: {w}")
        bad = [
            f"{v.metric} ({v.status})" for v in verdicts if v.status in ("regression", "missing")
        ]
        print(f"FAILED: {', '.join(bad)}" if bad else "passed")
    return 1 if failed(verdicts) else 0
