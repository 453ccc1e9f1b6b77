"""Where PostgreSQL's server binaries are on this host, and their version (no server is
started to tell)."""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import re
import shutil
import subprocess
from pathlib import Path


def find_bindir() -> Path | None:
    """The newest /usr/lib/postgresql/*/bin holding initdb and postgres, else PATH's."""

    def version_key(path: str) -> list[int]:
        return [int(x) if x.isdigit() else 0 for x in Path(path).parent.name.split(".")]

    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version_key, reverse=True):
        if all(os.access(Path(directory, b), os.X_OK) for b in ("initdb", "postgres")):
            return Path(directory)
    candidates = []
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
        candidates.append(Path(out.stdout.strip() or "/nonexistent"))
    if shutil.which("initdb"):
        candidates.append(Path(os.path.realpath(shutil.which("initdb") or "")).parent)
    return next(
        (c for c in candidates if (c / "initdb").exists() and (c / "postgres").exists()), None
    )


@functools.lru_cache(maxsize=8)
def binary_version(bindir: Path) -> str:
    """'15.8' from `postgres -V` (does not start a server)."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(
            [str(bindir / "postgres"), "-V"], capture_output=True, text=True, timeout=10
        )
        match = re.search(r"\(PostgreSQL\)\s+(\S+)", out.stdout)
        if match:
            return match.group(1)
    return "unknown"
