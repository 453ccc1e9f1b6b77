"""The layout (the seeds' Table 3): per target and role, the device and file system, the
files on it and the largest database objects, with sizes that say what they count:
the row data a load wrote is not the tables and indexes on disk after the run."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.database.roles import role_device
from dbstor.report.database.sizes import databases_loaded, objects_on_disk, row_data_loaded
from dbstor.report.document.private import base_name
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_value
from dbstor.results.model import Run

TOP_OBJECTS = 5
_ROLE_WORDS = {
    "log": "the transaction log (write-ahead log, redo)",
    "temp": "temporary files (sorts, hashes)",
}


def _what(run: Run) -> list[str]:
    workload = run.workload or {}
    engine = run.engine or {}
    lines = []
    if str(engine.get("name") or "fio") == "fio":
        profile = workload.get("profile") if isinstance(workload.get("profile"), dict) else {}
        count = int(profile.get("files") or profile.get("numjobs") or 1)
        size = workload.get("file_size_bytes")
        if size:
            lines.append(
                f"{count} fio test file{'s' if count > 1 else ''} of {fmt_bytes(size)}"
                + (f" ({fmt_bytes(size * count)} in all)" if count > 1 else "")
            )
        return lines
    files = [base_name(f) for f in engine.get("files") or []]
    name = engine.get("title") or engine.get("name")
    lines.append(f"{name} database" + (f": {', '.join(files)}" if files else ""))
    disk, many = objects_on_disk(run), databases_loaded(run)
    each = f" in each of its {many} databases (one per instance)" if many > 1 else ""
    if disk:
        lines.append(
            f"{disk[0]} tables and indexes, {fmt_bytes(disk[1])} on disk at the end of the run"
            f"{each} (pages, with the rows the run added)"
        )
    loaded = row_data_loaded(run)
    if loaded and many > 1:
        lines.append(
            f"{fmt_bytes(loaded / many)} of row data loaded into each ({fmt_bytes(loaded)} in "
            "all; before indexes and page overhead)"
        )
    elif loaded:
        lines.append(f"{fmt_bytes(loaded)} of row data loaded (before indexes and page overhead)")
    return lines


def _placed(run: Run) -> dict[str, str]:
    """Object name -> the role it was placed on (engine.placement, a run with `place`)."""
    entries = (run.engine or {}).get("placement")
    if not isinstance(entries, list):
        return {}
    return {
        str(e.get("object")): str(e.get("role"))
        for e in entries
        if isinstance(e, dict) and e.get("placed") and e.get("role")
    }


def _largest(run: Run, role: str = "data") -> str:
    """The largest objects on a role's path: those placed there, or (data) all the others."""
    placed = _placed(run)
    objects = [
        o
        for o in (run.engine_stats or {}).get("objects") or []
        if isinstance(o, dict) and placed.get(str(o.get("name")), "data") == role
    ]
    objects.sort(key=lambda o: -(o.get("size_bytes") or 0))
    return ", ".join(
        f"{o.get('name')} ({o.get('kind') or 'object'}, {fmt_bytes(o.get('size_bytes'))})"
        for o in objects[:TOP_OBJECTS]
    )


def _within(paths: Any, role: str, other: str) -> bool:
    """Whether a role's path is another role's (or holds it: a server's folder inside)."""
    if not isinstance(paths, dict):
        return False
    mine = [str(p).rstrip("/") for p in paths.get(role) or []]
    theirs = [str(p).rstrip("/") for p in paths.get(other) or []]
    return any(t == m or t.startswith(m + "/") for m in mine for t in theirs)


def _mount(run: Run, role: str = "data") -> str:
    """The file system a role's files are on: the role's own (target.roles), else the
    target's (the data path's) for data alone."""
    target = run.target or {}
    roles = target.get("roles")
    if isinstance(roles, dict) and isinstance(roles.get(role), dict):
        mount = roles[role].get("mount")
    else:
        mount = target.get("mount") if role == "data" else None
    return fmt_value(mount.get("fs")) if isinstance(mount, dict) else DASH


def layout_body(runs: list[Run], names: list[str]) -> str:
    """One row per run and role; the full paths are in the appendix."""
    rows: list[tuple[str, str]] = []
    for run, name in zip(runs, names, strict=True):
        target: dict[str, Any] = run.target or {}
        paths = target.get("paths")
        roles = list(paths) if isinstance(paths, dict) and paths else ["data"]
        what = _what(run)
        placed = _placed(run)
        for role in roles:
            main = role == "data" or len(roles) == 1
            on_it = what if main else [_ROLE_WORDS.get(str(role), f"the engine's {role} files")]
            count = sum(1 for r in placed.values() if r == role)
            if count and not main:
                same = _within(paths, role, "data")
                on_it = [
                    f"{count} of the tables and indexes, placed by the study on its {role} path"
                    + (", the same path as data" if same else "")
                ]
            largest = _largest(run, "data" if main else str(role)) if main or count else ""
            device = role_device(run, str(role))
            if device == "not recorded" and _within(paths, str(role), "data"):
                device = role_device(run, "data")  # an older run: its files are data's
            cells = (
                f'<th scope="row">{escape(name)}</th><td>{escape(str(role))}</td>'
                f"<td>{escape(device)}</td>"
                f"<td>{escape(_mount(run, str(role)))}</td>"
                f"<td>{'<br>'.join(escape(w) for w in on_it) or DASH}</td>"
            )
            rows.append((cells, largest))
    if not rows:
        return ""
    objects = any(largest for _, largest in rows)  # fio's test files: no column of dashes
    body = "".join(
        f"<tr>{cells}" + (f"<td>{escape(largest) or DASH}</td>" if objects else "") + "</tr>"
        for cells, largest in rows
    )
    return (
        '<div class="scroll"><table class="layout"><thead><tr><th>run</th><th>role</th>'
        "<th>device</th><th>file system</th><th>what is on it</th>"
        + ("<th>largest objects</th>" if objects else "")
        + f"</tr></thead><tbody>{body}</tbody></table></div>"
        '<p class="meta">The folders on each device are listed in the appendix.</p>'
    )
