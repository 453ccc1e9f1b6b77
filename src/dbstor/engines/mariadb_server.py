"""What a managed MariaDB or MySQL server needs on this host: its server binary and version
(found on PATH or in the usual server directories, without starting it) and the my.cnf it
starts with."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from dbstor.errors import UserError

DEFAULT_BUFFER_BYTES = 32 << 20
MAX_CONNECTIONS = 600
SEARCH_DIRS = ("/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin", "/usr/libexec", "/usr/bin")
INNODB_PAGE = 16 << 10
DEFAULT_LRU_SCAN_DEPTH = 1536


def lru_scan_depth(pool_bytes: int) -> int:
    """InnoDB's free-page target, at most an eighth of a small buffer pool."""
    return max(128, min(DEFAULT_LRU_SCAN_DEPTH, pool_bytes // INNODB_PAGE // 8))


def find_binary(names: tuple[str, ...]) -> Path | None:
    """The first of `names` on PATH or in the usual server directories."""
    for name in names:
        found = shutil.which(name) or next(
            (str(Path(d, name)) for d in SEARCH_DIRS if os.access(Path(d, name), os.X_OK)), None
        )
        if found:
            return Path(found)
    return None


@functools.lru_cache(maxsize=8)
def binary_version(server: Path) -> str:
    """The `--version` line of a server binary (does not start it)."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return subprocess.run(
            [str(server), "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    return ""


def my_cnf(
    datadir: Path,
    sockdir: Path,
    port: int,
    home: Path,
    tmp: Path | None,
    redo: Path | None,
    buffers: int,
    extra: Sequence[str],
) -> list[str]:
    """The [mysqld] lines of a managed server: its directories, 127.0.0.1 and a private
    socket only, O_DIRECT, the buffer pool asked for, performance_schema for per-file I/O;
    `extra` adds the flavour's own lines."""
    return [
        f"datadir={datadir}",
        f"socket={sockdir / 'mysqld.sock'}",
        f"port={port}",
        f"pid-file={home / 'server.pid'}",
        f"log-error={home / 'server.log'}",
        "bind-address=127.0.0.1",
        "skip-name-resolve",
        f"tmpdir={tmp or datadir}",
        "innodb_flush_method=O_DIRECT",
        f"innodb_buffer_pool_size={buffers}",
        # the default keeps 1,536 pages free per pool: most of a small pool would hold no data
        f"innodb_lru_scan_depth={lru_scan_depth(buffers)}",
        "innodb_file_per_table=ON",
        "innodb_flush_log_at_trx_commit=1",
        f"max_connections={MAX_CONNECTIONS}",
        "performance_schema=ON",
        "character-set-server=utf8mb4",
        *([f"innodb_log_group_home_dir={redo}"] if redo else []),
        *extra,
    ]


# What my.cnf (and the DATA DIRECTORY='...' of a CREATE TABLE) reads specially in a value.
_OPTION_FILE_SPECIAL = {
    "#": "starts a comment in my.cnf",
    ";": "starts a comment in my.cnf",
    "\\": "is an escape character in my.cnf",
    "'": "quotes a value in my.cnf and in SQL",
    '"': "quotes a value in my.cnf",
}


def check_option_path(path: Path, what: str) -> None:
    """A path that goes into my.cnf or DATA DIRECTORY='...' exactly as written, or a
    UserError in one line (a '#' would cut datadir= short: the server would use another
    directory; a newline would add options of its own)."""
    text = str(path)
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        why = "a control character (a newline) would end the option in my.cnf"
    else:
        why = next((f"{c!r} {r}" for c, r in _OPTION_FILE_SPECIAL.items() if c in text), "")
    if why:
        raise UserError(
            f"{what} {text[:120]!r}: MariaDB cannot take it ({why}); rename it without that "
            "character"
        )
