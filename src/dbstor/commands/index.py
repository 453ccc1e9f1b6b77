"""dbstor index: every run and study under a results folder in one page (index.html) and
one file (index.json), with filters, comparisons, and trends with their steps."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.catalog.build import INDEX_HTML, INDEX_JSON, build_index
from dbstor.catalog.page import index_page
from dbstor.errors import UserError
from dbstor.results.store import write_text_atomic
from dbstor.safefs import check_writable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help="index every run and study under a results folder (index.html, index.json)",
        description=(
            "Write index.html and index.json in RESULTS_DIR: every run and study under it with "
            "target, engine, workload, load, tags, host, date, status, peak and knee, a link to "
            "each report, the runs that share a comparison key drawn over time with their steps "
            "(a change beyond the runs' own spread and their neighbours' noise), and the folders "
            "that could not be read with the reason. Running it again reads only new or changed "
            "runs."
        ),
        epilog="example: dbstor index results/   then open results/index.html",
    )
    parser.add_argument("results_dir", type=Path, metavar="RESULTS_DIR", help="the folder to index")
    parser.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="BASELINE,RUN[,RUN...]",
        help="also write the comparison of these runs (folders as the index names them, the "
        "first the baseline) as a page the index links to, through the same code as "
        "'dbstor compare --report'; repeatable; the index page shows this flag for the runs "
        "ticked there",
    )
    parser.add_argument("--json", action="store_true", help="print index.json on stdout too")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(handler=run)


def selection(root: Path, text: str) -> list[str]:
    """--compare A,B,...: run folders relative to root (a path to one is taken too)."""
    names = []
    for name in (n.strip() for n in text.split(",")):
        if not name:
            continue
        as_path = Path(name)
        if as_path.is_absolute() or (as_path.exists() and not (root / name).exists()):
            try:
                name = as_path.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                raise UserError(f"--compare: {name} is not under {root}") from None
        names.append(name.strip("/"))
    if len(set(names)) < 2:
        raise UserError(f"--compare {text!r}: name two or more run folders, the baseline first")
    return list(dict.fromkeys(names))


def write_index(
    root: Path, say: Callable[[str], None] = lambda _: None, compare: list[str] = ()
) -> dict[str, Any]:
    """Build the index of root and write both files (and the comparison pages asked
    for); the index as data."""
    if not root.is_dir() or root.is_symlink():
        raise UserError(f"{root}: not a folder (a link is not followed): give a results folder")
    for name in (INDEX_JSON, INDEX_HTML):  # both checked before either is written
        check_writable(root / name)
    asked = [selection(root, text) for text in compare]
    index = build_index(root, say, asked)
    write_text_atomic(
        root / INDEX_JSON, json.dumps(index, separators=(",", ":"), allow_nan=False) + "\n"
    )
    write_text_atomic(root / INDEX_HTML, index_page(index, str(root.resolve())))
    return index


def run(args: argparse.Namespace) -> int:
    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr)

    started = time.monotonic()
    index = write_index(args.results_dir, say, args.compare)
    runs = sum(e["kind"] == "run" for e in index["entries"])
    bad = sum(e["kind"] == "unreadable" for e in index["entries"])
    steps = sum(len(f["steps"]) for t in index["trends"] for f in t["figures"].values())
    say(
        f"{runs} runs, {len(index['trends'])} trends ({steps} steps)"
        + (f", {bad} folders not readable" if bad else "")
        + f"; read {index['read']} anew in {time.monotonic() - started:.1f} s"
    )
    for record in index["comparisons"]:
        if record["runs"] in [selection(args.results_dir, t) for t in args.compare]:
            say(f"comparison: {args.results_dir / record['report']}")
    if args.json:
        json.dump(index, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(args.results_dir / INDEX_HTML)
    return 0
