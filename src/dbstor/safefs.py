"""Every file and folder dbstor creates, replaces or removes in a results folder goes
through here: never through a link, never over someone else's file.

- A folder dbstor makes for a run or a study is made new (exclusive); a link, a file or
  a folder already at its name is refused in one line and left as it is.
- A file is written to a temporary file created exclusively (O_EXCL, O_NOFOLLOW) in the
  same folder, opened by descriptor, marked as dbstor's (an extended attribute, where the
  file system keeps them), then renamed over the name: readers see the old file or the new
  one. What is at the name already must be a regular file dbstor wrote (this process, or
  one carrying the mark), or one the caller recognises as dbstor's (an earlier report.html
  without the mark, say); a link or any other file is refused and left as it is.
- Removing a folder never follows a link in it.

The user's own --out (or --report, --html folder) may be reached through a link they
named; what dbstor makes inside it never is. Test files and database files keep their own
ownership manifest (testfiles.py) and engine folders their marker (engines/owned_dirs.py):
those say whose a file is; making, replacing and removing it goes through here
(create_file, remove_file, make_dir, remove_tree), which never follows a link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dbstor.errors import UserError

NO_FOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
GENERATOR_MARK = b'<meta name="generator" content="dbstor'
WRITTEN_XATTR = "user.dbstor.written"  # on every file written here, for later runs

_written: set[tuple[int, int]] = set()  # (device, inode) of the files this process wrote


def not_ours(path: Path, what: str, fix: str = "choose another --out") -> UserError:
    return UserError(
        f"{path} {what}, and dbstor writes only files it made: move it away or {fix} "
        "(dbstor leaves it as it is)"
    )


def link_refusal(path: Path, fix: str = "choose another --out") -> UserError:
    return UserError(
        f"{path} is a symbolic link: dbstor never writes through links nor replaces them; "
        f"remove it or {fix}"
    )


def is_dbstor_html(path: Path) -> bool:
    """An HTML page dbstor wrote (its generator mark near the top); never follows a link."""
    try:
        fd = os.open(path, os.O_RDONLY | NO_FOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    with open(fd, "rb") as handle:
        return stat.S_ISREG(os.fstat(fd).st_mode) and GENERATOR_MARK in handle.read(4096)


def new_dir(path: Path, mode: int = 0o755, fix: str = "choose another --out") -> Path:
    """Make a folder for dbstor's own files, new; refuse whatever is at its name."""
    try:
        os.mkdir(path, mode)
    except FileExistsError:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise link_refusal(path, fix) from None
        kind = "is a folder dbstor did not make now" if stat.S_ISDIR(info.st_mode) else "exists"
        raise not_ours(path, kind, fix) from None
    except OSError as exc:
        raise _os_refusal(path, exc, fix) from None
    return path


def make_dir(path: Path, mode: int = 0o755, fix: str = "choose another path") -> bool:
    """A folder dbstor uses at path: made (True) when missing; a folder already there is
    used (False); a link or anything else is refused in one line."""
    try:
        new_dir(path, mode, fix)
        return True
    except UserError:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            return False
        raise


def create_file(path: Path, exclusive: bool = False, fix: str = "choose another target") -> None:
    """Create an empty regular file at path, never through a link (a link there is refused
    in one line). exclusive: anything already there is refused too; else a regular file
    already there is kept (its owner was checked by the caller)."""
    flags = os.O_WRONLY | os.O_CREAT | NO_FOLLOW | (os.O_EXCL if exclusive else 0)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, 0o644)
    except FileExistsError:
        if os.path.islink(path):
            raise link_refusal(path, fix) from None
        raise not_ours(path, "exists", fix) from None
    except IsADirectoryError:
        raise not_ours(path, "exists and is not a regular file", fix) from None
    except OSError as exc:
        raise _os_refusal(path, exc, fix) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise not_ours(path, "exists and is not a regular file", fix)
    finally:
        os.close(fd)


