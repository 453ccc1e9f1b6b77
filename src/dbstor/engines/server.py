"""Running a managed database server: account, directories, port, process, memory cap, I/O.

PostgreSQL and MariaDB refuse to run as root. When dbstor runs as root the server runs as
an unprivileged account: the distro's (`postgres`, `mysql`) when it exists, else a system
user `dbstor` created with useradd. Every directory dbstor creates on a target holds a
marker file; a non-empty directory without it is refused unless the user allows
overwriting. The server runs in its own session (Ctrl-C in the terminal does not reach
it), logs to a file, and may be capped in memory with a cgroup (v2 memory.max or v1
memory.limit_in_bytes; page cache counts against both).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from dbstor.engines.base import mask_dsn
from dbstor.errors import UserError

MARKER_FILE = ".dbstor-engine.json"
FALLBACK_ACCOUNT = "dbstor"


@dataclass(frozen=True)
class Account:
    """The OS account a server runs as."""

    name: str
    uid: int
    gid: int

    def popen_ids(self) -> dict[str, Any]:
        """subprocess keyword arguments that switch to this account (when root)."""
        if os.geteuid() == 0 and self.uid != 0:
            return {"user": self.uid, "group": self.gid, "extra_groups": []}
        return {}


def service_account(preferred: Sequence[str]) -> Account:
    """Ourselves unless root; as root the first preferred account, else `dbstor` (created)."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    for name in (*preferred, FALLBACK_ACCOUNT):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    cmd = [useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
    cmd += ["--shell", "/usr/sbin/nologin", FALLBACK_ACCOUNT]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    except OSError as exc:
        raise UserError(f"cannot create the '{FALLBACK_ACCOUNT}' account ({exc.strerror}): "
                        f"create an unprivileged user '{FALLBACK_ACCOUNT}' or run dbstor as a normal user") from None
    if done.returncode not in (0, 9):  # 9: exists already (created concurrently)
        raise UserError(f"useradd {FALLBACK_ACCOUNT} failed: {last_line(done.stderr)}; "
                        f"create an unprivileged user '{FALLBACK_ACCOUNT}' or run dbstor as a normal user")
    entry = pwd.getpwnam(FALLBACK_ACCOUNT)
    return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)


def chown_tree(path: Path, account: Account) -> None:
    """Give a directory tree to the account (no-op unless root)."""
    if os.geteuid() != 0:
        return
    os.lchown(path, account.uid, account.gid)
    for root, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(os.path.join(root, name), account.uid, account.gid)


def server_env(home: Path) -> dict[str, str]:
    """A small, predictable environment for server commands."""
    path = os.environ.get("PATH", "") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    return {"PATH": path, "HOME": str(home), "LANG": "C", "LC_ALL": "C", "TZ": "UTC"}


def run_as(
    cmd: Sequence[str], account: Account, cwd: Path, timeout: float = 300, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command to its end as the account; output captured as text."""
    try:
        return subprocess.run(list(cmd), cwd=cwd, env=server_env(cwd), input=stdin, text=True,
                              capture_output=True, timeout=timeout, check=False, **account.popen_ids())
    except subprocess.TimeoutExpired:
        raise UserError(f"{Path(cmd[0]).name} did not finish within {timeout:.0f} s") from None
    except OSError as exc:
        raise UserError(f"cannot run {cmd[0]}: {exc.strerror}") from None


def can_write(path: Path, account: Account) -> bool:
    """Whether the account can reach and write a directory (checked as that account)."""
    if not account.popen_ids():
        return os.access(path, os.W_OK | os.X_OK)
    test = shutil.which("test") or "/usr/bin/test"
    return run_as([test, "-w", str(path), "-a", "-x", str(path)], account, Path("/"), 30).returncode == 0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_MEANINGFUL = re.compile(r"FATAL|PANIC|ERROR|error|Error|refused|denied|cannot|could not|Can't", re.M)


def last_line(text: str) -> str:
    """The last line that says what went wrong (else the last non-empty one), shortened."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "no output"
    pick = next((ln for ln in reversed(lines) if _MEANINGFUL.search(ln)), lines[-1])
    return pick if len(pick) <= 300 else pick[:297] + "..."


def log_tail(path: Path) -> str:
    """last_line() of a log file's end, or 'no log' when there is none."""
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - 65536))
            return last_line(handle.read().decode(errors="replace"))
    except OSError:
        return "no log"


