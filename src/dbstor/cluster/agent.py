"""The host side: one agent per host wraps the worker that measures there, watched by a lease.

Plain Python, no Ray: actor.py makes it a Ray actor. The agent holds one worker (kind ->
prepare / measure / cleanup with plain dicts), a guard process (guard.py) that removes what
the agent started if the agent dies, and a lease: the coordinator beats every few seconds;
when no beat came for lease_s (the coordinator died, hung or was cut off), the agent stops
its load, cleans up and exits, so no host keeps working for a coordinator that is gone.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from dbstor.cluster.guard import (
    GuardClient,
    descendants,
    is_lifeline_watcher,
    stop_processes,
)
from dbstor.cluster.preflight import host_facts_brief, run_checks
from dbstor.lifeline import boot_id
from dbstor.runs.lock import release, target_locks
from dbstor.safefs import make_dir

LEASE_S = 10.0
CLEANUP_CAP_S = 10.0


def make_worker(kind: str, safety: Mapping[str, Any]) -> Any:
    """The worker for a run kind: the probe here, the run kinds from dbstor.runs."""
    if kind == "probe":
        from dbstor.cluster.probe import FioProbe

        return FioProbe(dict(safety))
    from dbstor.runs.worker import make_worker as make_run_worker

    return make_run_worker(kind, dict(safety))


def match_nice(wanted: int | None) -> int:
    """Give the calling thread the niceness `wanted` (the coordinator's) and return the one it
    has now. Ray starts its workers at nice 15 (its worker_niceness) and niceness is a thread's:
    fio, the engine's clients and managed servers started from this thread inherit it, and at
    nice 15 they would lose CPU to every other process on a busy host, which the same job run
    without Ray does not. Lowering it needs root or CAP_SYS_NICE; without, it stays."""
    if wanted is not None:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, wanted)
    return os.getpriority(os.PRIO_PROCESS, 0)


class HostAgent:
    def __init__(
        self,
        name: str,
        lease_s: float = LEASE_S,
        exit_process: Callable[[int], None] = os._exit,
        nice: int | None = None,
        coordinator: str = "",
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.coordinator = coordinator  # the run's pid, host and start, for its locks here
        self.nice = nice  # the coordinator's: what the load here runs at, where allowed
        self.worker: Any = None
        self._made: list[Path] = []
        self._locks: list[int] = []  # this host's target locks, held from plan to cleanup
        self._guard = GuardClient()
        self._lease_s = lease_s
        self._now = now  # the lease's clock, injected so tests step it
        self._last_beat = now()
        self._stopped: str | None = None
        self._exit_process = exit_process
        self._closed = threading.Event()
        threading.Thread(target=self._watch_lease, name="dbstor-lease", daemon=True).start()

    # -- control, answered even while a point is being measured --------------------------
    def beat(self) -> float:
        self._last_beat = self._now()
        return time.time()

    def clock(self) -> float:
        return time.time()

    def facts(self) -> dict[str, Any]:
        return {"name": self.name, **host_facts_brief(), "load_nice": match_nice(self.nice)}

    def preflight(self, spec: Mapping[str, Any]) -> list[str]:
        return run_checks(spec)

    def stop(self, reason: str) -> bool:
        """Stop the load now: every process group the agent started gets SIGTERM, then SIGKILL.
        The guard and dbstor's lifeline watcher are spared: they remove what is left (test
        files, fio's scratch folders) if the agent exits before it has cleaned up itself."""
        self._stopped = reason
        running = {
            pid: group
            for pid, group in descendants(os.getpid()).items()
            if pid != self._guard.pid and not is_lifeline_watcher(pid)
        }
        stop_processes(running, protect={os.getpgid(0)}, grace_s=2.0)
        return bool(running)

    # -- the work ------------------------------------------------------------------------
    def plan(self, kind: str, safety: Mapping[str, Any], setup: Mapping[str, Any]) -> dict:
        """Make the worker and let it decide (and check) what it will lay out; nothing written."""
        match_nice(self.nice)
        self.lock_targets(setup)
        self.worker = make_worker(kind, safety)
        return dict(self.worker.plan(self.own_folders(setup)) or {})

    def lock_targets(self, setup: Mapping[str, Any]) -> None:
        """Before anything is made here: this host's lock on every target directory of the
        run (a second run on them is refused in one line naming the first); held until
        cleanup. With host_folders the lock is on this host's own subfolder's name."""
        if self._locks:
            return
        paths = setup.get("paths", [])
        texts = [p for ps in paths.values() for p in ps] if isinstance(paths, Mapping) else paths
        texts = [*texts, *([setup["target"]] if setup.get("target") else [])]
        own = bool(setup.get("host_folders"))
        folders = [Path(t) / f"dbstor-host-{self.name}" if own else Path(t) for t in texts]
        self._locks = target_locks(self.name, folders, self.coordinator)

    def own_folders(self, setup: Mapping[str, Any]) -> dict:
        """With setup['host_folders'], each directory in setup['paths'] becomes this host's own
        subfolder `dbstor-host-NAME` (made here, removed at cleanup): hosts that share a file
        system (NFS, SMB, one machine) never share test files."""
        setup = dict(setup)
        if not setup.get("host_folders"):
            return setup
        paths = []
        for text in setup.get("paths", []):
            path = Path(text)
            if not path.is_dir():
                paths.append(text)
                continue
            own = path / f"dbstor-host-{self.name}"
            if make_dir(own, fix="remove it or choose another target"):  # never a link
                self._made.append(own)
                self._guard.register(own)
            paths.append(str(own))
        setup["paths"] = paths
        return setup

    def prepare(self, kind: str, safety: Mapping[str, Any], setup: Mapping[str, Any]) -> dict:
        match_nice(self.nice)  # managed servers started here run as they would without Ray
        self.lock_targets(setup)
        if self.worker is None:
            self.worker = make_worker(kind, safety)
        facts = dict(self.worker.prepare(self.own_folders(setup)) or {})
        for path in facts.get("created", []):
            self._guard.register(Path(path))
        return facts

    def measure(self, point: Mapping[str, Any]) -> dict:
        if self.worker is None:
            return {"error": f"host {self.name}: measure before prepare", "host": self.name}
        self._stopped = None
        nice = match_nice(self.nice)  # fio and client processes are started from this thread
        try:
            outcome = dict(self.worker.measure(dict(point)))
        except Exception as exc:  # the point fails; the coordinator names the host
            outcome = {"error": f"{type(exc).__name__}: {exc}"}
        if self._stopped and not outcome.get("error"):
            outcome["error"] = f"stopped: {self._stopped}"
        elif self._stopped:
            outcome["error"] = f"stopped: {self._stopped} ({outcome['error']})"
        outcome["host"] = self.name
        outcome["nice"] = nice
        return outcome

    def ask(self, question: str) -> Any:
        """A read-only question to the worker: 'objects' (per-object I/O), 'latest' sample."""
        if question not in ("objects", "latest") or self.worker is None:
            return None
        answer = getattr(self.worker, question)()
        if question == "latest" and isinstance(answer, dict):
            answer["boot_id"] = boot_id()  # hosts on one machine see one device: counted once
        return answer

    def cleanup(self) -> dict:
        notes: dict = {}
        if self.worker is not None:
            worker, self.worker = self.worker, None
            notes = dict(worker.cleanup() or {})
            for path in notes.get("removed", []):
                self._guard.forget(Path(path))
        for own in reversed(self._made):
            with contextlib.suppress(OSError):  # kept test files stay, and so does their folder
                own.rmdir()
                self._guard.forget(own)
        self._made = []
        release(self._locks)
        self._locks = []
        return notes

    def close(self) -> dict:
        """The clean end: clean up, then let the guard go without touching anything."""
        notes = self.cleanup()
        self._closed.set()
        self._guard.close()
        return notes

    def guard_watching(self, ack: Path) -> None:
        """Ask the guard to create `ack` once it has noted every process started so far."""
        self._guard.acknowledge(ack)

    # -- the lease -----------------------------------------------------------------------
    def lease_over(self) -> bool:
        """Whether no beat came within the lease (on the agent's injected clock)."""
        return self._now() - self._last_beat > self._lease_s

    def _watch_lease(self) -> None:
        while not self._closed.wait(1.0):
            if not self.lease_over():
                continue
            self.stop("the coordinator is gone (no heartbeat)")
            done = threading.Thread(target=self._cleanup_quietly, daemon=True)
            done.start()
            done.join(CLEANUP_CAP_S)
            self._exit_process(3)  # the guard removes whatever is left
            return

    def _cleanup_quietly(self) -> None:
        with contextlib.suppress(Exception):
            self.cleanup()