def remove_file(path: Path) -> bool:
    """Remove the regular file at path (whose the caller checked); a link, a folder or
    anything else there is left as it is. True when a file was removed."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        os.unlink(path)  # unlink never follows a link
    except FileNotFoundError:
        return False
    return True


def refuse_link(path: Path, flag: str) -> None:
    """Refuse an output the user named (a file or a folder) that is itself a symbolic link:
    dbstor writes nothing through a link, the user's own included (a link to /etc would
    put dbstor's files there); the message names where it points, to give instead."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise UserError(
            f"{flag} {path} is a symbolic link (to {os.path.realpath(path)}): dbstor never "
            "writes through links; give the folder or file itself, or another name"
        )


def user_dir(path: Path, flag: str) -> Path:
    """A folder the user named (--out, --report, --parquet): made with its parents when
    missing; a link at its name is refused (refuse_link). One line when it cannot be a
    folder."""
    refuse_link(path, flag)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UserError(f"{flag} {path}: exists and is not a folder; give a folder") from None
    except OSError as exc:
        raise UserError(
            f"{flag} {path}: cannot create it ({exc.strerror}); choose a folder you can write"
        ) from None
    refuse_link(path, flag)  # made by someone else meanwhile
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"{flag} {path}: cannot write there; choose a folder you can write")
    return path


def _os_refusal(path: Path, exc: OSError, fix: str = "choose another --out") -> UserError:
    if exc.errno == errno.ELOOP:
        return link_refusal(path, fix)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return UserError(f"the file system is full (writing {path}): free space and run again")
    if exc.errno == errno.ENOENT and not path.parent.is_dir():
        return UserError(f"cannot write {path}: its folder {path.parent} does not exist; {fix}")
    if exc.errno == errno.EROFS:
        return UserError(f"cannot write {path}: the file system is read-only; {fix}")
    return UserError(f"cannot write {path}: {exc.strerror}; {fix}")


def _check_replaceable(
    dir_fd: int, path: Path, replaceable: Callable[[Path], bool] | None, fix: str
) -> None:
    try:
        info = os.lstat(path.name, dir_fd=dir_fd)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise link_refusal(path, fix)
    if not stat.S_ISREG(info.st_mode):
        raise not_ours(path, "exists and is not a regular file", fix)
    if (info.st_dev, info.st_ino) in _written or _marked(dir_fd, path.name):
        return
    if replaceable is not None and replaceable(path):
        return
    raise not_ours(path, "exists and was not written by dbstor", fix)


def _mark(fd: int) -> None:
    """Mark a file dbstor wrote (an extended attribute), where the file system keeps them."""
    with contextlib.suppress(OSError):
        os.setxattr(fd, WRITTEN_XATTR, b"1")


def _marked(dir_fd: int, name: str) -> bool:
    """Whether the regular file `name` carries dbstor's mark; on a file system without
    user extended attributes dbstor cannot tell, and takes it as its own (as before)."""
    try:
        fd = os.open(name, os.O_RDONLY | NO_FOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        return os.getxattr(fd, WRITTEN_XATTR) == b"1"
    except OSError as exc:
        return exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP)
    finally:
        os.close(fd)


@contextmanager
def _directory(path: Path) -> Iterator[int]:
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def check_writable(
    path: Path,
    replaceable: Callable[[Path], bool] | None = None,
    fix: str = "choose another --out",
) -> None:
    """What write_file checks first, alone: a command that writes several files checks
    them all before it writes any (a refusal then leaves none of them half done)."""
    with _directory(path) as dir_fd:
        _check_replaceable(dir_fd, path, replaceable, fix)


def write_file(
    path: Path,
    text: str | bytes,
    replaceable: Callable[[Path], bool] | None = None,
    before_rename: Callable[[int], object] | None = None,
    fix: str = "choose another --out",
) -> None:
    """Write path atomically (see the module's doc). `replaceable(path)` says whether a
    file already there that this process did not write is dbstor's; `before_rename(fd)`
    runs on the written temporary file (to set an extended attribute, say); `fix` is what
    a refusal tells the user to do instead."""
    # A name of its own (a file the user keeps at ".name.tmp" is never touched).
    tmp_name = f".{path.name[:100]}.{secrets.token_hex(4)}.tmp"
    data = text.encode("utf-8") if isinstance(text, str) else text
    # An OSError goes to the caller (a full disk is said with what was kept), naming path:
    # the temporary file is dbstor's business, never the user's.
    try:
        _write_replacing(path, tmp_name, data, replaceable, before_rename, fix)
    except OSError as exc:
        exc.filename, exc.filename2 = str(path), None
        raise