def hide(text: str, secrets: Sequence[str]) -> str:
    """One line of a message with DSN passwords masked and the given secrets removed."""
    line = (str(text).strip().splitlines() or [""])[0]
    for secret in secrets:
        if secret:
            line = line.replace(secret, "***")
    return mask_dsn(line)


# --- processes ---------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rfind(")") + 2 :].split()  # state, ppid, ...


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

    def __init__(self, cap: MemoryCap):
        self.cap = cap
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: Path | None = None
        self._known: list[int] = []

    def start(self, cmd: Sequence[str], account: Account, cwd: Path, log: Path) -> None:
        self.log = log
        with log.open("ab") as out:
            try:
                self.proc = subprocess.Popen(list(cmd), cwd=cwd, env=server_env(cwd), stdout=out,
                                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             start_new_session=True, **account.popen_ids())
            except OSError as exc:
                raise UserError(f"cannot start {cmd[0]}: {exc.strerror}") from None
        self.cap.add([self.proc.pid])

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def pids(self) -> list[int]:
        """The server's process tree right now (remembered for cleanup)."""
        if self.alive() and self.proc:
            self._known = process_tree(self.proc.pid)
        return self._known

    def wait_ready(self, probe: Callable[[], bool], what: str, timeout: float = 90) -> None:
        """Poll probe() until it is true; UserError quoting the log if the server exits."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                code = self.proc.returncode if self.proc else None
                raise UserError(f"{what} exited at start (status {code}): "
                                f"{log_tail(self.log) if self.log else 'no log'}")
            if probe():
                self.cap.add(self.pids())
                return
            time.sleep(0.1)
        raise UserError(f"{what} did not accept connections within {timeout:.0f} s: "
                        f"{log_tail(self.log) if self.log else 'no log'}")

    def stop(self, clean: signal.Signals, timeout: float = 60) -> None:
        """Ask the server to stop with `clean`; escalate to SIGKILL of its whole tree."""
        if self.proc is None:
            return
        leftovers = set(self.pids()) | set(self.cap.members())
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(clean)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                leftovers |= set(self.pids())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(process_running(p) for p in leftovers):
            time.sleep(0.05)  # children notice the parent's exit and leave
        for pid in leftovers | set(self.cap.members()):
            if process_running(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        self.proc = None


# --- directories ---------------------------------------------------------------------------


class OwnedDirs:
    """The directories one server instance creates on the target paths, each marked."""

    def __init__(self, engine: str, instance: int, account: Account, allow_overwrite: bool):
        self.engine, self.instance, self.account = engine, instance, account
        self.allow_overwrite = allow_overwrite
        self.claimed: dict[Path, bool] = {}  # directory -> dbstor created it (mkdir)

    def claim(self, parent: Path, name: str, role: str) -> Path:
        """parent/name, empty, marked and owned by the account. A marked directory left by
        an earlier run is emptied; a foreign non-empty one is refused (UserError)."""
        path = Path(parent).absolute() / name
        if path in self.claimed:
            return path
        if not path.parent.is_dir():
            raise UserError(f"{role} path {path.parent} does not exist or is not a directory: "
                            "create it or fix the target's paths")
        created = False
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise UserError(f"{path} exists and is not a directory: remove it or choose another path")
        if path.is_dir():
            marker = read_marker(path)
            owner = int(marker.get("pid", 0)) if marker else 0
            if marker and owner not in (0, os.getpid()) and process_running(owner):
                raise UserError(f"{path} is in use by another dbstor (pid {owner}): "
                                "wait for it or use another instance number")
            if any(path.iterdir()) and not marker and not self.allow_overwrite:
                raise UserError(f"{path} is not empty and was not created by dbstor: remove it, "
                                "choose another path, or allow overwriting it")
            empty_directory(path)
        else:
            try:
                path.mkdir(mode=0o750)
                created = True
            except OSError as exc:
                raise UserError(f"cannot create {path}: {exc.strerror}; "
                                f"make {path.parent} writable or choose another {role} path") from None
        self.claimed[path] = created
        info = {"created_by": "dbstor", "engine": self.engine, "instance": self.instance,
                "pid": os.getpid(), "created_at": datetime.now(UTC).isoformat(timespec="seconds")}
        (path / MARKER_FILE).write_text(json.dumps(info) + "\n", encoding="utf-8")
        chown_tree(path, self.account)
        if not can_write(path, self.account):
            raise UserError(f"the '{self.account.name}' account cannot write {path}: make its parent "
                            "directories traversable (chmod o+x) or choose another path")
        return path

    def subdir(self, parent: Path, name: str, mode: int = 0o700) -> Path:
        """An empty directory owned by the account inside a claimed one."""
        path = parent / name
        path.mkdir(mode=mode)
        os.chmod(path, mode)
        chown_tree(path, self.account)
        return path

    def remove(self) -> None:
        """Remove what was claimed: directories dbstor created go, adopted ones are emptied."""
        for path, created in reversed(list(self.claimed.items())):
            if created:
                shutil.rmtree(path, ignore_errors=True)
            else:
                empty_directory(path)
                with contextlib.suppress(FileNotFoundError):
                    (path / MARKER_FILE).unlink()
        self.claimed.clear()


def read_marker(path: Path) -> dict[str, Any] | None:
    """dbstor's marker in a directory, or None."""
    try:
        data = json.loads((path / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("created_by") == "dbstor" else None


def empty_directory(path: Path) -> None:
    """Remove everything inside a directory, keeping the directory."""
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                child.unlink()


# --- memory cap ----------------------------------------------------------------------------


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root, fstype, super options) of cgroup mounts."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                found.append((fields[4], fields[3], tail[0], set(tail[2].split(","))))
    return found


def _own_dir(mount: str, root: str, match: Callable[[str, str], bool]) -> Path:
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

    def create(self) -> None:
        """Make the group and set its limit; when impossible, remember why."""
        if self.limit is None or self.group is not None:
            return
        reasons = []
        for mount, root, fstype, options in _mounts():
            if fstype == "cgroup2":
                own = _own_dir(mount, root, lambda h, c: h == "0" and c == "")
                for parent in dict.fromkeys((own, Path(mount))):
                    enabled = _words(parent / "cgroup.subtree_control")
                    if "memory" not in enabled:
                        reasons.append(f"cgroup v2: memory controller not enabled in {parent}/cgroup.subtree_control")
                        continue
                    if self._make(parent, "memory.max", 2, reasons):
                        return
            elif "memory" in options:
                own = _own_dir(mount, root, lambda h, c: "memory" in c.split(","))
                for parent in dict.fromkeys((own, Path(mount))):
                    if self._make(parent, "memory.limit_in_bytes", 1, reasons):
                        return
        self.note = "; ".join(dict.fromkeys(reasons)) or "no cgroup memory controller is mounted"

    def _make(self, parent: Path, limit_file: str, version: int, reasons: list[str]) -> bool:
        group = parent / self.name
        try:
            group.mkdir(exist_ok=True)
            (group / limit_file).write_text(str(self.limit))
        except OSError as exc:
            reasons.append(f"cgroup v{version}: cannot create {group} ({exc.strerror})")
            with contextlib.suppress(OSError):
                group.rmdir()
            return False
        self.group, self.version = group, version
        self.note = f"{limit_file}={self.limit}"
        return True

    def add(self, pids: Sequence[int]) -> None:
        """Move processes (whole thread groups) into the group."""
        if self.group is None:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, FileNotFoundError):
                (self.group / "cgroup.procs").write_text(str(pid))

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

    def describe(self) -> str:
        """Which mechanism capped the server's memory, or why none did."""
        if self.group is None:
            return f"none: {self.note}"
        return (f"cgroup v{self.version} group {self.group}: {self.note} bytes "
                "(page cache counts against it)")


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()
