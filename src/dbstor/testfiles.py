"""The test files fio works on: where they go, who owns them, laying them out, removing them.

dbstor never writes into a file it did not create unless the user says so: every file
it creates is recorded, with its inode and an owner token (an extended attribute where the
file system keeps them), in a manifest (.dbstor-owned.json) in the same
directory. A file of the same name that is not in the manifest, or whose inode differs,
belongs to someone else. A block device is refused unless the user passes both
--allow-overwrite and --i-know-this-destroys-data.

It sits at the foundation, beside errors, units and results: the io run lays out fio's
files with it, and the engines that keep database files on the target (sqlite, duckdb)
use its ownership checks (check_directory, is_owned, record_owned, remove_owned). It
imports only the foundation, never engines, drivers or runs.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path

from dbstor.errors import UserError
from dbstor.results.store import write_text_atomic
from dbstor.units import format_size

MANIFEST = ".dbstor-owned.json"
OWNER_XATTR = "user.dbstor.owner"


@dataclass(frozen=True)
class Safety:
    allow_overwrite: bool = False
    destroy_device: bool = False
    keep: bool = False


@dataclass
class TestFiles:
    files: tuple[Path, ...]
    file_size: int  # per file; 0 for block devices
    is_device: bool
    direct: bool
    reused: bool = False  # the files were left by an earlier run (--keep) and are reused

    def remove(self) -> None:
        """Remove the files dbstor created (never a device) and their manifest entries."""
        if self.is_device:
            return
        for path in self.files:
            remove_owned(path)


def _read_manifest(directory: Path) -> dict[str, dict[str, int]]:
    try:
        return json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def _write_manifest(directory: Path, entries: dict[str, dict[str, int]]) -> None:
    path = directory / MANIFEST
    if entries:
        write_text_atomic(path, json.dumps(entries, indent=1) + "\n")
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def is_owned(path: Path) -> bool:
    """Ours when the manifest names it with this inode and, where the file system keeps
    extended attributes, the file still carries the token written when it was created
    (a file deleted and made anew by someone else can get the same inode number back).
    """
    entry = _read_manifest(path.parent).get(path.name)
    try:
        if entry is None or entry.get("inode") != path.stat().st_ino:
            return False
    except FileNotFoundError:
        return False
    token = entry.get("token")
    try:
        return token is None or os.getxattr(path, OWNER_XATTR).decode() == token
    except OSError as exc:
        return exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP) and not entry.get("xattr", False)


def record_owned(path: Path) -> None:
    entries = _read_manifest(path.parent)
    entry: dict[str, object] = {"inode": path.stat().st_ino, "size": path.stat().st_size}
    previous = entries.get(path.name)
    token = previous.get("token") if previous and previous.get("inode") == entry["inode"] else None
    token = token or uuid.uuid4().hex
    try:
        os.setxattr(path, OWNER_XATTR, token.encode())
        entry.update(token=token, xattr=True)
    except OSError:
        pass  # no user xattrs here (e.g. tmpfs on older kernels): the inode alone identifies it
    entries[path.name] = entry
    _write_manifest(path.parent, entries)


def remove_owned(path: Path) -> None:
    if is_owned(path):
        path.unlink()
    entries = _read_manifest(path.parent)
    if entries.pop(path.name, None) is not None:
        _write_manifest(path.parent, entries)


def supports_direct_io(directory: Path) -> bool:
    """Whether files in this directory can be opened with O_DIRECT (tmpfs cannot)."""
    probe = directory / f".dbstor-direct-probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | getattr(os, "O_DIRECT", 0), 0o600)
        os.close(fd)
        return True
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            probe.unlink()


def check_directory(path: Path) -> None:
    """A usable target directory: exists, is a directory, is writable. Else one clear line."""
    if not path.exists():
        raise UserError(
            f"target path {path} does not exist: create it (e.g. mkdir -p {path}) or fix the path"
        )
    if not path.is_dir():
        raise UserError(f"target path {path} is not a directory or a block device")
    if os.statvfs(path).f_flag & os.ST_RDONLY:
        raise UserError(
            f"target path {path} is on a read-only file system: choose a writable target"
        )
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"target path {path} is not writable: choose a directory you can write")
    try:
        probe = path / f".dbstor-write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise UserError(
                f"target path {path} is on a read-only file system: choose a writable target"
            ) from None
        raise UserError(f"cannot write in target path {path}: {exc.strerror}") from None


def plan_files(
    paths: tuple[Path, ...], profile_name: str, files_per_path: int, total_size: int, safety: Safety
) -> TestFiles:
    """Decide the test files for one run and check that dbstor may use them."""
    if len(paths) == 1 and paths[0].exists() and stat.S_ISBLK(paths[0].stat().st_mode):
        device = paths[0]
        if not (safety.allow_overwrite and safety.destroy_device):
            raise UserError(
                f"{device} is a block device and fio's writes would destroy its data: pass "
                "--allow-overwrite --i-know-this-destroys-data if that is what you want"
            )
        return TestFiles(files=(device,), file_size=0, is_device=True, direct=True)
    for path in paths:
        check_directory(path)
    count = len(paths) * files_per_path
    per_file = max(1024 * 1024, total_size // count // (1024 * 1024) * (1024 * 1024))
    files = tuple(
        path / f"dbstor-{profile_name}-{i}.dat" for path in paths for i in range(files_per_path)
    )
    for file in files:
        if file.exists() and not is_owned(file) and not safety.allow_overwrite:
            raise UserError(
                f"{file} exists and was not created by dbstor: move it away, choose another target, "
                "or pass --allow-overwrite to let dbstor overwrite it"
            )
    direct = all(supports_direct_io(p) for p in paths)
    return TestFiles(files=files, file_size=per_file, is_device=False, direct=direct)


def check_free_space(test_files: TestFiles) -> None:
    """Refuse before starting when the file system cannot hold the test files."""
    if test_files.is_device:
        return
    needed: dict[int, tuple[Path, int]] = {}
    for file in test_files.files:
        have = file.stat().st_size if file.exists() else 0
        device = file.parent.stat().st_dev
        path, total = needed.get(device, (file.parent, 0))
        needed[device] = (path, total + max(0, test_files.file_size - have))
    for path, total in needed.values():
        free = shutil.disk_usage(path).free
        if total > free:
            raise UserError(
                f"the test files need {format_size(total)} more under {path} but only "
                f"{format_size(free)} is free: free space or choose a smaller --size"
            )


def reusable(test_files: TestFiles) -> bool:
    """Whether every file already exists at full size and belongs to dbstor (kept earlier)."""
    return not test_files.is_device and all(
        f.exists() and is_owned(f) and f.stat().st_size >= test_files.file_size
        for f in test_files.files
    )


def record_created(test_files: TestFiles) -> None:
    for file in test_files.files:
        if file.exists() and not test_files.is_device:
            record_owned(file)
