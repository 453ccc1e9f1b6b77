"""What each built-in event kind does to the target, for real, and how it is undone.

`begin(kind, settings, place, name)` starts one occurrence and returns a `Happening`
whose `end()` undoes it (lifts the throttle, removes the snapshot, waits for the command)
and returns what happened. Every change is registered with the lifeline first, so that
a throttle is lifted and a snapshot removed even when dbstor is killed during the event.

- throttle: cgroup v1 `blkio.throttle.{read,write}_{iops,bps}_device` (v2 `io.max` where
  the io controller is on) of the cgroup dbstor runs in, which holds the point's
  processes (fio, the client processes, a managed server, dbstor's per-point accounting
  groups below it: v1 and v2 throttles are hierarchical); the rule that was there before
  is put back.
- snapshot: a read-only btrfs subvolume snapshot of the subvolume holding the target's
  data, or on XFS a reflink copy (FICLONE) of the target's files; removed at the end.
- command: the user's program as an argument list, no shell, its own session, killed at
  its time limit; its exit status and output kept.
- drop-caches: sync, then 3 into /proc/sys/vm/drop_caches. fstrim: `fstrim -v` on the
  target's file system.
- crash, checkpoint: the point's database engines (events/server_actions.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbstor import lifeline
from dbstor.engines.cgroup import cgroup_mounts, own_cgroup_dir
from dbstor.events.failure import EventFailed
from dbstor.events.server_actions import checkpoint_engines, crash_engines
from dbstor.study.events import existing_ancestor, snapshot_method

FICLONE = 0x40049409  # linux/fs.h: _IOW(0x94, 9, int)
SNAPSHOT_PREFIX = ".dbstor-snapshot-"
MAX_OUTPUT = 1 << 20  # a command's output kept, bytes


@dataclass(frozen=True)
class Place:
    """Where events act: the target's data paths and its top block device (diskstats name)."""

    paths: tuple[str, ...]
    device: str | None
    engines: tuple[Any, ...] = ()  # the point's database engines (crash, checkpoint)
    restarted: Any = None  # called after a crash restarted the servers (own accounting)


class Happening:
    """One occurrence in progress; end() undoes it and returns its details."""

    def __init__(self, details: dict[str, Any] | None = None) -> None:
        self.details = details or {}

    @property
    def done(self) -> bool:
        return True  # instant kinds are over when begin() returns

    def end(self) -> dict[str, Any]:
        return self.details


def begin(kind: str, settings: dict[str, Any], place: Place, name: str) -> Happening:
    starters = {
        "throttle": _throttle,
        "snapshot": _snapshot,
        "command": _command,
        "drop-caches": _drop_caches,
        "fstrim": _fstrim,
        "crash": lambda _s, place, _n: Happening(crash_engines(place.engines, place.restarted)),
        "checkpoint": lambda _s, place, _n: Happening(checkpoint_engines(place.engines)),
    }
    return starters[kind](settings, place, name)


# --- throttle ---------------------------------------------------------------------------


def device_number(name: str | None) -> str:
    if not name:
        raise EventFailed("the target has no block device under it to throttle")
    try:
        return Path(f"/sys/class/block/{name}/dev").read_text().strip()
    except OSError as exc:
        raise EventFailed(f"no device number for {name}: {exc}") from None


def point_groups(group: Path) -> list[Path]:
    """The cgroups holding the point's processes: dbstor's home group and the per-point
    accounting groups (telemetry/own.py) it made beside it for this process."""
    label = f"dbstor-own-{os.getpid()}-"
    home = group.parent if group.name.startswith(label) else group
    return [home, *sorted(g for g in home.glob(f"{label}*") if g.is_dir())]


def throttle_files(settings: dict[str, Any]) -> tuple[str, list[tuple[str, int]]]:
    """('v1' or 'v2', [(cgroup file, limit)]) for the throttle's settings. v1 throttles
    are flat (a parent's rule does not hold its children), so every group of the point
    gets the rule."""
    unit = "iops" if "iops" in settings else "bps"
    limit = int(settings["iops"]) if unit == "iops" else int(settings["mbps"] * 1_000_000)
    directions = ("read", "write") if settings["direction"] == "both" else (settings["direction"],)
    for mount, root, fstype, options in cgroup_mounts():
        if fstype == "cgroup" and "blkio" in options:
            group = own_cgroup_dir(mount, root, lambda _h, c: "blkio" in c.split(","))
            return "v1", [
                (str(g / f"blkio.throttle.{d}_{unit}_device"), limit)
                for g in point_groups(group)
                for d in directions
            ]
    for mount, root, fstype, _ in cgroup_mounts():
        if fstype == "cgroup2":
            group = own_cgroup_dir(mount, root, lambda h, _c: h == "0")
            files = [(str(g / "io.max"), limit) for g in point_groups(group)]
            files = [(f, n) for f, n in files if Path(f).exists()]
            if files:
                return "v2", files
    raise EventFailed("no cgroup I/O controller here (cgroup v1 blkio or v2 io)")


