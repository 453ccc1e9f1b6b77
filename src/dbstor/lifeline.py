"""Nothing dbstor starts outlives it, even after kill -9: one small watcher per dbstor process.

On first use dbstor starts a watcher (`python -m dbstor.lifeline`, which forks away from
its launcher so that it is no process's child) in its own session, not waited for; its stdin is
the read end of a pipe whose only writer is dbstor. dbstor tells it, one JSON line at a
time, which process trees it started (a root pid and its start time) and which directories
it made (path, device and inode), and forgets them again when it has cleaned them up
itself. When the pipe reaches end of file -- dbstor ended, however: a clean exit, a
traceback, SIGKILL, the OOM killer -- the watcher kills whatever is still alive in the
trees it holds and removes the directories it still holds (and the shared memory segments
in /dev/shm that a managed PostgreSQL's processes had mapped: they outlive a killed
server), then exits.

Why a watcher and not PR_SET_PDEATHSIG: the parent-death signal is cleared when a child
switches credentials (a server runs as the postgres or mysql account), it fires when the
forking *thread* ends rather than the process, and it never reaches the server's own
children (PostgreSQL's backends make themselves session leaders, so a process-group kill
misses them too). The kernel closes the pipe whatever killed dbstor; the watcher takes a
snapshot of each tree by parent pid while its root still lives, so nothing re-parented to
init escapes. Start times guard against pids reused since; device and inode against a
directory replaced since (and shutil.rmtree never follows a link).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dbstor.lifeline_undo import delete_subvolumes, lift_throttles

_lock = threading.Lock()
_state: dict[str, Any] = {"owner": None, "fd": None, "watcher": None, "launcher": None}


# --- facts about processes (/proc) ----------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rfind(")") + 2 :].split()  # state, ppid, pgrp, session, ...


def start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot ('' when it is gone)."""
    fields = _stat_fields(pid)
    return fields[19] if fields and len(fields) > 19 else ""


def _alive(pid: int, started: str) -> bool:
    fields = _stat_fields(pid)
    return bool(fields) and fields[0] not in ("Z", "X") and fields[19] == started


def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def owner_facts() -> dict[str, Any]:
    """Who writes a results folder: enough to tell later whether that process still runs."""
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "boot_id": boot_id(),
        "start_time": start_time(os.getpid()),
    }


def owner_gone(facts: Any) -> bool | None:
    """True when the process the facts describe has ended (same host: another boot, or no
    such process with that start time); None when this host cannot tell (another host,
    facts missing or malformed)."""
    if not isinstance(facts, dict) or facts.get("host") != socket.gethostname():
        return None
    pid, started = facts.get("pid"), facts.get("start_time")
    if not isinstance(pid, int) or isinstance(pid, bool) or not isinstance(started, str):
        return None
    if facts.get("boot_id") and facts.get("boot_id") != boot_id():
        return True
    return not _alive(pid, started)


# --- dbstor's side ----------------------------------------------------------------------


def _forget_in_child() -> None:
    """A forked child (a client process) must not hold the pipe open: dbstor's death would
    then not reach the watcher while the child lives."""
    fd = _state["fd"]
    _state.update(owner=None, fd=None, watcher=None, launcher=None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


os.register_at_fork(after_in_child=_forget_in_child)


def _start_watcher() -> None:
    read_end, write_end = os.pipe()  # both close-on-exec: no program dbstor runs inherits them
    package_root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    try:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "dbstor.lifeline"],
            stdin=read_end,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd="/",  # never keep a target's file system busy
            env=env,
            start_new_session=True,  # a kill of dbstor's process group spares it
        )
    except OSError:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    _state.update(owner=os.getpid(), fd=write_end, watcher=None, launcher=launcher)  # no wait


def _launched(wait: bool = False) -> None:
    """The watcher's pid from its launcher, which is reaped: with `wait` or once it exited."""
    launcher = _state.get("launcher")
    if launcher is None or (launcher.poll() is None and not wait):
        return
    with launcher:
        assert launcher.stdout is not None
        line = launcher.stdout.readline()
    _state.update(launcher=None, watcher=int(line) if line.strip() else None)


