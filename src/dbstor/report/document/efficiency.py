"""The efficiency section: what the data on each target would take on an array that
removes zero blocks, deduplicates and compresses (dbstor efficiency, per target)."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.document.analyses import missing, number, per_target, table
from dbstor.report.document.frame import side_by_side
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_num, fmt_pct


def _ratio(value: Any, ci: Any = None) -> str:
    if not isinstance(value, int | float):
        return "not measured"
    text = f"{fmt_num(value)}:1"
    if (
        isinstance(ci, list | tuple)
        and len(ci) == 2
        and all(isinstance(x, int | float) for x in ci)
    ):
        text += f" (95%: {fmt_num(ci[0])}–{fmt_num(ci[1])})"
    return text


SEED_ROWS = (
    ("as_tr4403", "snapshot savings, counted as TR-4403 does", "snapshot_ratio"),
    ("as_tr4403", "total with snapshots, counted as TR-4403 does", "total_ratio"),
    ("net_of_snapshot_space", "the same, net of the snapshots' own space", "total_ratio"),
)


def _seed_rows(snaps: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The seeds' own arithmetic beside the array model's (snapshots.seed_style): each
    snapshot copy counted as a whole copy saved, over the logical data."""
    rows = []
    for key, label, figure in SEED_ROWS:
        values = [table(table(s.get("seed_style")).get(key)).get(figure) for s in snaps]
        cells = [f"{v:g}:1" if isinstance(v, int | float) else "not measured" for v in values]
        if any(c != "not measured" for c in cells):  # as the seed quotes it: 11.86:1
            rows.append((label, cells))
    return rows


def efficiency_body(analyses: dict[str, Any]) -> str:
    """One column per target; a target without a result says why."""
    entries = per_target(analyses, "efficiency")
    if not entries:
        return ""
    names = list(entries)
    results = [e if missing(e) is None else {} for e in entries.values()]
    whys = [missing(e) for e in entries.values()]
    rows: list[tuple[str, list[str]]] = [
        ("not measured", [why or "" for why in whys]),
        (
            "array model",
            [str(table(r.get("array")).get("name") or DASH) if r else DASH for r in results],
        ),
        (
            "scanned",
            [
                f"{fmt_bytes(number(r.get('bytes_scanned')))} in {r.get('files', DASH)} files ({r.get('mode', DASH)})"
                if r
                else DASH
                for r in results
            ],
        ),
        (
            "zero blocks",
            [fmt_pct(number(r.get("zero_block_pct")), 1) if r else DASH for r in results],
        ),
        (
            "deduplication",
            [
                _ratio(r.get("dedup_ratio"), r.get("dedup_ratio_ci95")) if r else DASH
                for r in results
            ],
        ),
        (
            "compression",
            [
                _ratio(r.get("compression_ratio"), r.get("compression_ratio_ci95")) if r else DASH
                for r in results
            ],
        ),
        (
            "total data reduction",
            [
                _ratio(r.get("total_ratio"), r.get("total_ratio_ci95")) if r else DASH
                for r in results
            ],
        ),
        ("stored", [fmt_bytes(number(r.get("physical_bytes"))) if r else DASH for r in results]),
    ]
    snaps = [table(r.get("snapshots")) if r else {} for r in results]
    if any(snaps):
        rows.append(
            (
                "snapshots vs full copies, array model",
                [_ratio(s.get("savings_vs_full_copies")) if s else DASH for s in snaps],
            )
        )
        rows.append(
            (
                "total with snapshots, array model",
                [_ratio(s.get("total_ratio_with_snapshots")) if s else DASH for s in snaps],
            )
        )
        rows.extend(_seed_rows(snaps))
    notes = [
        f"<li>{escape(name)}: {escape(str(note))}</li>"
        for name, r in zip(names, results, strict=True)
        for note in r.get("notes") or []
    ]
    arrays = {str(table(r.get("array")).get("description")) for r in results if r.get("array")}
    intro = "".join(f'<p class="meta">{escape(a)}</p>' for a in sorted(arrays))
    listed = f'<ul class="notes">{"".join(notes)}</ul>' if notes else ""
    return side_by_side(names, rows) + intro + listed