def _v1_rule(path: str, device: str) -> int:
    with contextlib.suppress(OSError):
        for line in Path(path).read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == device:
                return int(parts[1])
    return 0


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


class _Throttle(Happening):
    def __init__(self, rules: list[tuple[str, str]], device: str, details: dict[str, Any]):
        super().__init__(details)
        self.rules, self.device = rules, device  # (file, the line that puts it back)

    def end(self) -> dict[str, Any]:
        problems = []
        for path, restore in self.rules:
            try:
                _write(path, restore)
                lifeline.forget_throttle(path, self.device)
            except OSError as exc:
                problems.append(f"{path}: {exc}")
        if problems:
            raise EventFailed("the throttle could not be lifted: " + "; ".join(problems))
        return self.details


def _throttle(settings: dict[str, Any], place: Place, name: str) -> Happening:
    device = device_number(place.device)
    version, files = throttle_files(settings)
    rules: list[tuple[str, str]] = []
    unit = "iops" if "iops" in settings else "bps"
    try:
        for path, limit in files:
            if version == "v1":
                restore = f"{device} {_v1_rule(path, device)}"
                lifeline.watch_throttle(path, device, restore)
                rules.append((path, restore))
                _write(path, f"{device} {limit}")
            else:
                keys = [
                    f"{d[0]}{unit}"
                    for d in ("read", "write")
                    if settings["direction"] in (d, "both")
                ]
                restore = f"{device} " + " ".join(f"{k}=max" for k in keys)
                lifeline.watch_throttle(path, device, restore)
                rules.append((path, restore))
                _write(path, f"{device} " + " ".join(f"{k}={limit}" for k in keys))
    except OSError as exc:
        _Throttle(rules, device, {}).end()
        raise EventFailed(f"could not set the throttle ({version}): {exc}") from None
    groups = sorted({str(Path(path).parent) for path, _ in files})
    details = {"cgroup": version, "device": device, "groups": groups, "limit": files[0][1]}
    return _Throttle(rules, device, details | {"limit_unit": "IOPS" if unit == "iops" else "B/s"})


# --- snapshot -----------------------------------------------------------------------------


def subvolume_root(path: Path) -> Path:
    """The btrfs subvolume holding path: the highest directory on path's own device."""
    path = existing_ancestor(path)
    device = os.stat(path).st_dev
    while path != path.parent and os.stat(path.parent).st_dev == device:
        path = path.parent
    return path


