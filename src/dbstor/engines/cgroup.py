"""A cap on a managed server's memory: a cgroup around its process tree.

cgroup v2 (memory.max) or v1 (memory.limit_in_bytes); page cache counts against both. When
no cgroup can be made, the cap says why, and the run records that no cap was applied.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from dbstor import lifeline


def cgroup_mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root, fstype, super options) of cgroup mounts."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                found.append((fields[4], fields[3], tail[0], set(tail[2].split(","))))
    return found


def own_cgroup_dir(mount: str, root: str, match: Callable[[str, str], bool]) -> Path:
    """This process's group under a cgroup mount (the mount itself when not found)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            hier, controllers, path = line.split(":", 2)
            if match(hier, controllers):
                if root != "/" and path.startswith(root):
                    path = path[len(root) :]
                candidate = Path(mount) / path.lstrip("/")
                if candidate.is_dir():
                    return candidate
    return Path(mount)


class MemoryCap:
    """A memory cgroup around a server's process tree, created at start, removed at stop."""

    def __init__(self, engine: str, instance: int, limit_bytes: int | None):
        self.limit = limit_bytes
        self.name = f"dbstor-{engine}-{os.getpid()}-{instance}"
        self.group: Path | None = None
        self.version: int | None = None
        self.note = "no memory limit requested" if limit_bytes is None else "not applied yet"
        self.lifted = False  # lift(): the group is made, or kept, without its limit
        self.given: int | None = None  # of the limit, the database's share (embedded)

    def create(self) -> None:
        """Make the group and set its limit; when impossible, remember why."""
        if self.limit is None or self.group is not None:
            return
        reasons = []
        for mount, root, fstype, options in cgroup_mounts():
            if fstype == "cgroup2":
                own = own_cgroup_dir(mount, root, lambda h, c: h == "0" and c == "")
                for parent in dict.fromkeys((own, Path(mount))):
                    enabled = _words(parent / "cgroup.subtree_control")
                    if "memory" not in enabled:
                        reasons.append(
                            f"cgroup v2: memory controller not enabled in {parent}/cgroup.subtree_control"
                        )
                        continue
                    if self._make(parent, "memory.max", 2, reasons):
                        return
            elif "memory" in options:
                own = own_cgroup_dir(mount, root, lambda h, c: "memory" in c.split(","))
                for parent in dict.fromkeys((own, Path(mount))):
                    if self._make(parent, "memory.limit_in_bytes", 1, reasons):
                        return
        self.note = "; ".join(dict.fromkeys(reasons)) or "no cgroup memory controller is mounted"

    def _make(self, parent: Path, limit_file: str, version: int, reasons: list[str]) -> bool:
        group = parent / self.name
        try:
            group.mkdir(exist_ok=True)
            (group / limit_file).write_text(str(self.limit))
            if self.lifted:  # the limit can be written: now lift it until restore()
                (group / limit_file).write_text("max" if version == 2 else str(1 << 62))
        except OSError as exc:
            reasons.append(f"cgroup v{version}: cannot create {group} ({exc.strerror})")
            with contextlib.suppress(OSError):
                group.rmdir()
            return False
        self.group, self.version = group, version
        self.note = f"{limit_file}={self.limit}"
        lifeline.watch_dir(group)  # removed by the watcher if dbstor is killed
        return True

    def add(self, pids: Sequence[int]) -> None:
        """Move processes (whole thread groups) into the group."""
        if self.group is None:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, FileNotFoundError):
                (self.group / "cgroup.procs").write_text(str(pid))

    def usage(self) -> int | None:
        """The bytes the group holds now (its processes' memory and its page cache)."""
        if self.group is None:
            return None
        name = "memory.current" if self.version == 2 else "memory.usage_in_bytes"
        try:
            return int((self.group / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def lift(self) -> None:
        """Lift the limit (for the server's start and data load, which no point measures;
        a group made later is made without it); restore() sets it again."""
        self.lifted = self.limit is not None
        if self.group is not None and self.limit is not None:
            name = "memory.max" if self.version == 2 else "memory.limit_in_bytes"
            (self.group / name).write_text("max" if self.version == 2 else str(1 << 62))

    def restore(self) -> bool:
        """Set the limit again (the kernel reclaims page cache down to it); False when the
        group holds more than it can give back (shared buffers, process memory)."""
        self.lifted = False
        if self.group is None or self.limit is None:
            return True
        name = "memory.max" if self.version == 2 else "memory.limit_in_bytes"
        for _ in range(5):
            try:
                (self.group / name).write_text(str(self.limit))
                return True
            except OSError:
                time.sleep(0.2)  # reclaim may need another try
        return False

    def set_limit(self, limit_bytes: int) -> None:
        """Change the group's limit (the kernel reclaims page cache down to it)."""
        if self.group is None:
            return
        name = "memory.max" if self.version == 2 else "memory.limit_in_bytes"
        with contextlib.suppress(OSError):
            (self.group / name).write_text(str(limit_bytes))
            self.limit = limit_bytes
            self.note = f"{name}={limit_bytes}"

    def counters(self) -> dict[str, int | None] | None:
        """The group's memory counters: its limit, peak usage, hits of the limit and OOM
        kills (v1 memory.max_usage_in_bytes, failcnt, oom_control; v2 memory.peak,
        memory.events); None when there is no group."""
        if self.group is None:
            return None
        out: dict[str, int | None] = {"limit": self.limit}
        v1 = self.version == 1
        for key, name in (
            ("peak", "memory.max_usage_in_bytes" if v1 else "memory.peak"),
            ("failcnt", "memory.failcnt" if v1 else ""),
        ):
            out[key] = _number(self.group / name) if name else None
        out["held"] = self.held()
        events = "memory.oom_control" if v1 else "memory.events"
        with contextlib.suppress(OSError, ValueError):
            for line in (self.group / events).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    out["oom_kill"] = int(value)
                elif key == "max" and not v1:
                    out["failcnt"] = int(value)
        return out

    def held(self) -> int | None:
        """Memory the group cannot give back to the page cache's reclaim: its processes'
        anonymous memory and shared memory (v1 total_rss + total_shmem, v2 anon + shmem)."""
        if self.group is None:
            return None
        keys = ("total_rss", "total_shmem") if self.version == 1 else ("anon", "shmem")
        try:
            stat = dict(
                line.split() for line in (self.group / "memory.stat").read_text().splitlines()
            )
            return sum(int(stat[k]) for k in keys)
        except (OSError, ValueError, KeyError):
            return None

    def reset_peak(self) -> None:
        """Start the peak usage again from now (v1; v2's memory.peak only grows)."""
        if self.group is not None and self.version == 1:
            with contextlib.suppress(OSError):
                (self.group / "memory.max_usage_in_bytes").write_text("0")

    def members(self) -> list[int]:
        if self.group is None:
            return []
        try:
            return [int(x) for x in (self.group / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def remove(self) -> None:
        """Remove the group (moving any process still in it back to the parent first)."""
        if self.group is None:
            return
        for _ in range(50):
            try:
                self.group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                for pid in self.members():
                    with contextlib.suppress(OSError):
                        (self.group.parent / "cgroup.procs").write_text(str(pid))
                time.sleep(0.1)
        lifeline.forget_dir(self.group)

    def describe(self) -> str:
        """Which mechanism capped the server's memory, or why none did."""
        if self.group is None:
            return f"none: {self.note}"
        return (
            f"cgroup v{self.version} group {self.group}: {self.note} bytes "
            "(page cache counts against it)"
        )


def _number(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()
