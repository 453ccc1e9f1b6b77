"""Comparison pages beside the index: the runs a user picked, against the baseline they
chose, rendered through the same code as `dbstor compare --report` into
RESULTS_DIR/compare/<name>/report.html, so that index.html (a file, no server) can open
them. Each one is recorded in index.json and written again when one of its runs changed."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from dbstor.analysis.compare import compare_runs
from dbstor.errors import UserError
from dbstor.results.model import Run
from dbstor.runs.study import load_folder, render
from dbstor.safefs import user_dir

COMPARE_DIR = "compare"
MAX_COMPARED = 50


def inside(root: Path, relative: str) -> Path | None:
    """The file or folder `relative` names under root, or None when it leaves root or
    passes through a link."""
    parts = [p for p in unquote(relative).split("/") if p not in ("", ".")]
    if any(p == ".." or "\x00" in p for p in parts):
        return None
    path = root
    for part in parts:
        path = path / part
        if path.is_symlink():
            return None
    return path


def comparison_of(
    root: Path, names: list[str], baseline: str | None
) -> tuple[list[Run], dict[str, Any]]:
    """The runs named (run folders under root, relative to it) and their comparison
    against the baseline named (default: the first)."""
    if not 2 <= len(names) <= MAX_COMPARED:
        raise UserError(f"compare: name 2 to {MAX_COMPARED} run folders, e.g. A,B (A the baseline)")
    runs: list[Run] = []
    base_id = None
    for name in names:
        folder = inside(root, name)
        if folder is None or not folder.is_dir():
            raise UserError(f"compare: {name!r} is not a run folder under {root}")
        found = load_folder(folder)[0]
        if name == (baseline or names[0]) and found:
            base_id = found[0].run_id
        runs += found
    return runs, compare_runs(runs, base_id)


def page_of(root: Path, names: list[str], baseline: str | None) -> str:
    """The comparison report as HTML text (for `dbstor serve`), nothing kept on disk."""
    runs, comparison = comparison_of(root, names, baseline)
    title = title_of(names, baseline or names[0])
    with tempfile.TemporaryDirectory(prefix="dbstor-serve-") as scratch:
        return render(Path(scratch), runs, comparison, title).read_text(encoding="utf-8")


def title_of(names: list[str], baseline: str) -> str:
    return f"comparison of {len(names)} runs against {baseline}"


def folder_name(names: list[str]) -> str:
    """compare/<name>: the baseline's folder name and a digest of the whole selection."""
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:10]
    return f"{Path(names[0]).name[:60]}-vs-{len(names) - 1}-{digest}"


def write_comparison(root: Path, names: list[str]) -> dict[str, Any]:
    """Render the comparison of names (the first is the baseline) beside the index; its
    record for index.json."""
    names = list(dict.fromkeys(n.strip().strip("/") for n in names if n.strip()))
    runs, comparison = comparison_of(root, names, names[0] if names else None)
    relative = f"{COMPARE_DIR}/{folder_name(names)}"
    folder = root / relative
    for path in (root / COMPARE_DIR, folder):
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise UserError(
                f"{path} is a link or not a folder, not one dbstor made: remove it, or move "
                "it away, and run dbstor index again (nothing was written through it)"
            )
    user_dir(root / COMPARE_DIR, "index --compare")
    user_dir(folder, "index --compare")
    render(folder, runs, comparison, title_of(names, names[0]))
    return {
        "runs": names,
        "baseline": names[0],
        "report": f"{relative}/report.html",
        "comparable": bool(comparison.get("comparable", True)),
    }


def refresh(
    root: Path,
    before: list[Any],
    asked: list[list[str]],
    rows: list[dict[str, Any]],
    fresh: set[str],
) -> list[dict[str, Any]]:
    """The comparisons index.json lists now: those asked for (written), and those of the
    earlier index whose runs are all still there (written again when one of them was
    read anew, kept as they are otherwise)."""
    runs = {r["folder"] for r in rows if r.get("kind") == "run"}
    out: dict[tuple[str, ...], dict[str, Any]] = {}
    for names in asked:
        unknown = [n for n in names if n not in runs]
        if unknown:
            raise UserError(
                f"index --compare: {unknown[0]!r} is not a run folder under {root}: name run "
                "folders as index.json lists them (relative to the results folder)"
            )
    for old in before:
        names = old.get("runs") if isinstance(old, dict) else None
        if not isinstance(names, list) or not names or not all(n in runs for n in names):
            continue  # a run of it is gone (or the record is not ours): dropped
        expected = f"{COMPARE_DIR}/{folder_name(names)}/report.html"
        stale = old.get("report") != expected or any(n in fresh for n in names)
        if stale or not (root / expected).is_file():
            old = write_comparison(root, names)
        out[tuple(names)] = old
    for names in asked:
        record = write_comparison(root, names)
        out[tuple(record["runs"])] = record
    return list(out.values())
