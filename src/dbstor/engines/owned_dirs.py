"""The directories a managed server instance creates on the target paths, each marked.

Every directory dbstor creates on a target holds a marker file; a non-empty directory
without it is refused unless the user allows overwriting, and one marked by another running
dbstor, or still used by a server an earlier run left behind, is refused too.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dbstor import lifeline
from dbstor.engines.account import Account, can_write, chown_tree
from dbstor.engines.process import process_running
from dbstor.errors import UserError
from dbstor.safefs import empty_dir, link_refusal, new_dir, remove_file, remove_tree, write_file

MARKER_FILE = ".dbstor-engine.json"


class OwnedDirs:
    """The directories one server instance creates on the target paths, each marked."""

    def __init__(
        self,
        engine: str,
        instance: int,
        account: Account,
        allow_overwrite: bool,
        keep: bool = False,
    ):
        self.engine, self.instance, self.account = engine, instance, account
        self.allow_overwrite, self.keep = allow_overwrite, keep
        self.claimed: dict[Path, bool] = {}  # directory -> dbstor created it (mkdir)

    def claim(self, parent: Path, name: str, role: str) -> Path:
        """parent/name, empty, marked and owned by the account. A marked directory left by
        an earlier run is emptied; a foreign non-empty one is refused (UserError)."""
        path = Path(parent).absolute() / name
        if path in self.claimed:
            return path
        if not path.parent.is_dir():
            raise UserError(
                f"{role} path {path.parent} does not exist or is not a directory: "
                "create it or fix the target's paths"
            )
        created = False
        check_claimable(path, self.allow_overwrite)
        if path.is_dir():
            marker = read_marker(path)
            empty_directory(path)
            created = bool(marker and marker.get("made_dir"))  # an earlier run's: remove at stop
        else:
            new_dir(path, 0o750, fix=f"make {path.parent} writable or choose another {role} path")
            created = True
        self.claimed[path] = created
        if created and not self.keep:
            lifeline.watch_dir(path)  # removed by the watcher if dbstor is killed
        info = {
            "created_by": "dbstor",
            "engine": self.engine,
            "instance": self.instance,
            "pid": os.getpid(),
            "made_dir": created,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        # the folder is empty (emptied or new): the marker is dbstor's to write
        write_file(path / MARKER_FILE, json.dumps(info) + "\n", fix=f"choose another {role} path")
        chown_tree(path, self.account)
        if not can_write(path, self.account):
            raise UserError(
                f"the '{self.account.name}' account cannot write {path}: make its parent "
                "directories traversable (chmod o+x) or choose another path"
            )
        return path

    def subdir(self, parent: Path, name: str, mode: int = 0o700) -> Path:
        """An empty directory owned by the account inside a claimed one."""
        path = new_dir(parent / name, mode, fix="choose another path")
        os.chmod(path, mode)
        chown_tree(path, self.account)
        return path

    def write(self, path: Path, text: str) -> None:
        """A file of dbstor's in a claimed directory (a log, a config): never through a
        link, never over a file dbstor did not write."""
        write_file(path, text, fix="choose another path")

    def remove(self) -> None:
        """Remove what was claimed: directories dbstor created go, adopted ones are emptied."""
        for path, created in reversed(list(self.claimed.items())):
            if created:
                remove_tree(path)
                lifeline.forget_dir(path)
            else:
                empty_dir(path)
                remove_file(path / MARKER_FILE)
        self.claimed.clear()


def check_claimable(path: Path, allow_overwrite: bool) -> None:
    """Read-only: UserError when OwnedDirs.claim would refuse `path` (not a directory, a
    link, marked by another running dbstor, or not empty and not dbstor's without
    allow_overwrite); a preflight calls it before anything is created."""
    if path.is_symlink():
        raise link_refusal(path, "choose another path")
    if path.exists() and not path.is_dir():
        raise UserError(f"{path} exists and is not a directory: remove it or choose another path")
    if not path.is_dir():
        return
    marker = read_marker(path)
    owner = int(marker.get("pid", 0)) if marker else 0
    if marker and owner not in (0, os.getpid()) and _is_dbstor(owner):
        raise UserError(
            f"{path} is in use by another dbstor (pid {owner}): "
            "wait for it or use another instance number"
        )
    if any(path.iterdir()) and not marker and not allow_overwrite:
        raise UserError(
            f"{path} is not empty and was not created by dbstor: remove it, "
            "choose another path, or pass --allow-overwrite"
        )


def _is_dbstor(pid: int) -> bool:
    try:
        return process_running(pid) and b"dbstor" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def read_marker(path: Path) -> dict[str, Any] | None:
    """dbstor's marker in a directory, or None."""
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
        with open(os.open(path / MARKER_FILE, flags), encoding="utf-8") as handle:
            data = json.loads(handle.read(1 << 16))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and data.get("created_by") == "dbstor" else None


def empty_directory(path: Path) -> None:
    """Remove everything inside a directory, keeping the directory (never following a link)."""
    empty_dir(path)


def refuse_running(
    pidfile: Path, instance_dir: Path, commands: Sequence[bytes], what: str, stop_hint: str
) -> None:
    """UserError when a server left by an earlier run still runs from a marked instance
    directory: `pidfile` names a live process whose command line holds one of `commands`."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        pid = int(pidfile.read_text().split()[0])
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        if (
            read_marker(instance_dir)
            and process_running(pid)
            and any(name in command for name in commands)
        ):
            raise UserError(
                f"{what} left by an earlier run still runs in {pidfile.parent} (pid {pid}): "
                f"stop it ({stop_hint} {pid}) first"
            )
