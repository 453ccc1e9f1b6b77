"""A small ext4 (or btrfs, XFS) file system on a loop device, for tests that need a real,
separate device: one that fills up, turns read-only, sees only the test's own I/O or takes
snapshots."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class LoopFs:
    path: Path  # the mount point
    image: Path
    device: Path  # /dev/loopN

    def remount(self, mode: str) -> None:
        subprocess.run(
            ["mount", "-o", f"remount,{mode}", str(self.path)],
            check=True,
            capture_output=True,
            text=True,
        )

    def free_bytes(self) -> int:
        return shutil.disk_usage(self.path).free


def _umount(path: Path) -> None:
    for _ in range(20):
        done = subprocess.run(["umount", str(path)], capture_output=True, text=True)
        if done.returncode == 0 or not os.path.ismount(path):
            return
        time.sleep(0.25)  # a child that still has a file open there is on its way out
    subprocess.run(["umount", "-l", str(path)], capture_output=True, text=True)


@contextlib.contextmanager
def mounted_loop_fs(
    root: Path, size: str, mkfs_options: tuple[str, ...] = (), fstype: str = "ext4"
) -> Iterator[LoopFs]:
    """A file system (ext4, btrfs or xfs) of `size` in an image file under `root`, mounted
    on a loop device; unmounted and its image removed on the way out. Skips where it cannot
    be made."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a loop file system")
    for tool in (f"mkfs.{fstype}", "mount", "umount", "findmnt"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    image, mount_point = root / "loopfs.img", root / "loopfs"
    mount_point.mkdir()
    subprocess.run(["truncate", "-s", size, str(image)], check=True)
    made = subprocess.run(
        [f"mkfs.{fstype}", "-q", "-F" if fstype == "ext4" else "-f", *mkfs_options, str(image)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        image.unlink(missing_ok=True)
        pytest.skip(f"mkfs.{fstype} failed: {made.stderr.strip()}")
    mounted = subprocess.run(
        ["mount", "-o", "loop", str(image), str(mount_point)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        image.unlink(missing_ok=True)
        pytest.skip(f"cannot mount a loop file system here: {mounted.stderr.strip()}")
    try:
        source = subprocess.run(
            ["findmnt", "-n", "-o", "SOURCE", "--target", str(mount_point)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        yield LoopFs(path=mount_point, image=image, device=Path(source))
    finally:
        _umount(mount_point)
        image.unlink(missing_ok=True)
