"""What belongs to the machine, not the reader: paths, process ids, ports, cgroups and
connection strings. The body of the document leaves these out (or keeps only a file's
name); the appendix lists them."""

from __future__ import annotations

import re
from typing import Any

MACHINE_KEYS = frozenset(
    {
        "paths", "path", "files", "file", "pid", "pids", "port", "socket", "unix_socket",
        "data_dir", "datadir", "cgroup", "cgroup_path", "dsn", "log", "log_file",
        "scratch", "folder", "run_folder", "owner", "source_path", "memory_cap",
    }
)  # fmt: skip
_PATH = re.compile(r"(?<![\w.:/])/(?:[\w.@+-]+/)+([\w.@+-]*)")


def is_machine(key: str, value: Any) -> bool:
    """A fact that names this machine's paths, processes or ports."""
    if str(key).lower() in MACHINE_KEYS:
        return True
    return isinstance(value, str) and value.startswith("/")


def scrub(text: str) -> str:
    """Free text with every absolute path cut to its last part: 'in /mnt/x/db.sqlite'
    -> 'in db.sqlite' (the appendix keeps the full path)."""
    return _PATH.sub(lambda m: m.group(1) or "a folder", text)


def base_name(path: Any) -> str:
    """The last part of a path, for the body of the document."""
    text = str(path).rstrip("/")
    return text.rsplit("/", 1)[-1] or text
