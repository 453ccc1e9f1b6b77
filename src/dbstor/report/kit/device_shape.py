"""The workload's shape at the storage, as measured at the device: the share of reads, the
mean read and write sizes and the mean queue depth (iostat's aqu-sz), with the queue per
drive when the target's facts give its `drives` (h6080: "2 per spindle"), and a point's
MB/s as a share of the path's link speed when the target's path facts give one (TR-3476:
"both at about 78% of the available bandwidth").

Each part is left out when its figure was not measured (an old run, a target with no
block device): a shape is never made up from the workload's own template."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dbstor.report.kit.fmt import fmt_num
from dbstor.results.model import DeviceStats, Point, Run


def drives_of(run: Run) -> int | None:
    """The target's drive count from its facts (`drives = 75`), or None."""
    facts = (run.target or {}).get("facts")
    drives = facts.get("drives") if isinstance(facts, Mapping) else None
    if isinstance(drives, bool) or not isinstance(drives, int | float) or drives < 1:
        return None
    return int(drives)


def _kib(value: float | None) -> str | None:
    return None if value is None else f"{fmt_num(value, 2)} KiB"


def shape_parts(device: DeviceStats | None, drives: int | None = None) -> list[str]:
    """['91% reads', 'mean read 8 KiB, write 16 KiB', 'queue 3.2 (0.04 a drive of 75)'],
    each part only when measured."""
    if device is None:
        return []
    parts = []
    if device.read_share is not None:
        parts.append(f"{device.read_share * 100:.0f}% reads")
    sizes = [
        f"{kind} {_kib(size)}"
        for kind, size in (("read", device.read_kib_mean), ("write", device.write_kib_mean))
        if size is not None
    ]
    if sizes:
        parts.append("mean " + ", ".join(sizes))
    queue = device.queue_depth_mean
    if queue is not None:
        shown = "under 0.01" if 0 <= queue < 0.01 else fmt_num(queue, 2)
        each = ""
        if drives and queue >= 0.01:
            per = queue / drives
            each = f" ({'under 0.01' if per < 0.01 else fmt_num(per, 2)} a drive of {drives})"
        parts.append(f"queue {shown}{each}")
    return parts


def shape_text(point: Point, drives: int | None = None) -> str:
    """'91% reads; mean read 8 KiB, write 16 KiB; queue 3.2', or '' when not measured."""
    return "; ".join(shape_parts(point.device, drives))


def link_share(point: Point, run: Run) -> tuple[float, float] | None:
    """The point's device MB/s as a share of its path's link speed, and the speed in MB/s,
    when the target's path facts give a speed (telemetry/paths.py); None otherwise."""
    system = (run.target or {}).get("system")
    path = system.get("paths") if isinstance(system, Mapping) else None
    speed = path.get("link_mbps") if isinstance(path, Mapping) else None
    if not isinstance(speed, int | float) or isinstance(speed, bool) or speed <= 0:
        return None
    device = point.device
    if device is None or (device.read_mbps is None and device.write_mbps is None):
        return None
    mbps = (device.read_mbps or 0.0) + (device.write_mbps or 0.0)
    return mbps / float(speed), float(speed)


def shape_title(run: Run) -> str:
    """What the shape cell's figures are (its tooltip)."""
    drives = drives_of(run)
    each = f"; a drive: over the {drives} drives the target's facts name" if drives else ""
    return (
        "measured at the device over the point's window: the share of I/Os that were reads, "
        f"their mean sizes, the mean I/Os in its queue (iostat's aqu-sz){each}"
    )


def shape_note(run: Run, point: Point) -> str:
    """One sentence for a point: its shape and, with a link speed, its share of the path."""
    text = shape_text(point, drives_of(run))
    share: Any = link_share(point, run)
    if share is not None:
        used, speed = share
        share = "under 1%" if used < 0.005 else f"{used * 100:.0f}%"
        words = f"{share} of the path's {fmt_num(speed)} MB/s link"
        text = f"{text}; {words}" if text else words
    return text
