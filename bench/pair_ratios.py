"""Ratios of medians between two arms of a side-by-side bench, one line per pair of arms:
the median ratio of each figure, then each alternating pair's own ratio beside it."""

from __future__ import annotations

import statistics


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def ratio_line(ours: str, theirs: str, a: list[dict], b: list[dict], figures: tuple) -> str:
    """`- OURS / THEIRS: what xR (r1, r2, ...); ...` for each (key, what) of figures."""
    parts = []
    for key, what in figures:
        ratio = median(a, key) / max(median(b, key), 1e-9)
        each = ", ".join(f"{x[key] / max(y[key], 1e-9):.2f}" for x, y in zip(a, b, strict=True))
        parts.append(f"{what} x{ratio:.2f} ({each})")
    return f"- {ours} / {theirs}: " + "; ".join(parts)
