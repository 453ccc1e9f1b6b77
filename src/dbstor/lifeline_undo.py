"""The lifeline watcher's undo of an event's changes: cgroup throttles put back as they
were, btrfs snapshots dbstor made deleted. Foundation: the standard library only."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess


def lift_throttles(throttles: dict[tuple[str, str], str]) -> None:
    """Put back each cgroup throttle rule that was there before dbstor's event."""
    for (path, _), restore in throttles.items():
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
            try:
                os.write(fd, restore.encode())
            finally:
                os.close(fd)


def delete_subvolumes(paths: set[str]) -> None:
    """Delete each snapshot dbstor made that is still there: a directory (never a link)
    named .dbstor-snapshot-*, the root of a btrfs subvolume (inode 256)."""
    for path in paths:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        own_name = os.path.basename(path).startswith(".dbstor-snapshot-")
        if own_name and stat.S_ISDIR(info.st_mode) and info.st_ino == 256:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(
                    ["btrfs", "subvolume", "delete", path],
                    capture_output=True,
                    timeout=120,
                    check=False,
                )