def _send(message: dict[str, Any]) -> None:
    line = (json.dumps(message) + "\n").encode()
    with _lock:
        if _state["owner"] != os.getpid():
            try:
                _start_watcher()
            except OSError:
                return  # no watcher: normal cleanup still works, kill -9 leaves things behind
        with contextlib.suppress(OSError):  # the watcher was killed: nothing more to do
            os.write(_state["fd"], line)
        _launched()


def watch_tree(pid: int, shm_prefix: str | None = None) -> None:
    """Kill this process and all its descendants if dbstor dies before forget_tree(pid).
    With shm_prefix (PostgreSQL's "PostgreSQL."), the /dev/shm segments of that name the
    tree has mapped at that moment are recorded (device, inode) and removed after the kill."""
    started = start_time(pid)
    if started:
        message = {"op": "tree", "pid": pid, "start": started}
        _send({**message, "shm": shm_prefix} if shm_prefix else message)


def forget_tree(pid: int) -> None:
    _send({"op": "forget-tree", "pid": pid})


def watch_dir(path: Path) -> None:
    """Remove this directory (the one there now, by device and inode) if dbstor dies
    before forget_dir(path)."""
    info = os.lstat(path)
    _send({"op": "dir", "path": str(path), "dev": info.st_dev, "ino": info.st_ino})


def forget_dir(path: Path) -> None:
    _send({"op": "forget-dir", "path": str(path)})


def watch_throttle(path: str, device: str, restore: str) -> None:
    """Write `restore` (the rule that was there) into this cgroup file if dbstor dies
    before forget_throttle(path, device): a throttle never outlives the event."""
    _send({"op": "throttle", "path": path, "device": device, "restore": restore})


def forget_throttle(path: str, device: str) -> None:
    _send({"op": "forget-throttle", "path": path, "device": device})


def watch_subvolume(path: Path) -> None:
    """Delete this btrfs snapshot (a subvolume of dbstor's own name) if dbstor dies before
    forget_subvolume(path); registered before it is made."""
    _send({"op": "subvolume", "path": str(path)})


def forget_subvolume(path: Path) -> None:
    _send({"op": "forget-subvolume", "path": str(path)})


@contextlib.contextmanager
def scratch_dir(prefix: str = "dbstor-") -> Iterator[Path]:
    """A temporary directory (like tempfile.TemporaryDirectory) that the watcher removes if
    dbstor is killed while it exists."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        path = Path(name)
        watch_dir(path)
        try:
            yield path
        finally:
            forget_dir(path)


def watcher_pid() -> int | None:
    """The watcher's pid in this process (None before first use); for tests."""
    if _state["owner"] != os.getpid():
        return None
    with _lock:
        _launched(wait=True)
        return _state["watcher"]


# --- the watcher's side -----------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and len(fields) > 1:
                out.setdefault(int(fields[1]), []).append(int(entry.name))
    return out


def _tree(root: int, children: dict[int, list[int]]) -> list[tuple[int, str]]:
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        started = start_time(pid)
        if started:
            found.append((pid, started))
        todo.extend(children.get(pid, []))
    return found


def kill_trees(trees: dict[int, str], grace_s: float = 10.0) -> None:
    """SIGKILL every live process in the given trees (root pid -> start time) until none
    is left or grace_s has passed; new children forked meanwhile are caught on the next pass."""
    seen: dict[int, str] = {}
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        children = _children()
        roots = [(pid, begun) for pid, begun in {**trees, **seen}.items() if _alive(pid, begun)]
        for root, _ in roots:
            for pid, begun in _tree(root, children):
                seen.setdefault(pid, begun)
        live = [pid for pid, begun in seen.items() if _alive(pid, begun)]
        if not live:
            return
        for pid in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def remove_dirs(dirs: dict[str, tuple[int, int]], grace_s: float = 5.0) -> None:
    """Remove each directory that is still the one registered (device, inode), never a link.
    A cgroup (whose control files cannot be unlinked) goes with rmdir once the processes
    killed in it have left."""
    for path, (dev, ino) in dirs.items():
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (info.st_dev, info.st_ino) != (dev, ino):
            continue
        if Path(path, "cgroup.procs").exists():
            deadline = time.monotonic() + grace_s
            while time.monotonic() < deadline:
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)  # busy: a killed process has not left yet
        else:
            shutil.rmtree(path, ignore_errors=True)


