"""A small guard process beside each host agent: when the agent is gone, nothing it started stays.

The agent starts the guard with a pipe on its stdin and tells it which paths it created.
Every half second the guard notes the process groups of the agent's descendants (fio and
its jobs, database servers). When the pipe closes without a 'quit' line (the agent
exited, crashed or was killed by Ray because its driver died), the guard stops those
process groups (SIGTERM, then SIGKILL) and removes the registered paths. The guard detaches
(double fork, own session): Ray kills an exiting worker's direct children and may kill its
process group, and the guard must outlive the agent to clean up after it.

    python -m dbstor.cluster.guard AGENT_PID
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

SNAPSHOT_EVERY_S = 0.5
GRACE_S = 3.0


def _stat_fields(pid: int) -> tuple[int, int, str] | None:
    """(ppid, pgid, state) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = text[text.rindex(")") + 2 :].split()
    return int(rest[1]), int(rest[2]), rest[0]


def descendants(root: int) -> dict[int, int]:
    """{pid: pgid} of every living descendant of root."""
    children: dict[int, list[int]] = {}
    groups: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is None:
            continue
        children.setdefault(fields[0], []).append(int(entry))
        groups[int(entry)] = fields[1]
    found: dict[int, int] = {}
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found[child] = groups[child]
                stack.append(child)
    return found


def stop_processes(pids: dict[int, int], protect: set[int], grace_s: float = GRACE_S) -> None:
    """SIGTERM the process groups (or lone pids, for protected groups), then SIGKILL."""
    groups = {pgid for pgid in pids.values() if pgid not in protect}
    lone = {pid for pid, pgid in pids.items() if pgid in protect}

    def send(sig: signal.Signals) -> None:
        for pgid in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, sig)
        for pid in lone:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    send(signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    send(signal.SIGKILL)


def _alive(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[2] != "Z"


def is_lifeline_watcher(pid: int) -> bool:
    """A dbstor lifeline watcher: it removes its process's scratch folders (fio's job files)
    once that process is gone, so the agent's stop and the guard leave it to do that."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"dbstor.lifeline" in args


def remove_path(path: Path) -> None:
    """Remove a path dbstor created; never follow a link."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


def run_guard(agent_pid: int) -> int:
    own_group = os.getpgid(0)
    protect = {own_group, os.getpgid(agent_pid)} if _alive(agent_pid) else {own_group}
    seen: dict[int, int] = {}
    paths: list[Path] = []
    acks: list[Path] = []  # touched once the next snapshot is taken
    buffer = b""
    stdin = sys.stdin.fileno()  # read unbuffered: select() sees what the pipe holds
    while True:
        ready, _, _ = select.select([stdin], [], [], SNAPSHOT_EVERY_S)
        if ready:
            chunk = os.read(stdin, 4096)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                command, _, arg = line.decode().partition(" ")
                if command == "quit":
                    return 0
                if command == "path":
                    paths.append(Path(arg))
                elif command == "forget":
                    paths = [p for p in paths if str(p) != arg]
                elif command == "ack":
                    acks.append(Path(arg))
        now = {
            pid: group
            for pid, group in descendants(agent_pid).items()
            if pid != os.getpid() and not is_lifeline_watcher(pid)
        }
        seen = {pid: pgid for pid, pgid in seen.items() if _alive(pid)} | now
        for ack in acks:
            with contextlib.suppress(OSError):
                ack.touch()
        acks.clear()
    stop_processes(seen, protect)
    for path in reversed(paths):
        remove_path(path)
    return 0


class GuardClient:
    """The agent's end of the pipe."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "dbstor.cluster.guard", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
        assert self._proc.stdout is not None
        self.pid = int(self._proc.stdout.readline() or 0)  # the detached guard
        self._proc.wait()

    def _send(self, line: str) -> None:
        if self._proc.stdin is None or "\n" in line:
            return
        with contextlib.suppress(BrokenPipeError, ValueError):
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()

    def register(self, path: Path) -> None:
        self._send(f"path {path}")

    def forget(self, path: Path) -> None:
        self._send(f"forget {path}")

    def acknowledge(self, ack: Path) -> None:
        """Ask the guard to create `ack` once it has noted every process started so far:
        for a caller that must know the guard watches its load before going on."""
        self._send(f"ack {ack}")

    def close(self) -> None:
        """A clean end: the guard leaves everything alone and exits."""
        self._send("quit")
        if self._proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._proc.stdin.close()


def detach_and_guard(agent_pid: int) -> int:
    """Fork; the parent prints the guard's pid and exits, the child guards."""
    child = os.fork()
    if child:
        print(child, flush=True)
        return 0
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdout.close()
    os.close(1)
    os.open(os.devnull, os.O_WRONLY)
    return run_guard(agent_pid)


if __name__ == "__main__":
    sys.exit(detach_and_guard(int(sys.argv[1])))
