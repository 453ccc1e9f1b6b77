"""A cgroup v1 blkio throttle on one block device for chosen processes: a real cause whose
effect on throughput is certain however busy the host is. The kernel holds the processes'
reads and writes on the device to the limit (`blkio.throttle.read_iops_device` and
`write_iops_device`), so a limit held fixed gives a flat throughput and a limit lowered
every second gives one that falls well beyond any host's noise.

    with Throttle(device_of(path)) as throttle:
        with throttle.ramp(find_pids, lambda t: max(100, 800 - 60 * t)):
            ...  # every process find_pids() names is throttled; the limit follows t

A process already in a blkio group of its own (dbstor's own-I/O group around a managed
server, telemetry/own.py) is not moved out of it, which would lose dbstor's count of its
I/O: the rule is written into that group as well, and lifted there at the end. With
move=False no process is moved at all: only the groups dbstor made are throttled (a
managed server's, made for each measured window), so that dbstor's own count of the
server's I/O stays whole."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

BLKIO = Path("/sys/fs/cgroup/blkio")
RULES = ("blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device")


def device_of(path: Path) -> str:
    """'major:minor' of the block device holding `path`."""
    number = os.stat(path).st_dev
    return f"{os.major(number)}:{os.minor(number)}"


def blkio_group(pid: int) -> str | None:
    """The process's blkio group ('/' for the root), None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        if "blkio" in controllers.split(","):
            return path
    return None


class Throttle:
    def __init__(self, device: str, move: bool = True) -> None:
        if os.geteuid() != 0 or not (BLKIO / RULES[0]).exists():
            pytest.skip("needs root and cgroup v1 blkio throttling")
        self.device = device
        self.move = move  # processes in the test's own group are moved into the throttle's
        self.home = blkio_group(os.getpid()) or "/"  # where this test's processes are
        name = f"dbstor-test-throttle-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.own = BLKIO / self.home.lstrip("/") / name
        self.own.mkdir()
        self.groups: list[Path] = [self.own]  # every group the rule is written to
        self.iops = 0  # 0: no limit
        self.lock = threading.Lock()

    def __enter__(self) -> Throttle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def limit(self, iops: int) -> None:
        """Hold reads and writes on the device to `iops` each, in every group; 0 lifts it."""
        with self.lock:
            self.iops = max(0, int(iops))
            for group in self.groups:
                self._write(group)

    def _write(self, group: Path) -> None:
        for rule in RULES:
            with contextlib.suppress(OSError):  # a group dbstor removed meanwhile
                (group / rule).write_text(f"{self.device} {self.iops}")

    def hold(self, pids: list[int]) -> None:
        """Throttle these processes: into this throttle's group from the test's own, or
        (already in a group of their own: dbstor's) the rule written there, each time:
        dbstor makes its group of one name anew for each repeat and round, without it."""
        theirs = set()
        for pid in pids:
            group = blkio_group(pid)
            if group is None or BLKIO / group.lstrip("/") == self.own:
                continue
            if group != self.home:
                theirs.add(BLKIO / group.lstrip("/"))
                continue
            if not self.move:
                continue
            with contextlib.suppress(OSError):  # it ended meanwhile
                (self.own / "cgroup.procs").write_text(str(pid))
        with self.lock:
            for path in theirs:
                if path not in self.groups:
                    self.groups.append(path)
                self._write(path)

    @contextlib.contextmanager
    def ramp(
        self, pids: Callable[[], list[int]], limit_at: Callable[[float], int], every_s: float = 0.05
    ) -> Iterator[None]:
        """While inside: every `every_s`, the processes pids() names are held, and the limit
        is limit_at(seconds since pids() first named one)."""
        stop = threading.Event()

        def follow() -> None:
            first = None
            while not stop.is_set():
                found = pids()
                if found and first is None:
                    first = time.monotonic()
                self.hold(found)
                if first is not None:
                    wanted = int(limit_at(time.monotonic() - first))
                    if wanted != self.iops:
                        self.limit(wanted)
                stop.wait(every_s)

        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(5)

    def close(self) -> None:
        """Lift the rule everywhere, move this group's processes back to the root, remove it."""
        self.limit(0)
        for _ in range(50):
            pids = (self.own / "cgroup.procs").read_text().split()
            for pid in pids:
                with contextlib.suppress(OSError):
                    (self.own.parent / "cgroup.procs").write_text(pid)
            with contextlib.suppress(OSError):
                self.own.rmdir()
                return
            time.sleep(0.1)
