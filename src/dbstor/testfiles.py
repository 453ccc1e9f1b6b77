"""The test files fio works on: where they go, who owns them, laying them out, removing them.

dbstor never writes into a file it did not create unless the user says so: every file
it creates is recorded, with its inode and an owner token (an extended attribute where the
file system keeps them), in a manifest (.dbstor-owned.json) in the same
directory. A file of the same name that is not in the manifest, or whose inode differs,
belongs to someone else. A block device is refused unless the user passes both
--allow-overwrite and --i-know-this-destroys-data.

No link is ever followed: a symbolic link with a test file's name or the manifest's is
refused (never written through, never deleted), and a file named like the manifest that
dbstor did not write (wrong content, or missing the token in its extended attribute) is
refused and left as it is.

It sits at the foundation, beside errors, units and results: the io run lays out fio's
files with it, and the engines that keep database files on the target (sqlite, duckdb)
use its ownership checks (check_directory, is_owned, record_owned, remove_owned). It
imports only the foundation, never engines, drivers or runs.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.results.store import write_text_atomic
from dbstor.safefs import create_file, link_refusal, remove_file
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

    def remove(self) -> list[tuple[Path, str]]:
        """Remove the files dbstor created (never a device) and their manifest entries;
        the files that could not be removed (a file system turned read-only), and why."""
        left: list[tuple[Path, str]] = []
        if self.is_device:
            return left
        for path in self.files:
            try:
                remove_owned(path)
            except OSError as exc:
                if os.path.lexists(path):
                    left.append((path, exc.strerror or str(exc)))
        return left


def _foreign_manifest(path: Path, why: str) -> UserError:
    return UserError(
        f"{path} {why} and was not written by dbstor (dbstor keeps its list of the files it "
        "made under that name): move it away or choose another target; dbstor leaves it as it is"
    )


def _xattr(path: Path | int) -> str | None:
    """The owner token in the extended attribute; None when there is none or no xattrs."""
    try:
        if isinstance(path, int):
            return os.getxattr(path, OWNER_XATTR).decode()
        return os.getxattr(path, OWNER_XATTR, follow_symlinks=False).decode()
    except (OSError, UnicodeDecodeError):
        return None


def _xattrs_work(path: Path) -> bool:
    try:
        os.getxattr(path, OWNER_XATTR, follow_symlinks=False)
    except OSError as exc:
        return exc.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP)
    return True


def _read_manifest(directory: Path) -> dict[str, dict[str, Any]]:
    """The manifest's entries ({} when there is none); UserError when a file of that name is
    a link, not a regular file, or not dbstor's."""
    path = directory / MANIFEST
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _foreign_manifest(path, "is a symbolic link") from None
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _foreign_manifest(path, "is not a regular file")
        raw, token = handle.read(1 << 22), _xattr(fd)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise _foreign_manifest(path, "is not JSON") from None
    if isinstance(data, dict) and data.get("created_by") == "dbstor":
        files = data.get("files")
        if data.get("xattr") and token != data.get("token"):
            raise _foreign_manifest(path, "does not carry dbstor's token")
    else:
        files = data  # the first form: names -> entries
    if not isinstance(files, dict) or not all(
        isinstance(e, dict) and isinstance(e.get("inode"), int) for e in files.values()
    ):
        raise _foreign_manifest(path, "does not list files as dbstor does")
    return files


def _write_manifest(directory: Path, entries: dict[str, dict[str, Any]]) -> None:
    path = directory / MANIFEST
    if not entries:
        remove_file(path)  # read and checked as dbstor's by the caller
        return
    token = uuid.uuid4().hex
    works = _xattrs_work(directory)
    data = {"created_by": "dbstor", "token": token, "xattr": works, "files": entries}
    write_text_atomic(
        path,
        json.dumps(data, indent=1) + "\n",
        before_rename=lambda fd: os.setxattr(fd, OWNER_XATTR, token.encode()) if works else None,
        replaceable=_is_our_manifest,
    )


def _is_our_manifest(path: Path) -> bool:
    """The manifest there is dbstor's (a foreign file of its name raises UserError)."""
    _read_manifest(path.parent)
    return True


def refuse_link(path: Path) -> None:
    if os.path.islink(path):  # the same refusal as every other name dbstor writes
        raise link_refusal(path, "choose another target")


