"""A memory cap for an embedded engine (SQLite, DuckDB): a cgroup around the client
processes that run it, so the engine's cache and the host's page cache of its files
together get only the memory the user allows, and reads beyond that go to the storage.

An embedded engine runs inside dbstor's own client processes, so the cap cannot be the
whole group: the processes need their own memory (the interpreter, the users' threads)
before the database gets any. The group is made without a limit; the client processes join
it as they are forked, connect their users, and then, before the point starts, the limit is
set to what the group holds at that moment plus the memory the user allows the database
(--memory-limit). Page cache counts against the group (cgroup v1 and v2), so the database's
pages beyond that are read from the storage again and again. The database's files are
dropped from the page cache before each point, so that pages the loading process read (and
which count against its own group) do not serve the capped clients.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from dbstor.engines.cgroup import MemoryCap

ENGINE_SHARE = 0.75  # of the database's budget: DuckDB's own limit, at most SQLite's cache
MIN_ENGINE_SHARE = 16 << 20


def engine_share(budget: int, ceiling: int | None = None) -> int:
    """An engine's own memory limit under the cap (DuckDB's memory_limit): three quarters
    of the budget (or `ceiling`, --buffer, when smaller), so that its cache and working
    memory leave the page cache of its files room and it spills before the group runs
    out of memory (the kernel would kill it)."""
    share = int(budget * ENGINE_SHARE)
    return max(min(share, ceiling) if ceiling else share, MIN_ENGINE_SHARE)


def host_memory() -> int:
    """MemTotal in bytes (a limit that does not bind until it is tightened)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 1 << 40


class EmbeddedCap:
    """The client processes' memory cgroup for one embedded database instance."""

    def __init__(self, engine: str, instance: int, budget_bytes: int):
        self.budget = budget_bytes
        self.cap = MemoryCap(f"{engine}-clients", instance, host_memory())
        self.limit: int | None = None  # set by tighten()
        self.base: int | None = None  # what the client processes held when it was set
        self.moment = "when the users had connected"  # when tighten() was called

    def create(self) -> None:
        self.cap.create()

    @property
    def active(self) -> bool:
        return self.cap.group is not None

    def join(self) -> None:
        """Move the calling process (a just-forked client process) into the group."""
        self.cap.add([os.getpid()])

    def tighten(self) -> None:
        """Set the limit to the group's memory now plus the database's budget."""
        usage = self.cap.usage()
        if usage is None:
            return
        self.base, self.limit = usage, usage + self.budget
        self.cap.set_limit(self.limit)

    def describe(self) -> str:
        """Which mechanism capped the database's memory and how, or why none did."""
        if not self.active:
            return f"none: {self.cap.note}"
        if self.limit is None or self.base is None:
            return f"cgroup v{self.cap.version} group {self.cap.group} around the client processes (not yet applied)"
        return (
            f"cgroup v{self.cap.version} group {self.cap.group} around the client processes: "
            f"their own {self.base / 2**20:,.0f} MiB {self.moment} + "
            f"{self.budget / 2**20:,.0f} MiB for the database (its cache and the page cache "
            f"of its files) = {self.limit / 2**20:,.0f} MiB"
        )

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for memory (best effort)."""
        group = self.cap.group
        name = "memory.events" if self.cap.version == 2 else "memory.oom_control"
        with contextlib.suppress(OSError, ValueError):
            for line in (group / name).read_text().splitlines() if group else []:
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        return False

    def remove(self) -> None:
        self.cap.remove()


def evict_from_page_cache(path: Path) -> None:
    """Write a file's dirty pages and drop its cached pages (best effort: a missing file
    or a file system without fadvise is skipped)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError as exc:
            if exc.errno not in (errno.ENOSYS, errno.EINVAL, errno.ESPIPE):
                raise
    finally:
        os.close(fd)
