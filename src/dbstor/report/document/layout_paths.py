"""The layout per path (TR-4403 Table 3, TR-4367 Tables 5/6, TR-4415 Table 3, TR-3476
Table 4): for each instance, each of its paths (data 1..n, log, temp, a placed role) with
the device under it, the bytes on it at the end of the run as the file system counted
them, and the tables and indexes the engine says lie there, with their sizes.

Paths are named by role and number, not by folder (the folders are the appendix's); a
run that recorded no per-path figures (before this table existed, or an external
server's) shows none."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from dbstor.report.document.layout import layout_body
from dbstor.report.kit.fmt import DASH, fmt_bytes
from dbstor.results.model import Run

TOP = 4
_PLURAL = {"index": "indexes"}
_WORDS = {
    "log": "the transaction log (write-ahead log, redo)",
    "temp": "temporary files (sorts, hashes)",
}


def _rows(run: Run) -> list[dict[str, Any]]:
    paths = (run.engine_stats or {}).get("paths")
    return [p for p in paths or [] if isinstance(p, Mapping) and p.get("path")]


def _objects(run: Run) -> list[Mapping[str, Any]]:
    objects = (run.engine_stats or {}).get("objects") or []
    return [o for o in objects if isinstance(o, Mapping) and isinstance(o.get("path"), str)]


def objects_by_path(run: Run) -> dict[str, list[Mapping[str, Any]]]:
    """The first instance's objects under each of its paths (the longest path holding an
    object's own path wins: a tablespace inside the data directory is its own)."""
    mine = [str(p["path"]).rstrip("/") for p in _rows(run) if p.get("instance", 0) == 0]
    found: dict[str, list[Mapping[str, Any]]] = {path: [] for path in mine}
    for obj in _objects(run):
        where = str(obj["path"]).rstrip("/")
        holding = [p for p in mine if where == p or where.startswith(p + "/")]
        if holding:
            found[max(holding, key=len)].append(obj)
    return found


def _objects_text(objects: list[Mapping[str, Any]]) -> str:
    if not objects:
        return ""
    kinds: dict[str, int] = {}
    for obj in objects:
        kind = str(obj.get("kind") or "object")
        kinds[kind] = kinds.get(kind, 0) + 1
    counts = ", ".join(
        f"{n} {kind if n == 1 else _PLURAL.get(kind, kind + 's')}"
        for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1])
    )
    total = sum(o.get("size_bytes") or 0 for o in objects)
    largest = sorted(objects, key=lambda o: -(o.get("size_bytes") or 0))[:TOP]
    named = ", ".join(f"{o.get('name')} {fmt_bytes(o.get('size_bytes'))}" for o in largest)
    more = f", {len(objects) - TOP} more" if len(objects) > TOP else ""
    return f"{counts}: {fmt_bytes(total)} ({named}{more})"


def _path_names(rows: list[dict[str, Any]]) -> list[str]:
    """'data 1 of 2', 'log', ... per row, numbered within an instance and role."""
    counts: dict[tuple[Any, Any], int] = {}
    for row in rows:
        key = (row.get("instance"), row.get("role"))
        counts[key] = counts.get(key, 0) + 1
    seen: dict[tuple[Any, Any], int] = {}
    names = []
    for row in rows:
        key = (row.get("instance"), row.get("role"))
        seen[key] = seen.get(key, 0) + 1
        many = counts[key] > 1
        names.append(f"{row.get('role')}" + (f" {seen[key]} of {counts[key]}" if many else ""))
    return names


def paths_body(runs: list[Run], names: list[str]) -> str:
    """One row per run, instance and path; '' when no run recorded more than one path."""
    body = []
    for run, name in zip(runs, names, strict=True):
        rows = _rows(run)
        if len(rows) < 2:
            continue  # one path: the layout by role above already says it all
        objects = objects_by_path(run)
        many = len({r.get("instance") for r in rows}) > 1
        for row, path_name in zip(rows, _path_names(rows), strict=True):
            first = row.get("instance", 0) == 0
            on_it = _objects_text(objects.get(str(row["path"]).rstrip("/"), [])) if first else ""
            if not on_it:
                on_it = _WORDS.get(str(row.get("role")), "") if row.get("role") != "data" else ""
            files = row.get("files")
            size = fmt_bytes(row.get("bytes_on_disk")) + (
                f" in {files:,} file{'' if files == 1 else 's'}" if isinstance(files, int) else ""
            )
            instance = f", instance {int(row.get('instance', 0)) + 1}" if many else ""
            body.append(
                f'<tr><th scope="row">{escape(name)}{escape(instance)}</th>'
                f"<td>{escape(path_name)}</td><td>{escape(str(row.get('device') or 'none found'))}</td>"
                f'<td class="num">{escape(size)}</td><td>{escape(on_it) or DASH}</td></tr>'
            )
    if not body:
        return ""
    others = any(len({r.get("instance") for r in _rows(run)}) > 1 for run in runs)
    note = (
        " Tables and indexes are named for the first instance, whose statistics were read; "
        "each other instance holds its own copy on its own paths."
        if others
        else ""
    )
    return (
        "<h3>What is on each path</h3>"
        '<div class="scroll"><table class="layout"><thead><tr><th>run</th><th>path</th>'
        "<th>device</th><th>on disk at the end</th><th>tables and indexes on it</th>"
        f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        '<p class="meta">Bytes on disk are the blocks the files under each path took when the '
        "run ended, as the file system counted them; the tables and indexes are the engine's "
        f"own account of where each lies (a tablespace, a file) and its size.{note}</p>"
    )


def layout_with_paths(runs: list[Run], names: list[str]) -> str:
    """The layout by role (layout.py) and then, where recorded, the layout per path."""
    return layout_body(runs, names) + paths_body(runs, names)