SHM = "/dev/shm"


def mapped_segments(trees: dict[int, str], prefixes: dict[int, str]) -> dict[str, tuple]:
    """The /dev/shm files named prefixes[root]* that a live process of root's tree maps
    now: path -> (device major, minor, inode, owner uid), read from /proc/PID/maps."""
    children, found = _children(), {}
    for root, prefix in prefixes.items():
        if root not in trees or not _alive(root, trees[root]):
            continue
        for pid, _ in _tree(root, children):
            try:
                maps = Path(f"/proc/{pid}/maps").read_text()
                uid = os.stat(f"/proc/{pid}").st_uid
            except OSError:
                continue
            for line in maps.splitlines():
                parts = line.split(maxsplit=5)
                if len(parts) < 6 or not parts[5].startswith(f"{SHM}/{prefix}"):
                    continue
                path = parts[5].removesuffix(" (deleted)")
                if os.path.dirname(path) == SHM:
                    major, minor = (int(x, 16) for x in parts[3].split(":"))
                    found[path] = (major, minor, int(parts[4]), uid)
    return found


def remove_segments(segments: dict[str, tuple]) -> None:
    """Unlink each recorded segment that is still the same file (device, inode, owner):
    never a link, never a segment of the same name made since by someone else."""
    for path, (major, minor, ino, uid) in segments.items():
        try:
            info = os.lstat(path)
        except OSError:
            continue
        same = (os.major(info.st_dev), os.minor(info.st_dev), info.st_ino, info.st_uid)
        if stat.S_ISREG(info.st_mode) and same == (major, minor, ino, uid):
            with contextlib.suppress(OSError):
                os.unlink(path)


def watch(stream: Any) -> None:
    """Read registrations until end of file, then kill and remove what is still held."""
    trees: dict[int, str] = {}
    shm: dict[int, str] = {}  # root pid -> the /dev/shm name prefix of its segments
    dirs: dict[str, tuple[int, int]] = {}
    throttles: dict[tuple[str, str], str] = {}  # (cgroup file, device) -> the rule before
    subvolumes: set[str] = set()
    for raw in stream:
        try:
            message = json.loads(raw)
            op = message["op"]
            if op == "tree":
                trees[int(message["pid"])] = str(message["start"])
                if message.get("shm"):
                    shm[int(message["pid"])] = str(message["shm"]).replace("/", "")
            elif op == "forget-tree":
                trees.pop(int(message["pid"]), None)
                shm.pop(int(message["pid"]), None)
            elif op == "dir":
                dirs[str(message["path"])] = (int(message["dev"]), int(message["ino"]))
            elif op == "forget-dir":
                dirs.pop(str(message["path"]), None)
            elif op in ("throttle", "forget-throttle"):
                key = (str(message["path"]), str(message["device"]))
                throttles.pop(key, None)
                if op == "throttle":
                    throttles[key] = str(message["restore"])
            elif op in ("subvolume", "forget-subvolume"):
                subvolumes.discard(str(message["path"]))
                if op == "subvolume":
                    subvolumes.add(str(message["path"]))
        except (ValueError, KeyError, TypeError):
            continue
    segments = mapped_segments(trees, shm)  # while the processes that map them still live
    kill_trees(trees)
    lift_throttles(throttles)
    remove_segments(segments)
    delete_subvolumes(subvolumes)
    remove_dirs(dirs)


def main() -> None:
    """Fork: the parent prints the watcher's pid and exits, the child watches. So the
    watcher is nobody's child: a supervisor that kills the children of a process that
    ends (Ray kills a dying worker's) cannot take it down with dbstor."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    child = os.fork()
    if child:
        print(child, flush=True)
        os._exit(0)
    os.setsid()  # a group of its own: a kill of the launcher's group (a zombie) spares it
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the launcher's reader sees its end
    watch(sys.stdin.buffer)


if __name__ == "__main__":
    main()
