"""dbstor export: every run under a results folder as SQL tables (runs, points, samples)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dbstor.catalog.export import collect, to_hdr, to_parquet, to_sqlite
from dbstor.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="export every run under a folder as SQL tables (DuckDB, SQLite, Parquet)",
        description=(
            "Write three tables from every run under RESULTS_DIR: runs (one row per run, with "
            "tags, host and target facts, headline figures and comparison key), points (one row "
            "per load point, nested figures as column_names such as read_lat_ms_p99) and "
            "samples (every samples.csv). See docs/index.md (dbstor export) for example queries."
        ),
        epilog="example: dbstor export results/ --duckdb results.duckdb",
    )
    parser.add_argument("results_dir", type=Path, metavar="RESULTS_DIR")
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("--duckdb", type=Path, metavar="FILE", help="a new DuckDB database file")
    out.add_argument("--sqlite", type=Path, metavar="FILE", help="a new SQLite database file")
    out.add_argument(
        "--parquet", type=Path, metavar="DIR", help="a folder for three .parquet files"
    )
    out.add_argument(
        "--hdr",
        type=Path,
        metavar="DIR",
        help="each database run's transaction latency histograms as an HdrHistogram log",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.results_dir.is_dir():
        raise UserError(f"{args.results_dir}: not a folder: give a results folder")
    if args.hdr:
        for path in to_hdr(args.results_dir, args.hdr):
            print(path)
        return 0
    data = collect(args.results_dir)
    counts = ", ".join(f"{len(rows)} {table}" for table, rows in data.items())
    if args.parquet:
        for path in to_parquet(data, args.parquet):
            print(path)
    else:
        target = args.duckdb or args.sqlite
        to_sqlite(data, target, "duckdb" if args.duckdb else "sqlite")
        print(target)
    print(f"exported {counts}", file=sys.stderr)
    return 0
