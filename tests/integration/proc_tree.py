"""What a test needs to know about the processes a dbstor run started: the tree under a
pid (with start times, so a reused pid is not taken for the same process), whether one
still lives, and its command line."""

from __future__ import annotations

import os
import time
from pathlib import Path

from dbstor.lifeline import start_time


def descendants(root: int) -> dict[int, str]:
    """pid -> start time of root and everything below it now."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                raw = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:
                continue
            ppid = int(raw[raw.rfind(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        started = start_time(pid)
        if started:
            out[pid] = started
        todo.extend(children.get(pid, []))
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive(pid: int, started: str) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = raw[raw.rfind(")") + 2 :].split()
    return fields[0] not in ("Z", "X") and fields[19] == started


def watch(roots: list[int], seconds: float) -> dict[int, str]:
    """Everything under the roots, seen at any moment over `seconds`."""
    seen: dict[int, str] = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for root in roots:
            seen.update(descendants(root))
        time.sleep(0.1)
    return seen


def still_running(seen: dict[int, str], wait_s: float = 0.0) -> dict[int, str]:
    """pid -> command line of those of `seen` still alive after up to wait_s seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        left = {p: cmdline(p) for p, s in seen.items() if alive(p, s)}
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)
