"""What the client process tree holds in memory over a whole point, and the host's run queue.

The users' memory is not what one process holds once its users have connected: the
threads, sessions, buffers and forked client processes grow while the point runs. A
watcher thread in the parent reads, before any user connects (the base) and then once a
second until the point ends, the proportional set size (Pss, /proc/PID/smaps_rollup) of
the parent and its living client processes, summed: forked processes share their parent's
pages, and Pss counts each shared page once over the tree where summed RSS would count it
in every process. The peak of those sums less the base, divided by the users, is the
memory per user. Reading Pss walks a process's page tables (about 2 ms for a 250 MB
process, a cost that would count in the client's CPU every second): the watcher reads the
tree's resident size each second (cheap) and its Pss only when that size has grown by
PSS_AFTER_BYTES since the last Pss reading, and once more at the end; in between, the Pss
is the last reading advanced by the resident growth since (new pages are private, counted
whole in both). The same reads note the host's run queue (procs_running in /proc/stat):
runnable threads well above the cores say the host's CPU is oversubscribed.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

INTERVAL_S = 1.0
PSS_AFTER_BYTES = 1 << 20  # the tree's RSS grown this much: read its Pss again
BASIS = "peak over the point of the client process tree's summed Pss (smaps_rollup), less its base before users connected"
RSS_BASIS = "peak over the point of the client process tree's summed RSS (statm; no smaps_rollup here), less its base before users connected"
PAGE = os.sysconf("SC_PAGE_SIZE")

FDS_PER_USER = 4  # a connection's socket or database, WAL and shared-memory files
FDS_SPARE = 256


def allow_open_files(users: int) -> None:
    """Raise the soft open-files limit (up to the hard one) so hundreds of users can
    each hold a connection; distributions often start processes at 1,024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = users * FDS_PER_USER + FDS_SPARE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        ceiling = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))


def rss_bytes() -> int:
    """This process's resident memory."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


# users on threads of their own give Python's lock up at every round trip; a longer switch
# interval than the 5 ms default spares forced hand-overs between hundreds of them
THREADED_SWITCH_S = 0.05


@contextlib.contextmanager
def longer_switch(threaded: bool) -> Iterator[None]:
    """Python's thread switch interval at THREADED_SWITCH_S while threaded users run."""
    before = sys.getswitchinterval()
    if threaded:
        sys.setswitchinterval(max(before, THREADED_SWITCH_S))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def process_memory(pid: int) -> tuple[int, bool] | None:
    """(bytes, is_pss) of one process: its Pss where smaps_rollup exists, else its RSS;
    None when it has gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024, True
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE, False
    except OSError:
        return None


def run_queue() -> int | None:
    """Runnable threads on the host now (procs_running), None where /proc/stat lacks it."""
    try:
        with open("/proc/stat", "rb") as f:
            for line in f:
                if line.startswith(b"procs_running"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class ClientWatch(threading.Thread):
    """Samples the tree's memory and the run queue each second from start() to finish()."""

    def __init__(
        self, children: Callable[[], Iterable[int]] = tuple, interval_s: float = INTERVAL_S
    ):
        super().__init__(name="dbstor-client-watch", daemon=True)
        self.children, self.interval_s = children, interval_s
        self.pss = True
        self.base = self._tree()  # before the users: only this process exists
        self.peak = self.base
        self.rss_read = self._resident()  # the tree's RSS at the last Pss reading
        self.pss_read = self.base  # that reading
        self.queue: list[tuple[float, int]] = []  # (monotonic s, procs_running)
        self.stopped = threading.Event()

    def _tree(self) -> int:
        total = 0
        for pid in (os.getpid(), *self.children()):
            found = process_memory(pid)
            if found is not None:
                total += found[0]
                self.pss = self.pss and found[1]
        return total

    def _resident(self) -> int:
        total = 0
        for pid in (os.getpid(), *self.children()):
            with (
                contextlib.suppress(OSError, IndexError, ValueError),
                open(f"/proc/{pid}/statm") as f,
            ):
                total += int(f.read().split()[1]) * PAGE
        return total

    def sample(self, final: bool = False) -> None:
        resident = self._resident()
        if final or resident >= self.rss_read + PSS_AFTER_BYTES:
            self.rss_read, self.pss_read = resident, self._tree()
            self.peak = max(self.peak, self.pss_read)
        else:
            self.peak = max(self.peak, self.pss_read + resident - self.rss_read)
        queued = run_queue()
        if queued is not None:
            self.queue.append((time.monotonic(), queued))

    def run(self) -> None:
        while not self.stopped.wait(self.interval_s):
            self.sample()

    def finish(self) -> None:
        """One last reading (the tree at its fullest is often the end), then stop."""
        self.stopped.set()
        if self.is_alive():
            self.join(timeout=5)
        self.sample(final=True)

    def figures(self, users: int, start: float, end: float) -> dict[str, Any]:
        """Plain data for the point: base, peak and per-user bytes, and the run queue's
        mean and most over the window from `start` to `end` (monotonic seconds)."""
        inside = [q for t, q in self.queue if start <= t <= end + self.interval_s]
        return {
            "base_bytes": self.base,
            "peak_bytes": self.peak,
            "users": users,
            "basis": BASIS if self.pss else RSS_BASIS,
            "run_queue_mean": sum(inside) / len(inside) if inside else None,
            "run_queue_max": max(inside) if inside else None,
        }


def per_user_bytes(memory: dict[str, Any] | None) -> float | None:
    """The peak less the base, per user; None when not measured."""
    if not memory or not memory.get("users"):
        return None
    return max(0, memory["peak_bytes"] - memory["base_bytes"]) / memory["users"]


def merge_memory(parts: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Several hosts' trees as one: bases, peaks and users added (each host's peak its own),
    the run queue's mean averaged and its most the most."""
    found = [p for p in parts if p]
    if not found:
        return None
    means = [p["run_queue_mean"] for p in found if p.get("run_queue_mean") is not None]
    most = [p["run_queue_max"] for p in found if p.get("run_queue_max") is not None]
    return {
        "base_bytes": sum(p["base_bytes"] for p in found),
        "peak_bytes": sum(p["peak_bytes"] for p in found),
        "users": sum(p["users"] for p in found),
        "basis": found[0]["basis"],
        "run_queue_mean": sum(means) / len(means) if means else None,
        "run_queue_max": max(most) if most else None,
    }
