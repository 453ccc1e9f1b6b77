"""What sits on each of a run's paths at its end, read from the file system: per instance,
role (data, log, temp, a role `place` names) and path, the device under it, the files and
the bytes they take on disk (allocated blocks, as du counts them), before the worker
cleans up. The seeds' layout tables (TR-4403 Table 3, TR-4367 Tables 5/6, TR-4415
Table 3, TR-3476 Table 4) name each LUN's contents and size; this is the measured half,
the engine's objects on each path (engine_stats.objects[].path) the other."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dbstor.telemetry.disk import devices_for_path


def bytes_under(path: str | os.PathLike[str]) -> tuple[int, int]:
    """(files, bytes allocated on disk) under a directory or of a file, never following
    a link (PostgreSQL's pg_tblspc and pg_wal links lead to other paths, counted there)."""
    top = Path(path)
    try:
        st = top.lstat()
    except OSError:
        return 0, 0
    if not top.is_dir() or top.is_symlink():
        return (1, st.st_blocks * 512) if top.is_file() and not top.is_symlink() else (0, 0)
    files = allocated = 0
    for folder, _dirs, names in os.walk(top, followlinks=False):
        for name in names:
            try:
                entry = os.lstat(os.path.join(folder, name))
            except OSError:
                continue  # removed while we walked (a temp file)
            if not os.path.islink(os.path.join(folder, name)):
                files += 1
                allocated += entry.st_blocks * 512
    return files, allocated


def path_layout(engines: list[Any]) -> list[dict[str, Any]]:
    """One entry per instance, role and path of the engines' files (data_paths()): the
    path, its top device (null when no block device holds it), files and bytes on disk."""
    rows = []
    for instance, engine in enumerate(engines):
        for role, paths in engine.data_paths().items():
            for path in paths:
                files, allocated = bytes_under(path)
                devices = devices_for_path(path) if Path(path).exists() else []
                rows.append(
                    {
                        "instance": instance,
                        "role": role,
                        "path": str(path),
                        "device": devices[0] if devices else None,
                        "files": files,
                        "bytes_on_disk": allocated,
                    }
                )
    return rows
