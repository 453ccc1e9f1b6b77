"""A managed server's processes: start one in its own session, wait until it answers, stop
its whole tree, and read the storage I/O of that tree from /proc.

The server runs in its own session (Ctrl-C in the terminal does not reach it), logs to a
file, and is moved into its memory cap's cgroup as soon as its processes exist.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from dbstor import lifeline
from dbstor.engines.account import Account, server_env
from dbstor.engines.cgroup import MemoryCap
from dbstor.engines.messages import log_tail
from dbstor.errors import UserError


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rfind(")") + 2 :].split()  # state, ppid, ...


def _started(pid: int) -> str:
    fields = _stat(pid)
    return fields[19] if fields and len(fields) > 19 else ""


def process_running(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def process_tree(pid: int) -> list[int]:
    """The process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(children.get(current, []))
    return tree


def proc_io(pid: int | str = "self") -> dict[str, int]:
    """/proc/<pid>/io as numbers ({} when it cannot be read): an embedded engine's counters."""
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return {}
    return {k: int(v) for k, v in (line.split(": ") for line in text.splitlines())}


def tree_io(pids: Sequence[int]) -> tuple[int, int] | None:
    """Summed read_bytes, write_bytes of /proc/<pid>/io (reaped children count in their
    parent); None when a file cannot be read (not root, not the same user)."""
    read = write = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/io").read_text()
        except FileNotFoundError:
            continue  # exited between listing and reading
        except OSError:
            return None
        values = dict(line.split(": ") for line in text.splitlines() if ": " in line)
        read += int(values.get("read_bytes", 0))
        write += int(values.get("write_bytes", 0))
    return read, write


class ServerProcess:
    """One server process started as the account, in its own session, logging to a file."""

    def __init__(self, cap: MemoryCap, shm_prefix: str | None = None):
        self.cap = cap
        self.shm_prefix = shm_prefix  # its /dev/shm segments' names (lifeline.watch_tree)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: Path | None = None
        self._known: dict[int, str] = {}  # pid -> start time, to never kill a reused pid

    def start(self, cmd: Sequence[str], account: Account, cwd: Path, log: Path) -> None:
        self.log = log
        with log.open("ab") as out:
            if account.popen_ids():
                os.chown(log, account.uid, account.gid)  # the server may reopen it itself
            try:
                self.proc = subprocess.Popen(
                    list(cmd),
                    cwd=cwd,
                    env=server_env(cwd),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                    **account.popen_ids(),
                )
            except OSError as exc:
                raise UserError(f"cannot start {cmd[0]}: {exc.strerror}") from None
        lifeline.watch_tree(self.proc.pid, self.shm_prefix)  # killed if dbstor is killed
        self.cap.add([self.proc.pid])

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def pids(self) -> list[int]:
        """The server's process tree right now (remembered for cleanup)."""
        if self.alive() and self.proc:
            self._known = {pid: _started(pid) for pid in process_tree(self.proc.pid)}
        return list(self._known)

    def _ours(self, pid: int) -> bool:
        return pid in self._known and process_running(pid) and _started(pid) == self._known[pid]

    def wait_ready(self, probe: Callable[[], bool], what: str, timeout: float = 90) -> None:
        """Poll probe() until it is true; UserError quoting the log if the server exits."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                code = self.proc.returncode if self.proc else None
                raise UserError(
                    f"{what} exited at start (status {code}): "
                    f"{log_tail(self.log) if self.log else 'no log'}"
                )
            if probe():
                self.cap.add(self.pids())
                return
            time.sleep(0.1)
        raise UserError(
            f"{what} did not accept connections within {timeout:.0f} s: "
            f"{log_tail(self.log) if self.log else 'no log'}"
        )

    def stop(self, clean: signal.Signals, timeout: float = 60) -> None:
        """Ask the server to stop with `clean`; escalate to SIGKILL of its whole tree."""
        if self.proc is None:
            return
        self.pids()
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(clean)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.pids()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(self._ours(p) for p in self._known):
            time.sleep(0.05)  # children notice the parent's exit and leave
        for pid in {*(p for p in self._known if self._ours(p)), *self.cap.members()}:
            if process_running(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        lifeline.forget_tree(self.proc.pid)
        self.proc = None

    def kill(self, timeout: float = 30) -> list[int]:
        """Kill the server's whole tree at once with SIGKILL, with no shutdown of its own (a
        crash: PostgreSQL's postmaster and every backend together, so that no backend
        lives on after its postmaster); returns the pids killed."""
        if self.proc is None:
            return []
        self.pids()
        killed = [pid for pid in self._known if self._ours(pid)]
        for pid in {*killed, *self.cap.members()}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(self._ours(p) for p in killed):
            time.sleep(0.01)
        lifeline.forget_tree(self.proc.pid)
        self.proc = None
        return killed