class _Snapshot(Happening):
    def __init__(self, method: str, path: Path, details: dict[str, Any]):
        super().__init__(details)
        self.method, self.path = method, path

    def end(self) -> dict[str, Any]:
        if self.method == "btrfs":
            out = subprocess.run(
                ["btrfs", "subvolume", "delete", str(self.path)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            if out.returncode != 0:
                raise EventFailed(f"btrfs subvolume delete {self.path}: {out.stderr.strip()}")
            lifeline.forget_subvolume(self.path)
        else:
            shutil.rmtree(self.path)
            lifeline.forget_dir(self.path)
        return self.details


def _snapshot(settings: dict[str, Any], place: Place, name: str) -> Happening:
    source = Path(place.paths[0])
    method = snapshot_method(source)
    started = time.monotonic()
    if method == "btrfs":
        root = subvolume_root(source)
        dest = root / f"{SNAPSHOT_PREFIX}{os.getpid()}-{name}"
        lifeline.watch_subvolume(dest)  # before it exists: removed if dbstor dies meanwhile
        out = subprocess.run(
            ["btrfs", "subvolume", "snapshot", "-r", str(root), str(dest)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if out.returncode != 0:
            lifeline.forget_subvolume(dest)
            raise EventFailed(f"btrfs subvolume snapshot of {root}: {out.stderr.strip()}")
        details = {"method": "btrfs subvolume snapshot", "of": str(root)}
    else:
        source = existing_ancestor(source)
        dest = source / f"{SNAPSHOT_PREFIX}{os.getpid()}-{name}"
        os.mkdir(dest, 0o700)
        lifeline.watch_dir(dest)
        files, size = reflink_copy(source, dest)
        details = {"method": "reflink copy", "of": str(source), "files": files, "bytes": size}
    details |= {"path": str(dest), "take_s": round(time.monotonic() - started, 3)}
    return _Snapshot(method, dest, details)


def reflink_copy(source: Path, dest: Path) -> tuple[int, int]:
    """Clone every regular file under source into dest (sharing extents); never follows a
    link, skips other snapshots and files that vanish meanwhile."""
    files = size = 0
    for folder, dirs, names in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith(SNAPSHOT_PREFIX)]
        target = dest / Path(folder).relative_to(source)
        target.mkdir(exist_ok=True)
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                src = os.open(Path(folder, name), os.O_RDONLY | os.O_NOFOLLOW)
                try:
                    if not os.path.isfile(f"/proc/self/fd/{src}"):
                        continue
                    dst = os.open(target / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    try:
                        fcntl.ioctl(dst, FICLONE, src)
                    finally:
                        os.close(dst)
                    files, size = files + 1, size + os.fstat(src).st_size
                finally:
                    os.close(src)
    return files, size


# --- command, drop-caches, fstrim ---------------------------------------------------------


class _Command(Happening):
    def __init__(self, argv: list[str], timeout_s: float):
        super().__init__({"argv": argv, "timeout_s": timeout_s})
        self.process = subprocess.Popen(
            argv,
            env=command_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd="/",
            start_new_session=True,
            close_fds=True,
        )
        lifeline.watch_tree(self.process.pid)
        self.timeout_s, self.output = timeout_s, b""
        self.finished = threading.Event()
        threading.Thread(target=self._wait, daemon=True).start()

    def _wait(self) -> None:
        started = time.monotonic()
        timer = threading.Timer(self.timeout_s, self._kill)
        timer.start()
        assert self.process.stdout is not None
        chunks, kept = [], 0
        for chunk in iter(lambda: self.process.stdout.read(65536), b""):  # type: ignore[union-attr]
            if kept < MAX_OUTPUT:
                chunks.append(chunk[: MAX_OUTPUT - kept])
                kept += len(chunks[-1])
        status = self.process.wait()
        timer.cancel()
        lifeline.forget_tree(self.process.pid)
        self.output = b"".join(chunks)
        self.details |= {
            "exit_status": status,
            "run_s": round(time.monotonic() - started, 3),
            "timed_out": self.details.get("timed_out", False),
        }
        self.finished.set()

    def _kill(self) -> None:
        self.details["timed_out"] = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    @property
    def done(self) -> bool:
        return self.finished.is_set()

    def end(self) -> dict[str, Any]:
        if not self.finished.wait(self.timeout_s + 10):
            self._kill()
            self.finished.wait(10)
        self.details["output"] = self.output.decode("utf-8", "replace")
        if self.details.get("timed_out"):
            raise EventFailed(
                f"{self.details['argv'][0]} ran past its time limit of "
                f"{self.timeout_s:g}s and was killed"
            )
        if self.details.get("exit_status") != 0:
            raise EventFailed(
                f"{self.details['argv'][0]} exited with status {self.details.get('exit_status')}"
            )
        return self.details


SECRET_WORDS = ("DSN", "PASSWORD", "PASSWD", "PWD", "SECRET", "TOKEN")


def command_env() -> dict[str, str]:
    """dbstor's environment without what may hold a secret (DBSTOR_DSN, PGPASSWORD,
    MYSQL_PWD, ...): the command's output is kept in the run folder."""
    return {k: v for k, v in os.environ.items() if not any(w in k.upper() for w in SECRET_WORDS)}


def _command(settings: dict[str, Any], place: Place, name: str) -> Happening:
    try:
        return _Command(list(settings["argv"]), float(settings["timeout_s"]))
    except OSError as exc:
        raise EventFailed(f"could not start {settings['argv'][0]}: {exc}") from None


def _drop_caches(settings: dict[str, Any], place: Place, name: str) -> Happening:
    os.sync()
    try:
        _write("/proc/sys/vm/drop_caches", "3")
    except OSError as exc:
        raise EventFailed(f"could not drop the page cache (needs root): {exc}") from None
    return Happening({"dropped": "page cache, dentries and inodes"})


def _fstrim(settings: dict[str, Any], place: Place, name: str) -> Happening:
    where = existing_ancestor(Path(place.paths[0]))
    out = subprocess.run(
        ["fstrim", "-v", str(where)], capture_output=True, text=True, timeout=300, check=False
    )
    if out.returncode != 0:
        raise EventFailed(f"fstrim {where}: {(out.stderr or out.stdout).strip()}")
    return Happening({"fstrim_said": out.stdout.strip()})
