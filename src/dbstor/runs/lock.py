"""One run per output folder and per target at a time.

Two runs writing the same --out, or loading the same target, would mix their files and
each other's load into their figures. Before anything is created, a run takes an flock on
one lock file per --out and per target directory; a second run is refused in one line
naming the first (its pid, host and start). The lock files live in a directory dbstor
owns (mode 0700, this user's, never a link): $XDG_RUNTIME_DIR/dbstor-locks or
/tmp/dbstor-locks-UID, named by a hash of the folder's absolute path, so nothing is made
in the user's folders to take them. The kernel drops a lock when its holder ends, even by
kill -9.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import socket
import stat
import tempfile
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from dbstor.errors import UserError


def lock_dir() -> Path:
    """dbstor's own directory for lock files; refused when it is not this user's own."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "dbstor-locks" if runtime else None
    if base is None or not base.parent.is_dir():
        base = Path(tempfile.gettempdir()) / f"dbstor-locks-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, 0o700)
    info = os.lstat(base)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise UserError(
            f"{base} is not a private directory of this user (dbstor keeps its run locks "
            "there): remove it or set XDG_RUNTIME_DIR to a directory of your own"
        )
    return base


def run_facts() -> str:
    """This process as a run's holder: pid, host and start (a cluster's coordinator hands
    it to its hosts' agents, whose locks then name the run, not the agent)."""
    started = datetime.now().astimezone().isoformat(timespec="seconds")
    return f"pid {os.getpid()} on {socket.gethostname()}, started {started}"


def _holder(fd: int) -> str:
    """Who holds a lock, from what the holder wrote into the lock file."""
    try:
        facts = json.loads(os.pread(fd, 4096, 0) or b"{}")
        own = f"pid {facts['pid']} on {facts['host']}, started {facts['started']}"
        return f"{facts['run']}; its agent {own}" if facts.get("run") else own
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has only just started"


def _take(what: str, folder: Path, base: Path, scope: str = "", run: str = "") -> int:
    name = f"{scope}\0{folder}" if scope else str(folder)
    key = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    path = base / f"{key}.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise UserError(f"cannot open the run lock {path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _holder(fd)
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise UserError(f"cannot lock {path}: {exc.strerror}") from None
        raise UserError(
            f"another dbstor run ({holder}) is using {what} {folder}: wait for it to end, "
            "or give this run another --out or target"
        ) from None
    facts = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "folder": str(folder),
        **({"run": run} if run else {}),
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(facts).encode("utf-8", "surrogateescape"), 0)
    return fd


def target_locks(host: str, targets: Sequence[Path], run: str = "") -> list[int]:
    """A cluster host's locks on its target directories (scoped by the host's name, so two
    hosts of one run on one machine do not refuse each other); the caller holds the
    descriptors for the run and passes them to release() at its end."""
    base = lock_dir()
    fds: list[int] = []
    try:
        for folder in sorted({Path(os.path.abspath(t)) for t in targets}):
            fds.append(_take(f"host {host}'s target", folder, base, scope=host, run=run))
    except BaseException:
        release(fds)
        raise
    return fds


def release(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing the file drops its lock


@contextlib.contextmanager
def run_locks(out: Path, targets: Sequence[Path] = ()) -> Iterator[None]:
    """Hold the locks of --out and of every target directory for the whole run."""
    base = lock_dir()
    wanted = {Path(os.path.abspath(out)): "--out"}
    for target in targets:
        wanted.setdefault(Path(os.path.abspath(target)), "the target")
    fds: list[int] = []
    try:
        for folder, what in sorted(wanted.items()):  # one order: two runs never deadlock
            fds.append(_take(what, folder, base))
        yield
    finally:
        for fd in fds:
            os.close(fd)  # closing the file drops its lock
