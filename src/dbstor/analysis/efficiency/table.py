"""The terminal table of `dbstor efficiency` (plain text, fits 100 columns)."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from dbstor.units import format_size

MAX_FILES = 20


def _ratio(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}:1"


def _ci(pair: Any) -> str:
    if not pair or pair[0] is None or pair[1] is None:
        return ""
    return f"{pair[0]:.2f} - {pair[1]:.2f}"


def _savings(ratio: Any) -> str:
    if ratio is None or ratio <= 0:
        return ""
    return f"{(1 - 1 / ratio) * 100:5.1f}%"


def _hours(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    return f"{seconds / 60:g}m"


def print_result(result: dict[str, Any], out: TextIO | None = None) -> None:
    """Write the figures as aligned text."""
    w = (out or sys.stdout).write
    a = result["array"]
    if result["mode"] == "full":
        how = "full scan"
    elif result["effective_sample_pct"] >= 100:
        how = "every unit compressed (less data than --min-sample)"
    else:
        how = f"sampled {result['effective_sample_pct']}% of units"
    w(f"array model {a['name']}: {a['description']}\n")
    w(
        f"compressor {result['compressor']}; {how} (seed {result['seed']}); "
        f"dedup over {result['dedup_scope']}, {format_size(result['dedup_block'])} blocks\n"
    )
    w(
        f"scanned {format_size(result['bytes_scanned'])} in {result['files']} file(s); read "
        f"{format_size(result['bytes_read'])} in {result['elapsed_s']:.1f} s "
        f"({result['mb_per_s'] or 0:.0f} MB/s, {result['workers']} worker(s))\n\n"
    )
    w(f"{'':24}{'ratio':>10}  {'95% interval':<16}{'saves':>7}\n")
    zci = result["zero_block_pct_ci95"]
    w(f"{'zero blocks':24}{result['zero_block_pct']:>9.2f}%  {zci[0]:.2f} - {zci[1]:.2f}\n")
    rows = [
        ("deduplication", result["dedup_ratio"], result["dedup_ratio_ci95"]),
        (
            f"compression ({format_size(result['compression_group'])})",
            result["compression_ratio"],
            result["compression_ratio_ci95"],
        ),
        ("total data reduction", result["total_ratio"], result["total_ratio_ci95"]),
    ]
    for label, ratio, ci in rows:
        w(f"{label:24}{_ratio(ratio):>10}  {_ci(ci):<16}{_savings(ratio):>7}\n")
    snaps = result.get("snapshots")
    if snaps:
        _snapshots(w, snaps)
    comps = sorted({m["compressor"] for m in result["compression"]})
    groups = sorted({m["group"] for m in result["compression"]})
    w(f"\ncompression by group size (stored in {format_size(a['block'])} blocks)\n")
    w(f"{'group':>10}" + "".join(f"{c:>12}" for c in comps) + "\n")
    by_key = {(m["group"], m["compressor"]): m["ratio"] for m in result["compression"]}
    for g in groups:
        w(
            f"{format_size(g):>10}"
            + "".join(f"{_ratio(by_key.get((g, c))):>12}" for c in comps)
            + "\n"
        )
    _histogram(w, result["histogram"])
    w("\nper file\n")
    w(f"{'size':>10} {'zero':>7} {'compr':>8}  path\n")
    files = result["per_file"]
    for f in files[:MAX_FILES]:
        note = f"  [{'; '.join(f['notes'])}]" if f["notes"] else ""
        role = f"{f['role']}: " if f["role"] != "data" else ""
        w(
            f"{format_size(f['bytes']):>10} {f['zero_block_pct']:>6.1f}% "
            f"{_ratio(f['compression_ratio']):>8}  {role}{f['path']}{note}\n"
        )
    if len(files) > MAX_FILES:
        w(f"... and {len(files) - MAX_FILES} more files (--json lists them all)\n")
    for note in result["notes"]:
        w(f"note: {note}\n")


def _snapshots(w: Any, snaps: dict[str, Any]) -> None:
    w("\nsnapshots\n")
    for r in snaps["roles"]:
        w(
            f"  {r['role']:<6} every {_hours(r['interval_s'])}, kept {_hours(r['retention_s'])}: "
            f"{r['copies']} copies, {r['changed_per_snapshot_pct']:.1f}% changed each; "
            f"space {format_size(r['snapshot_bytes'])} vs full copies {format_size(r['full_copies_bytes'])}\n"
        )
    w(f"{'snapshots vs full copies':24}{_ratio(snaps['savings_vs_full_copies']):>10}\n")
    w(f"{'total with snapshots':24}{_ratio(snaps['total_ratio_with_snapshots']):>10}\n")
    seed = snaps["seed_style"]["as_tr4403"]
    w(
        f"  as TR-4403/TR-4415 count it: snapshots {_ratio(seed['snapshot_ratio'])}, "
        f"total {_ratio(seed['total_ratio'])} (savings over logical size; see docs/efficiency.md)\n"
    )
    for note in snaps["notes"]:
        w(f"  note: {note}\n")


def _histogram(w: Any, hist: dict[str, Any]) -> None:
    bins = hist["bins"]
    top = max((b["groups"] for b in bins), default=0)
    if not top:
        return
    w(f"\ncompressed size of {format_size(hist['group'])} groups ({hist['compressor']})\n")
    for b in bins:
        bar = "#" * round(40 * b["groups"] / top)
        w(f"{b['from']:>7} - {b['to']:<7}{b['groups']:>9}  {bar}\n")
    stored = ", ".join(f"{format_size(s['bytes'])}: {s['groups']}" for s in hist["stored"])
    w(f"stored as (groups): {stored}\n")
