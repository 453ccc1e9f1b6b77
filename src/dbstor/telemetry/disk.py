"""Block-device counters from /proc/diskstats, and which devices hold a path.

The counters are what the block layer saw, below the page cache: the I/O that reached
the device (or the device-mapper/md device) the target's file system sits on.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbstor.results.model import DeviceStats

PROC_DISKSTATS = "/proc/diskstats"
PROC_MOUNTINFO = "/proc/self/mountinfo"
SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's block size
_WRAP_32 = 2**32  # the millisecond fields are 32-bit in the kernel and wrap
RESOLUTION_MS = 1  # the time fields count whole milliseconds


@dataclass(frozen=True)
class DiskCounters:
    """Cumulative counters of one device since boot (fields 1, 3-11 of /proc/diskstats)."""

    reads: int = 0
    sectors_read: int = 0
    read_ms: int = 0
    writes: int = 0
    sectors_written: int = 0
    write_ms: int = 0
    in_progress: int = 0  # a gauge, not a counter
    io_ms: int = 0  # time with at least one I/O in flight ("io_ticks")
    weighted_ms: int = 0


def parse_diskstats(text: str | None = None) -> dict[str, DiskCounters]:
    """Parse /proc/diskstats text (read from /proc/diskstats when None): name -> counters.

    Lines with fewer than 11 counters (partitions on very old kernels) are skipped.
    """
    if text is None:
        text = Path(PROC_DISKSTATS).read_text()
    result: dict[str, DiskCounters] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 14:
            continue
        v = [int(x) for x in parts[3:14]]
        # v: reads, reads merged, sectors read, ms reading, writes, writes merged,
        #    sectors written, ms writing, in progress, ms doing io, weighted ms
        result[parts[2]] = DiskCounters(v[0], v[2], v[3], v[4], v[6], v[7], v[8], v[9], v[10])
    return result


def _delta(before: int, after: int) -> int:
    """after - before for a kernel counter, allowing one wrap of a 32-bit counter."""
    if after >= before:
        return after - before
    if before < _WRAP_32:
        return after + _WRAP_32 - before
    return 0  # a 64-bit counter went back: the device was reset; count nothing


def device_stats(
    before: Mapping[str, DiskCounters],
    after: Mapping[str, DiskCounters],
    seconds: float,
    name: str,
) -> DeviceStats:
    """Rates of device `name` between two parsed /proc/diskstats snapshots `seconds` apart.

    MB/s are decimal megabytes (1 MB = 1,000,000 bytes), like fio's MB/s. Awaits are
    mean milliseconds per completed I/O (queue plus service time), None with no I/O of
    that kind. util_pct is the share of time with I/O in flight, capped at 100; on
    devices that serve many I/Os at once (NVMe, arrays, dm) 100 % does not mean full.
    The shape: read_share (of the I/Os), mean read and write sizes in KiB, and the mean
    queue depth (iostat's aqu-sz, from the weighted time in queue, field 11).
    An await whose I/Os' time summed to under the counters' 1 ms resolution is None with
    a reason (await_figure), never 0. Raises KeyError when the device is missing from
    either snapshot.
    """
    for snap in (before, after):
        if name not in snap:
            raise KeyError(f"device {name!r} is not in /proc/diskstats")
    if seconds <= 0:
        return DeviceStats(name=name)
    a, b = before[name], after[name]
    reads = _delta(a.reads, b.reads)
    writes = _delta(a.writes, b.writes)
    read_ms = _delta(a.read_ms, b.read_ms)
    write_ms = _delta(a.write_ms, b.write_ms)
    io_ms = _delta(a.io_ms, b.io_ms)
    read_await, read_why = await_figure(read_ms, reads, "reads")
    write_await, write_why = await_figure(write_ms, writes, "writes")
    sectors_read = _delta(a.sectors_read, b.sectors_read)
    sectors_written = _delta(a.sectors_written, b.sectors_written)
    return DeviceStats(
        name=name,
        read_iops=reads / seconds,
        write_iops=writes / seconds,
        read_mbps=sectors_read * SECTOR_BYTES / 1e6 / seconds,
        write_mbps=sectors_written * SECTOR_BYTES / 1e6 / seconds,
        read_await_ms=read_await,
        write_await_ms=write_await,
        util_pct=min(100.0, io_ms / (seconds * 1000.0) * 100.0),
        read_await_reason=read_why,
        write_await_reason=write_why,
        read_share=reads / (reads + writes) if reads + writes > 0 else None,
        read_kib_mean=sectors_read * SECTOR_BYTES / 1024 / reads if reads > 0 else None,
        write_kib_mean=sectors_written * SECTOR_BYTES / 1024 / writes if writes > 0 else None,
        # iostat's aqu-sz: the weighted time (each I/O's time in the queue, summed) over
        # the window's time is the mean number of I/Os in the device's queue
        queue_depth_mean=_delta(a.weighted_ms, b.weighted_ms) / (seconds * 1000.0),
    )


def await_figure(total_ms: float, ops: float, kind: str) -> tuple[float | None, str | None]:
    """Mean milliseconds per I/O from the counters' time and operations over a window,
    and why it is None: no I/O of that kind (no reason: nothing to wait for), or I/O whose
    time summed to less than the counters' resolution, which is not 0 but under
    1 ms / ops each (a bound, in the reason)."""
    if ops <= 0:
        return None, None
    if total_ms < RESOLUTION_MS:
        count = max(1, round(ops))  # a window's edges can hold part of an I/O
        name = kind if count > 1 else kind.removesuffix("s")
        return None, (
            f"device {kind} await under {RESOLUTION_MS / ops:.2g} ms: {count:,} {name} took "
            f"less than the disk counters' {RESOLUTION_MS} ms resolution in all"
        )
    return total_ms / ops, None


# --- which devices hold a path -------------------------------------------------------


def devices_for_path(
    path: str | os.PathLike[str],
    sysfs: str | os.PathLike[str] = "/sys",
    mountinfo: str | os.PathLike[str] = PROC_MOUNTINFO,
) -> list[str]:
    """The block devices under `path`, as /proc/diskstats names: the top device first.

    The top device is the one the file system sits on (a whole disk for a partition;
    a dm or md device itself), then, for dm/md, the whole disks beneath it. A path that
    does not exist yet is resolved through its nearest existing parent; a block device
    node stands for itself. Returns [] when no block device holds the path (tmpfs,
    overlay, NFS...). File systems with anonymous device numbers (btrfs) are found
    through the mount's source device in `mountinfo`.
    """
    existing, st = _stat_existing(Path(path))
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    if os.major(dev) == 0:
        dev = _device_from_mount(existing, mountinfo)
        if dev is None:
            return []
    node = Path(sysfs) / "dev" / "block" / f"{os.major(dev)}:{os.minor(dev)}"
    if not node.exists():
        return []
    top = _whole(node.resolve())
    leaves: list[str] = []
    _collect_leaves(top, leaves, depth=0)
    names = [_name(top)]
    names += [leaf for leaf in sorted(set(leaves)) if leaf != names[0]]
    return names


def _stat_existing(path: Path) -> tuple[Path, os.stat_result]:
    """The nearest existing path at or above `path`, and its stat."""
    path = path.absolute()
    while True:
        try:
            return path, os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            if path.parent == path:
                raise
            path = path.parent


def _whole(devdir: Path) -> Path:
    """A partition's sysfs directory -> its disk's; anything else unchanged."""
    return devdir.parent if (devdir / "partition").exists() else devdir


def _slaves(devdir: Path) -> list[Path]:
    slaves = devdir / "slaves"
    if not slaves.is_dir():
        return []
    return [_whole(entry.resolve()) for entry in sorted(slaves.iterdir())]


def _collect_leaves(devdir: Path, out: list[str], depth: int) -> None:
    """Follow slaves/ down (dm on md on partitions...) to the whole disks at the bottom."""
    below = _slaves(devdir) if depth < 16 else []
    if not below:
        if depth > 0:
            out.append(_name(devdir))
        return
    for child in below:
        _collect_leaves(child, out, depth + 1)


def _name(devdir: Path) -> str:
    # sysfs spells a '/' in a device name as '!' (cciss!c0d0); /proc/diskstats keeps '/'.
    return devdir.name.replace("!", "/")


def _device_from_mount(path: Path, mountinfo: str | os.PathLike[str]) -> int | None:
    """Device number of the block device a mount names as its source, if it names one."""
    try:
        text = Path(mountinfo).read_text()
    except OSError:
        return None
    source = mount_source(os.path.realpath(path), text)
    if source is None or not source.startswith("/dev/"):
        return None
    try:
        st = os.stat(source)
    except OSError:
        return None
    return st.st_rdev if stat.S_ISBLK(st.st_mode) else None


def mount_facts(
    path: str | os.PathLike[str], mountinfo: str | os.PathLike[str] = PROC_MOUNTINFO
) -> dict[str, str] | None:
    """The file system holding `path` (its nearest existing parent): type, mount options
    (the mount's own, then the file system's) and mount point; None when unknown."""
    try:
        existing, _ = _stat_existing(Path(path))
        text = Path(mountinfo).read_text()
    except OSError:
        return None
    found = _holding_mount(os.path.realpath(existing), text)
    if found is None:
        return None
    parts, tail = found
    options = ",".join(dict.fromkeys([*parts[5].split(","), *(tail[2:3] or [""])[0].split(",")]))
    return {"fs": tail[0], "options": options.strip(","), "point": _unescape(parts[4])}


def _holding_mount(realpath: str, mountinfo_text: str) -> tuple[list[str], list[str]] | None:
    """The fields before and after ' - ' of the mountinfo line of the mount that holds
    `realpath` (the longest mount point wins, the later mount at the same point wins)."""
    best: tuple[int, list[str], list[str]] | None = None
    for line in mountinfo_text.splitlines():
        left, sep, right = line.partition(" - ")
        parts, tail = left.split(), right.split()
        if not sep or len(parts) < 6 or len(tail) < 2:
            continue
        point = _unescape(parts[4])
        inside = realpath == point or realpath.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= best[0]):
            best = (len(point), parts, tail)
    return (best[1], best[2]) if best else None


def mount_source(realpath: str, mountinfo_text: str) -> str | None:
    """The source field of the mount that holds `realpath`, from /proc/self/mountinfo text."""
    found = _holding_mount(realpath, mountinfo_text)
    return _unescape(found[1][1]) if found else None


def _unescape(field: str) -> str:
    """Undo mountinfo's octal escapes (\\040 for a space)."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        chunk = field[i + 1 : i + 4]
        if field[i] == "\\" and len(chunk) == 3 and all(c in "01234567" for c in chunk):
            out.append(chr(int(chunk, 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def await_text(
    device: DeviceStats | Mapping[str, Any] | None, kind: str, show: Callable[[float], str]
) -> str:
    """A device's `kind` ("read", "write") await for a table: `show(ms)`, "<bound" when it
    was under the counters' resolution (the bound its reason gives), "–" when there is none.
    The device is measured stats or one as results.json stores it (a cluster host's)."""

    def field(name: str) -> Any:
        if isinstance(device, Mapping):
            return device.get(name)
        return getattr(device, name, None)

    figure = field(f"{kind}_await_ms")
    if figure is not None:
        return show(figure)
    bound = re.search(r"await under ([0-9.e+-]+) ms", field(f"{kind}_await_reason") or "")
    return f"<{show(float(bound.group(1)))}" if bound else "–"


def await_notes(device: DeviceStats | None) -> list[str]:
    """The reasons a device's awaits are null though it did I/O (trust notes)."""
    if device is None:
        return []
    return [r for r in (device.read_await_reason, device.write_await_reason) if r]
