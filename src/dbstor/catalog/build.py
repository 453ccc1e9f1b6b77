"""`dbstor index RESULTS_DIR`: every run and study under a folder in index.json, with the
trends of runs that share a comparison key, read again only where a results.json changed."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dbstor.catalog.comparisons import refresh
from dbstor.catalog.entries import folders, run_entry, stamp, study_entry
from dbstor.catalog.steps import find_steps, judgeable

INDEX_JSON = "index.json"
INDEX_HTML = "index.html"
INDEX_SCHEMA = 1
TREND_FIGURES = ("knee", "peak", "latency_at_load")


def previous_index(root: Path) -> dict[str, Any]:
    """The index already there (empty when it cannot be read)."""
    try:
        data = json.loads((root / INDEX_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def previous_entries(previous: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The rows of the index already there, by folder (nothing when it cannot be read)."""
    rows = previous.get("entries")
    if not isinstance(rows, list):
        return {}
    return {
        r["folder"]: r for r in rows if isinstance(r, dict) and isinstance(r.get("folder"), str)
    }


def scan(
    root: Path, say: Callable[[str], None] = lambda _: None, previous: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], set[str]]:
    """Every row under root, and the folders read anew (the rest unchanged since the
    previous index)."""
    before = previous_entries(previous_index(root) if previous is None else previous)
    rows: list[dict[str, Any]] = []
    fresh: set[str] = set()
    for folder, kind in folders(root):
        rel = folder.relative_to(root).as_posix()
        name = "results.json" if kind == "run" else "study.json"
        old = before.get(rel)
        if (
            old is not None
            and old.get("stamp") is not None
            and old["stamp"] == stamp(folder / name)
        ):
            rows.append(old)
            continue
        rows.append(run_entry(folder, root) if kind == "run" else study_entry(folder, root))
        fresh.add(rel)
        if len(fresh) % 100 == 0:
            say(f"read {len(fresh)} folders")
    return rows, fresh


def trends(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per comparison key with two or more finished runs: each headline figure over time
    and its steps."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("kind") == "run" and row.get("status") in ("complete", "interrupted"):
            by_key.setdefault(row["key"], []).append(row)
    out = []
    for key, runs in sorted(by_key.items()):
        if len(runs) < 2:
            continue
        runs.sort(key=lambda r: str(r.get("created_at")))
        figures = {}
        for figure in TREND_FIGURES:
            series = [r for r in runs if r.get(figure) is not None]
            values = [float(r[figure]) for r in series]
            spreads = [r.get("spread_pct") for r in series]
            steps = find_steps(values, spreads) if values else []
            figures[figure] = {
                "judgeable": judgeable(values, spreads),
                "runs": [r["folder"] for r in series],
                "dates": [str(r.get("created_at") or "")[:10] for r in series],
                "values": values,
                "steps": [
                    asdict(s)
                    | {
                        "run": series[s.index]["folder"],
                        "before_run": series[s.index - 1]["folder"],
                    }
                    for s in steps
                ],
            }
        first = runs[0]
        out.append(
            {
                "key": key,
                "unit": first.get("unit"),
                "load_kind": first.get("load_kind"),
                "latency_metric": first.get("latency_metric"),
                "latency_load": first.get("latency_load"),
                "figures": figures,
            }
        )
    return out


def build_index(
    root: Path, say: Callable[[str], None] = lambda _: None, compare: list[list[str]] = ()
) -> dict[str, Any]:
    """The index of root; compare: selections (the first run the baseline) whose
    comparison pages are written beside it."""
    previous = previous_index(root)
    before = previous.get("comparisons")
    rows, fresh = scan(root, say, previous)
    rows.sort(key=lambda r: (str(r.get("created_at") or ""), r["folder"]), reverse=True)
    before = before if isinstance(before, list) else []
    found = trends(rows)
    known = {tuple(c.get("runs") or ()) for c in before if isinstance(c, dict)}
    for pair in step_pairs(found):  # each step's comparison: the run before it as baseline
        if tuple(pair) not in known:
            before.append({"runs": pair})
            known.add(tuple(pair))
    return {
        "schema": INDEX_SCHEMA,
        "entries": rows,
        "trends": found,
        "comparisons": refresh(root, before, list(compare), rows, fresh),
        "read": len(fresh),
    }


def step_pairs(found: list[dict[str, Any]]) -> list[list[str]]:
    """[run before the step, run after it] for every step of every trend."""
    return [
        [s["before_run"], s["run"]]
        for trend in found
        for figure in trend["figures"].values()
        for s in figure["steps"]
    ]
