"""The block I/O and CPU of a point's own processes, apart from everything else on the host.

For one point dbstor makes a cgroup per role (`server`: a managed server's process tree;
`client`: dbstor's own process, whose forked client processes and embedded engines inherit
it) and reads it at the measured window's edges:

- cgroup v1 (`blkio` and `cpuacct` hierarchies): `blkio.throttle.io_serviced` and
  `io_service_bytes` per device, `cpuacct.usage`. The kernel counts a v1 group's I/O on a
  device only while the group has a throttle rule for it, so each measured device gets a
  rule that never binds (NO_LIMIT bytes/s). v1 charges a write to the process that submits
  it: direct writes and writes the processes flush themselves (fsync) count; buffered
  writes flushed later by the kernel's writeback threads and the file system's journal do
  not (the cross-check `proc_write_bytes` from /proc/PID/io counts what they dirtied).
- cgroup v2: `io.stat` (rios, wios, rbytes, wbytes per device, writeback charged too) and
  `cpu.stat` usage_usec.
- neither (no cgroup can be made, or v2 without the io and cpu controllers): /proc/PID/io
  read_bytes/write_bytes and /proc/PID/stat utime+stime summed over the process trees (bytes,
  no operation counts, no per-device split).

Snapshots are plain dicts; `own_window(before, after)` is their difference.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from dbstor import lifeline
from dbstor.engines.cgroup import cgroup_mounts, own_cgroup_dir
from dbstor.engines.process import process_tree

ROLES = ("server", "client")
NO_LIMIT = 1 << 60  # bytes per second: a v1 throttle rule that only turns counting on
V1_WRITES = (
    "writes the processes submitted themselves (direct I/O, their own flushes); buffered "
    "writes flushed later by the kernel and journal writes are not charged under cgroup v1"
)
V2_WRITES = "all writes, including buffered writes the kernel flushed for the processes"
PROC_WRITES = "bytes the processes dirtied or wrote (/proc/PID/io write_bytes), no device split"
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def device_numbers(names: Iterable[str], sysfs: str = "/sys") -> dict[str, str]:
    """'major:minor' -> /proc/diskstats name for the named block devices found in sysfs."""
    found = {}
    for name in names:
        with contextlib.suppress(OSError):
            found[(Path(sysfs) / "class" / "block" / name / "dev").read_text().strip()] = name
    return found


def parse_v1_blkio(serviced: str, service_bytes: str, names: dict[str, str]) -> dict[str, list]:
    """name -> [reads, writes, read_bytes, write_bytes] from v1 throttle files."""
    out: dict[str, list] = {}
    for column, text in ((0, serviced), (2, service_bytes)):
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in ("Read", "Write") and parts[0] in names:
                row = out.setdefault(names[parts[0]], [0, 0, 0, 0])
                row[column + (parts[1] == "Write")] = int(parts[2])
    return out


def parse_v2_io(text: str, names: dict[str, str]) -> dict[str, list]:
    """name -> [reads, writes, read_bytes, write_bytes] from a v2 io.stat."""
    out: dict[str, list] = {}
    for line in text.splitlines():
        dev, *pairs = line.split()
        if dev not in names:
            continue
        values = dict(p.split("=", 1) for p in pairs if "=" in p)
        out[names[dev]] = [int(values.get(k, 0)) for k in ("rios", "wios", "rbytes", "wbytes")]
    return out


def proc_tree_usage(pids: Iterable[int]) -> dict[str, int | None]:
    """Summed /proc/PID/io bytes and /proc/PID/stat CPU (ns) of the processes given."""
    read = write = cpu = 0
    readable = True
    for pid in dict.fromkeys(pids):
        try:
            io = Path(f"/proc/{pid}/io").read_text()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            continue
        except OSError:
            readable = False
            continue
        values = dict(line.split(": ") for line in io.splitlines() if ": " in line)
        read += int(values.get("read_bytes", 0))
        write += int(values.get("write_bytes", 0))
        fields = stat[stat.rfind(")") + 2 :].split()
        cpu += (int(fields[11]) + int(fields[12])) * 1_000_000_000 // _TICK
    if not readable:
        return {"read_bytes": None, "write_bytes": None, "cpu_ns": None}
    return {"read_bytes": read, "write_bytes": write, "cpu_ns": cpu}


class OwnAccounting:
    """The cgroups around one point's own processes, by role, read at the window's edges."""

    def __init__(self, devices: Sequence[str], label: str = "point", capped: bool = False):
        self.capped = capped  # a memory cap's group holds processes of the point
        self.names = device_numbers(devices)
        self.label = f"dbstor-own-{os.getpid()}-{label}"
        self.groups: dict[str, dict[str, Path]] = {}  # role -> controller -> group
        self.home: dict[str, Path] = {}  # controller -> where dbstor's process came from
        self.version: int | None = None
        self.pids: dict[str, list[int]] = {}
        self.note = ""

    @property
    def source(self) -> str:
        if self.version == 1:
            return "cgroup v1 blkio.throttle.io_serviced/io_service_bytes, cpuacct.usage"
        if self.version == 2:
            return "cgroup v2 io.stat, cpu.stat"
        return "/proc/PID/io and /proc/PID/stat summed over the process trees" + (
            f" ({self.note})" if self.note else ""
        )

    @property
    def writes_counted(self) -> str:
        return {1: V1_WRITES, 2: V2_WRITES}.get(self.version or 0, PROC_WRITES)

    def start(self, server_pids: Sequence[int], client_pids: Sequence[int]) -> None:
        """Make the groups and move the processes (and so their future children) in."""
        self.pids = {"server": list(server_pids), "client": list(client_pids)}
        try:
            self._make()
        except OSError as exc:  # not root, say, in a container: /proc then, saying why
            self.note = f"no cgroup could be made: {exc.strerror or exc}"
            self.stop()
            self.version, self.home = None, {}
            return
        for role, pids in self.pids.items():
            for group in self.groups.get(role, {}).values():
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, FileNotFoundError):
                        (group / "cgroup.procs").write_text(str(pid))

    def add_server(self, pids: Sequence[int]) -> None:
        """A server started again during the point (a crash event): its processes join
        the server's group from now on."""
        self.pids["server"] = [*self.pids.get("server", []), *pids]
        for group in self.groups.get("server", {}).values():
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, FileNotFoundError):
                    (group / "cgroup.procs").write_text(str(pid))

    def _make(self) -> None:
        v1: dict[str, Path] = {}
        v2: Path | None = None
        for mount, root, fstype, options in cgroup_mounts():
            if fstype == "cgroup2":
                own = own_cgroup_dir(mount, root, lambda h, c: h == "0" and c == "")
                ctl = set((own / "cgroup.subtree_control").read_text().split()) if own else set()
                if {"io", "cpu"} <= ctl:
                    v2 = own
            else:
                for controller in ("blkio", "cpuacct"):
                    if controller in options and controller not in v1:
                        v1[controller] = own_cgroup_dir(
                            mount, root, lambda h, c, k=controller: k in c.split(",")
                        )
        if v2 is not None and self.capped and len(v1) < 2:
            # v2 has one group per process: moving them would take them out of the cap
            self.note = "cgroup v2: the processes sit in dbstor's memory cap group"
            return
        if v2 is not None and not self.capped:
            self.version, self.home = 2, {"unified": v2}
        elif len(v1) == 2:
            self.version, self.home = 1, v1
        else:
            self.note = "no cgroup with blkio and cpuacct (v1) or io and cpu (v2) is mounted"
            return
        for role in ROLES:
            self.groups[role] = {}
            for controller, parent in self.home.items():
                group = parent / f"{self.label}-{role}"
                group.mkdir(exist_ok=True)
                lifeline.watch_dir(group)  # removed by the watcher if dbstor is killed
                self.groups[role][controller] = group
                if controller == "blkio":
                    for number in self.names:
                        for rule in ("read_bps_device", "write_bps_device"):
                            (group / f"blkio.throttle.{rule}").write_text(f"{number} {NO_LIMIT}")

    def members(self) -> dict[str, list[int]]:
        """The processes in each role's group now (those given at start without groups)."""
        out = {}
        for role in ROLES:
            files = self.groups.get(role)
            group = next(iter(files.values()), None) if files else None
            if group is None:
                out[role] = [p for pid in self.pids.get(role, []) for p in process_tree(pid)]
                continue
            with contextlib.suppress(OSError):
                out[role] = [int(x) for x in (group / "cgroup.procs").read_text().split()]
        return out

    def read(self) -> dict[str, Any]:
        """A snapshot: per role, device counters, CPU nanoseconds and the /proc cross-check."""
        snap: dict[str, Any] = {
            "source": self.source,
            "writes_counted": self.writes_counted,
            "roles": {},
        }
        members = self.members()
        for role in ROLES:
            proc = proc_tree_usage(members.get(role, []))
            entry: dict[str, Any] = {
                "devices": {},
                "processes": len(members.get(role, [])),
                "cpu_ns": proc["cpu_ns"],
                "proc_read_bytes": proc["read_bytes"],
                "proc_write_bytes": proc["write_bytes"],
            }
            files = self.groups.get(role, {})
            with contextlib.suppress(OSError, ValueError):
                if self.version == 1:
                    blkio, cpu = files["blkio"], files["cpuacct"]
                    entry["devices"] = parse_v1_blkio(
                        (blkio / "blkio.throttle.io_serviced").read_text(),
                        (blkio / "blkio.throttle.io_service_bytes").read_text(),
                        self.names,
                    )
                    entry["cpu_ns"] = int((cpu / "cpuacct.usage").read_text())
                elif self.version == 2:
                    group = files["unified"]
                    entry["devices"] = parse_v2_io((group / "io.stat").read_text(), self.names)
                    stat = dict(
                        line.split() for line in (group / "cpu.stat").read_text().splitlines()
                    )
                    entry["cpu_ns"] = int(stat["usage_usec"]) * 1000
            snap["roles"][role] = entry
        return snap

    def stop(self) -> None:
        """Move every process back where dbstor's own process came from; remove the groups."""
        for files in self.groups.values():
            for controller, group in files.items():
                home = self.home[controller]
                for _ in range(100):  # a server may fork or reap while it is moved out
                    with contextlib.suppress(OSError):
                        for pid in (group / "cgroup.procs").read_text().split():
                            with contextlib.suppress(OSError):
                                (home / "cgroup.procs").write_text(pid)
                    try:
                        group.rmdir()
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.05)
                lifeline.forget_dir(group)
        self.groups = {}


def own_window(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What each role did between two snapshots (plain data; None where unreadable)."""

    def minus(a: Any, b: Any) -> Any:
        return None if a is None or b is None else max(0, a - b)

    roles = {}
    for role, end in after["roles"].items():
        start = before["roles"].get(role, {})
        devices = {
            name: [
                max(0, a - b)
                for a, b in zip(row, start.get("devices", {}).get(name, [0] * 4), strict=True)
            ]
            for name, row in end["devices"].items()
        }
        roles[role] = {
            "devices": devices,
            "processes": end.get("processes"),
            **{
                k: minus(end.get(k), start.get(k))
                for k in ("cpu_ns", "proc_read_bytes", "proc_write_bytes")
            },
        }
    return {"source": after["source"], "writes_counted": after["writes_counted"], "roles": roles}