def _write_replacing(
    path: Path,
    tmp_name: str,
    data: bytes,
    replaceable: Callable[[Path], bool] | None,
    before_rename: Callable[[int], object] | None,
    fix: str,
) -> None:
    with _directory(path) as dir_fd:
        _check_replaceable(dir_fd, path, replaceable, fix)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW
        fd = os.open(tmp_name, flags, 0o644, dir_fd=dir_fd)
        try:
            with open(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                _mark(handle.fileno())
                if before_rename is not None:
                    before_rename(handle.fileno())
                os.fsync(handle.fileno())
                info = os.fstat(handle.fileno())
            _check_replaceable(dir_fd, path, replaceable, fix)  # nothing slipped in meanwhile
            os.replace(tmp_name, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            _written.add((info.st_dev, info.st_ino))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name, dir_fd=dir_fd)


@contextmanager
def staged_beside(path: Path, fix: str = "choose another name") -> Iterator[Path]:
    """A new private folder beside path (in its folder, so a rename or link into place
    stays on one file system), for a file a library writes by name (SQLite, DuckDB,
    Parquet); put in place with place_new; removed with all that is left in it however the
    block ends (a full disk, a signal): no half-written file is left at path."""
    try:
        scratch = Path(
            tempfile.mkdtemp(prefix=f".{path.name[:60]}.", suffix=".tmp", dir=path.parent)
        )
    except OSError as exc:
        raise _os_refusal(path, exc, fix) from None
    try:
        yield scratch
    finally:
        remove_tree(scratch)


def place_new(staged: Path, path: Path, fix: str = "choose another name") -> None:
    """Give the finished file `staged` (from staged_beside) the name path, which must be
    free: a link, a file or a folder there is refused in one line and left as it is."""
    with _directory(path) as dir_fd:
        try:
            os.link(staged, path.name, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            if stat.S_ISLNK(os.lstat(path.name, dir_fd=dir_fd).st_mode):
                raise link_refusal(path, fix) from None
            raise UserError(f"{path} exists: {fix} (dbstor does not replace it)") from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise _os_refusal(path, exc, fix) from None
            _rename_new(staged, path, dir_fd, fix)  # a file system without hard links
        info = os.lstat(path.name, dir_fd=dir_fd)
        _written.add((info.st_dev, info.st_ino))


def _rename_new(staged: Path, path: Path, dir_fd: int, fix: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.lstat(path.name, dir_fd=dir_fd)
        raise UserError(f"{path} exists: {fix} (dbstor does not replace it)")
    try:
        os.rename(staged, path.name, dst_dir_fd=dir_fd)
    except OSError as exc:
        raise _os_refusal(path, exc, fix) from None


def write_new(path: Path, data: bytes, fix: str = "choose another name") -> None:
    """Write a new file at path (nothing may be there), whole or not at all."""
    with staged_beside(path, fix) as scratch:
        staged = scratch / "file"
        try:
            staged.write_bytes(data)
        except OSError as exc:
            raise _os_refusal(path, exc, fix) from None
        place_new(staged, path, fix)


def open_for_append(path: Path) -> int:
    """A descriptor appending to path (made when missing), never through a link; a file
    already there must be one this process wrote."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | NO_FOLLOW, 0o644)
    info = os.fstat(fd)
    if info.st_size and (info.st_dev, info.st_ino) not in _written:
        os.close(fd)
        raise not_ours(path, "exists and was not written by dbstor")
    _written.add((info.st_dev, info.st_ino))
    return fd


def remove_tree(path: Path) -> None:
    """Remove a folder dbstor made, never following a link (a link itself is left)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)  # rmtree never follows links inside


def empty_dir(path: Path) -> None:
    """Remove everything inside a folder dbstor uses, keeping the folder; never follows a
    link (a link inside is removed as a name, its target left)."""
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(child)