def is_owned(path: Path) -> bool:
    """Ours when the manifest names it with this inode and, where the file system keeps
    extended attributes, the file still carries the token written when it was created
    (a file deleted and made anew by someone else can get the same inode number back).
    A symbolic link is never ours.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode) and not stat.S_ISBLK(info.st_mode):
        return False
    entry = _read_manifest(path.parent).get(path.name)
    if entry is None or entry.get("inode") != info.st_ino:
        return False
    token = entry.get("token")
    try:
        return (
            token is None or os.getxattr(path, OWNER_XATTR, follow_symlinks=False).decode() == token
        )
    except OSError as exc:
        return exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP) and not entry.get("xattr", False)


def refuse_foreign(paths: list[Path], allow_overwrite: bool) -> None:
    """A database file (paths[0]) and its sidecar files, before an embedded engine makes
    them: UserError for a link, or for any of them present while the file is not dbstor's
    or is missing (unless allow_overwrite). Read-only."""
    for path in paths:
        refuse_link(path)  # never written through, never removed
    ours = is_owned(paths[0])  # a sidecar without dbstor's file is not dbstor's either
    for path in paths:
        if path.exists() and not ours and not allow_overwrite:
            raise UserError(
                f"{path} exists and was not created by dbstor: move it away, choose another "
                "target, or pass --allow-overwrite"
            )


def create_owned(path: Path) -> None:
    """Create the file if it is not there (never through a link) and record it as ours."""
    create_file(path)
    record_owned(path)


def record_owned(path: Path) -> None:
    refuse_link(path)
    entries = _read_manifest(path.parent)
    info = os.lstat(path)
    entry: dict[str, Any] = {"inode": info.st_ino, "size": info.st_size}
    previous = entries.get(path.name)
    token = previous.get("token") if previous and previous.get("inode") == entry["inode"] else None
    token = token or uuid.uuid4().hex
    try:
        os.setxattr(path, OWNER_XATTR, token.encode(), follow_symlinks=False)
        entry.update(token=token, xattr=True)
    except OSError:
        pass  # no user xattrs here (e.g. tmpfs on older kernels): the inode alone identifies it
    entries[path.name] = entry
    _write_manifest(path.parent, entries)


def remove_owned(path: Path) -> None:
    """Remove the file if it is ours (never a link, never a foreign file) and its entry."""
    if is_owned(path):
        remove_file(path)
    entries = _read_manifest(path.parent)
    if entries.pop(path.name, None) is not None:
        _write_manifest(path.parent, entries)


def supports_direct_io(directory: Path) -> bool:
    """Whether files in this directory can be opened with O_DIRECT (tmpfs cannot)."""
    probe = directory / f".dbstor-direct-probe-{os.getpid()}"
    remove_file(probe)  # a killed run's
    try:
        flags = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_WRONLY | getattr(os, "O_DIRECT", 0)
        fd = os.open(probe, flags, 0o600)
        os.close(fd)
        return True
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    finally:
        remove_file(probe)


def check_directory(path: Path) -> None:
    """A usable target directory: exists, is a directory, is writable. Else one clear line."""
    if not path.exists():
        raise UserError(
            f"target path {path} does not exist: create it (e.g. mkdir -p {path}) or fix the path"
        )
    if not path.is_dir():
        if stat.S_ISBLK(path.stat().st_mode):
            raise UserError(
                f"target path {path} is a block device, and this engine keeps its files in a "
                "directory: make a file system on it, mount it and give the mount point "
                "(only fio runs on a raw device)"
            )
        raise UserError(
            f"target path {path} is not a directory: give a directory (or, for fio, a block device)"
        )
    if os.statvfs(path).f_flag & os.ST_RDONLY:
        raise UserError(
            f"target path {path} is on a read-only file system: choose a writable target"
        )
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"target path {path} is not writable: choose a directory you can write")
    try:
        probe = path / f".dbstor-write-probe-{os.getpid()}"
        remove_file(probe)
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_WRONLY, 0o600))
        remove_file(probe)
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise UserError(
                f"target path {path} is on a read-only file system: choose a writable target"
            ) from None
        raise UserError(f"cannot write in target path {path}: {exc.strerror}") from None


def is_block_device(path: Path) -> bool:
    try:
        return stat.S_ISBLK(path.stat().st_mode)
    except OSError:
        return False


def planned_file_names(
    paths: tuple[Path, ...], profile_name: str, files_per_path: int
) -> tuple[Path, ...]:
    """The names of a run's test files: files_per_path in each target directory."""
    return tuple(
        path / f"dbstor-{profile_name}-{i}.dat" for path in paths for i in range(files_per_path)
    )


def plan_files(
    paths: tuple[Path, ...], profile_name: str, files_per_path: int, total_size: int, safety: Safety
) -> TestFiles:
    """Decide the test files for one run and check that dbstor may use them."""
    if len(paths) == 1 and is_block_device(paths[0]):
        device = paths[0]
        if not (safety.allow_overwrite and safety.destroy_device):
            raise UserError(
                f"{device} is a block device and fio's writes would destroy its data: pass "
                "--allow-overwrite --i-know-this-destroys-data if that is what you want"
            )
        return TestFiles(files=(device,), file_size=0, is_device=True, direct=True)
    for path in paths:
        check_directory(path)
        refuse_link(path / MANIFEST)
        _read_manifest(path)  # a foreign file of that name is refused before anything is made
    count = len(paths) * files_per_path
    per_file = max(1024 * 1024, total_size // count // (1024 * 1024) * (1024 * 1024))
    files = planned_file_names(paths, profile_name, files_per_path)
    for file in files:
        refuse_link(file)
        if os.path.lexists(file) and not stat.S_ISREG(os.lstat(file).st_mode):
            raise UserError(
                f"{file} exists and is not a regular file: move it away or choose another target"
            )
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
        have = file.stat().st_blocks * 512 if file.exists() else 0  # a sparse file holds less
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


def create_files(test_files: TestFiles) -> None:
    """Create the test files that are not there yet (never through a link) and record them
    all as dbstor's before anything is written into them."""
    if not test_files.is_device:
        for file in test_files.files:
            create_owned(file)


def write_zero_blocks(test_files: TestFiles, share_pct: float, block: int = 8192) -> int:
    """Overwrite an evenly spread share of each laid-out test file's blocks with zeros, so
    that the files hold the zero blocks a from: source had (fio writes none). Only files
    dbstor made, never through a link. Returns the blocks zeroed."""
    if test_files.is_device or share_pct <= 0:
        return 0
    share = min(share_pct, 100.0) / 100.0
    zeros = bytes(block)
    done = 0
    for file in test_files.files:
        if not is_owned(file):
            continue
        fd = os.open(file, os.O_WRONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        try:
            blocks = os.fstat(fd).st_size // block
            for i in range(blocks):  # block i is zero when the running share steps up
                if int((i + 1) * share) > int(i * share):
                    os.pwrite(fd, zeros, i * block)
                    done += 1
            os.fsync(fd)
        finally:
            os.close(fd)
    return done
