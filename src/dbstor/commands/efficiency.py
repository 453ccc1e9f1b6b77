"""dbstor efficiency: zero blocks, dedup, compression and snapshot savings of real files."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from dbstor.commands.flagtypes import SEED, above_zero, whole
from dbstor.errors import UserError
from dbstor.units import format_size, parse_duration, parse_percent, parse_size

EPILOG = """\
examples:
  dbstor efficiency /var/lib/postgresql/15/main
  dbstor efficiency /data/sql/*.mdf --array ontap-secondary --full
  dbstor efficiency /u02/oradata --array custom:block=4K,group=32K --compressor zstd --json
  dbstor efficiency results/RUN_ID
  dbstor efficiency data=/u02/oradata log=/u03/redo --snapshots data=2h,log=15m \\
      --retention 24h --change-rate 5%/h

Files are opened read-only and never written. Array presets and how the figures are
computed: docs/efficiency.md. Needs: pip install 'dbstor[efficiency]'.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from dbstor.analysis.efficiency.arrays import DEFAULT_ARRAY, PRESETS

    p = subparsers.add_parser(
        "efficiency",
        help="estimate zero-block, dedup, compression and snapshot savings of database files",
        description=(
            "Estimate how much space database files would take on an array that removes zero "
            "blocks, deduplicates and compresses: reads files or folders (never writes them), "
            "samples compression groups by default, and reports each ratio with a 95% interval."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files, folders, block devices or a dbstor run folder (results/RUN_ID); "
        "ROLE=PATH tags files with a role (data, log...) for --snapshots",
    )
    p.add_argument(
        "--array",
        default=DEFAULT_ARRAY,
        help=f"array model: {', '.join(PRESETS)}, or custom:block=4K,group=32K[,dedup=4K]"
        f"[,buckets=1K/2K/4K] (default {DEFAULT_ARRAY})",
    )
    p.add_argument("--compressor", default="lz4", help="lz4 (default), zstd or zstd:LEVEL")
    p.add_argument("--full", action="store_true", help="compress every group instead of a sample")
    p.add_argument(
        "--sample", default="5%", help="share of compression units to sample (default 5%%)"
    )
    p.add_argument(
        "--min-sample",
        default="128MiB",
        help="sample at least this much in all (default 128MiB; small sets are scanned fully)",
    )
    p.add_argument(
        "--seed", type=SEED, default=4403, help="random seed of the sample (default 4403)"
    )
    p.add_argument("--dedup-block", help="fingerprint block size (default: the array's, 4K)")
    p.add_argument(
        "--dedup",
        choices=("full", "sample"),
        default="full",
        help="full: read every block for exact zero and dedup counts (default); "
        "sample: read only the sampled units (fastest; dedup becomes a lower bound)",
    )
    p.add_argument(
        "--throttle",
        type=above_zero(1e7, "MB/s"),
        metavar="MB/s",
        help="cap the read rate (MB/s, all workers)",
    )
    p.add_argument("--workers", type=whole(1, 1024), help="worker processes (default: all cores)")
    p.add_argument(
        "--max-fingerprints",
        type=whole(1000, 100_000_000),
        default=1_000_000,
        help="distinct block fingerprints kept in memory (default 1,000,000, about 100 MB)",
    )
    p.add_argument(
        "--no-matrix",
        action="store_true",
        help="measure only the array's group size with the chosen compressor (faster)",
    )
    snap = p.add_argument_group("snapshots")
    snap.add_argument(
        "--snapshots", metavar="SCHEDULE", help="snapshot intervals per role, e.g. data=2h,log=15m"
    )
    snap.add_argument("--retention", default=None, help="how long snapshots are kept (default 24h)")
    snap.add_argument(
        "--copies",
        metavar="N",
        help="snapshot copies kept, instead of --retention / interval: 16, or data=16,log=96",
    )
    snap.add_argument(
        "--change-rate", metavar="RATE", help="share of a volume overwritten, e.g. 5%%/h"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=run)


def _role_paths(args: argparse.Namespace) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for raw in args.paths:
        match = re.fullmatch(r"([a-z][a-z0-9_-]*)=(.+)", raw)
        if match and not os.path.lexists(raw):
            pairs.append((match.group(1), match.group(2)))
            continue
        run = Path(raw) / "results.json"
        if run.is_file():
            pairs.extend(_run_paths(raw, run))
            continue
        if not os.path.lexists(raw):
            raise UserError(f"{raw}: no such file or directory; give files or folders that exist")
        pairs.append(("data", raw))
    return pairs


def _run_paths(raw: str, results: Path) -> list[tuple[str, str]]:
    from dbstor.results.store import recorded_paths

    pairs = recorded_paths(results)
    if not pairs:
        raise UserError(
            f"{raw}: the run recorded no data paths (target.paths); scan the files directly"
        )
    present = [(r, p) for r, p in pairs if os.path.lexists(p)]
    if not present:
        gone = ", ".join(p for _, p in pairs)
        raise UserError(
            f"{raw}: the files this run built are gone ({gone}); rerun with --keep or scan the files directly"
        )
    for _, p in pairs:
        if not os.path.lexists(p):
            print(f"dbstor: warning: {p}, recorded by the run, is gone; skipped", file=sys.stderr)
    return present


def _nothing_scanned(paths: list[str]) -> str:
    """The one line for a scan that found no data: never a table of 1.00:1 ratios."""
    runs = [p for p in paths if (Path(p) / "results.json").is_file()]
    if runs:
        return (
            f"{runs[0]}: the files this run built are gone (its folders hold no data); "
            "rerun with --keep or scan the files directly"
        )
    return (
        f"{', '.join(paths)}: nothing to scan (no file holds any data); give the database's "
        "files or folders"
    )


def _flag(name: str, parse: Any, text: str) -> Any:
    try:
        return parse(text)
    except ValueError as exc:
        raise UserError(f"{name}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    check_options(args)  # a bad flag is named before any path is looked at
    result = scan(args, _role_paths(args), quiet=args.quiet or args.json)
    if not result.get("bytes_scanned"):
        raise UserError(_nothing_scanned(args.paths))
    for skipped in result["files_skipped"]:
        print(f"dbstor: warning: skipped {skipped['path']}: {skipped['reason']}", file=sys.stderr)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from dbstor.analysis.efficiency.table import print_result

        print_result(result)
    return 0


def check_options(args: argparse.Namespace) -> dict[str, Any]:
    """The flags checked and parsed (nothing read yet): a bad one is a UserError naming it."""
    from dbstor.analysis.efficiency import snapshots as snap_mod
    from dbstor.analysis.efficiency.arrays import resolve_array
    from dbstor.analysis.efficiency.compressors import check_available, parse_compressor

    model = _flag("--array", resolve_array, args.array)
    _flag("--compressor", parse_compressor, args.compressor)
    rate = _flag("--sample", parse_percent, args.sample) / 100.0
    if rate <= 0:
        raise UserError("--sample: must be more than 0%; use --full to scan everything")
    min_units_bytes = _flag("--min-sample", parse_size, args.min_sample)
    dedup_block = _flag("--dedup-block", parse_size, args.dedup_block) if args.dedup_block else None
    if dedup_block is not None and (dedup_block < 512 or dedup_block & (dedup_block - 1)):
        raise UserError("--dedup-block: use a power of two of at least 512 bytes, e.g. 4K or 8K")
    snapshots = None
    if args.snapshots:
        schedule = _flag("--snapshots", snap_mod.parse_schedule, args.snapshots)
        if args.copies and args.retention:
            raise UserError("give --copies or --retention, not both: copies = retention / interval")
        retention = _flag(
            "--retention",
            lambda t: snap_mod.parse_per_role(
                t, parse_duration, "retention", "24h or data=24h,log=48h"
            ),
            args.retention or "24h",
        )
        copies = (
            _flag(
                "--copies",
                lambda t: snap_mod.parse_per_role(
                    t, snap_mod.parse_copies, "copies", "16 or data=16,log=96"
                ),
                args.copies,
            )
            if args.copies
            else None
        )
        if not args.change_rate:
            raise UserError(
                "--snapshots needs --change-rate, the share overwritten per hour (e.g. 5%/h)"
            )
        change = _flag(
            "--change-rate",
            lambda t: snap_mod.parse_per_role(t, snap_mod.parse_rate, "change rate", "5%/h"),
            args.change_rate,
        )
        snapshots = (schedule, retention, change, copies)
    elif args.change_rate or args.copies or args.retention:
        raise UserError(
            "--change-rate, --copies and --retention need --snapshots, the schedule "
            "(e.g. --snapshots data=2h)"
        )
    check_available()
    return {
        "array": model,
        "rate": rate,
        "min_sample_bytes": min_units_bytes,
        "dedup_block": dedup_block,
        "snapshots": snapshots,
    }


def scan(
    args: argparse.Namespace, pairs: list[tuple[str, str]], quiet: bool = True
) -> dict[str, Any]:
    """The figures of these (role, path) pairs under these flags (what --json prints); a
    study's [efficiency] scans each run's own files with it before they are removed."""
    from dbstor.analysis.efficiency import snapshots as snap_mod
    from dbstor.analysis.efficiency.estimate import estimate

    options = check_options(args)
    progress = None
    if not quiet and sys.stderr.isatty():
        progress = _progress
    result = estimate(
        pairs,
        array=options["array"],
        compressor=args.compressor,
        full=args.full,
        rate=options["rate"],
        min_sample_bytes=options["min_sample_bytes"],
        seed=args.seed,
        dedup_block=options["dedup_block"],
        read_all=args.dedup == "full",
        throttle_mbps=args.throttle,
        workers=args.workers,
        max_fingerprints=args.max_fingerprints,
        matrix=not args.no_matrix,
        progress=progress,
    )
    if progress:
        sys.stderr.write("\r\033[K")
    if options["snapshots"] is not None:
        volumes = _volumes(result)
        try:
            result["snapshots"] = snap_mod.model(volumes, *options["snapshots"])
        except ValueError as exc:
            raise UserError(f"--snapshots: {exc}") from None
    return result


def _volumes(result: dict[str, Any]) -> dict[str, tuple[float, float]]:
    dedup = result["dedup_ratio"] or 1.0
    volumes: dict[str, tuple[float, float]] = {}
    for f in result["per_file"]:
        logical, stored = volumes.get(f["role"], (0.0, 0.0))
        volumes[f["role"]] = (logical + f["bytes"], stored + f["stored_bytes"] / dedup)
    return volumes


def _progress(done: int, total: int) -> None:
    pct = 100.0 * done / total if total else 100.0
    sys.stderr.write(f"\rscanning: {format_size(done)} of {format_size(total)} ({pct:.0f}%)\033[K")
    sys.stderr.flush()
