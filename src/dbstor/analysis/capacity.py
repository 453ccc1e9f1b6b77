"""Usable capacity from drives: raw -> right-sized -> partitioned -> spares -> parity -> reserves.

Every step is a line with what it takes away and what is left, in bytes; reports show
decimal TB (as drives are sold) and binary TiB (as ONTAP and most systems print sizes,
often labelled "TB").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from dbstor.analysis import capacity_data as data
from dbstor.units import parse_size

TB = 10**12
TIB = 1024**4
PARTITIONING = ("none", "root-data", "root-data-data")
MAX_DRIVES = 100_000
MAX_DRIVE_BYTES = 10**15


@dataclass
class Drives:
    count: int
    size: int  # bytes, as sold (decimal)
    label: str


def parse_drives(text: str) -> Drives:
    """'48x800GB' -> 48 drives of 800e9 bytes. Sizes without a unit suffix are refused."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX*]\s*(\S+)\s*", text)
    if not match or int(match.group(1)) < 1:
        raise ValueError(
            f"{text!r} is not a drive list; use COUNTxSIZE, e.g. 48x800GB or 24x3.84TB"
        )
    if int(match.group(1)) > MAX_DRIVES:
        raise ValueError(
            f"{int(match.group(1)):,} drives is more than {MAX_DRIVES:,}; give 1 to {MAX_DRIVES:,}"
        )
    size_text = match.group(2)
    if not re.search(r"[a-zA-Z]$", size_text):
        raise ValueError(f"{text!r}: give the drive size with a unit, e.g. 800GB or 3.84TB")
    size = parse_size(size_text)
    if size < 10**9:
        raise ValueError(f"{text!r}: drives under 1 GB are not supported")
    if size > MAX_DRIVE_BYTES:
        raise ValueError(f"{text!r}: a drive over 1 PB is not a drive; give its size as sold")
    return Drives(int(match.group(1)), size, f"{match.group(1)} x {size_text}")


def _line(
    step: str, label: str, deduct: float, remaining: float, source: str = ""
) -> dict[str, Any]:
    # float subtraction may leave a hair below zero when nothing is left: nothing is left
    remaining = max(0.0, remaining)
    return {
        "step": step,
        "label": label,
        "deduct_bytes": round(deduct),
        "remaining_bytes": round(remaining),
        "remaining_tb": round(remaining / TB, 3),
        "remaining_tib": round(remaining / TIB, 3),
        "source": source,
    }


def _right_size(drives: Drives, right_size: str) -> tuple[float, str, str]:
    """(bytes per drive after right-sizing, label, source)."""
    mode = right_size.strip().lower()
    if mode in ("", "none"):
        return float(drives.size), "no vendor right-sizing", ""
    if mode == "netapp":
        mib = data.NETAPP_RIGHT_SIZED_MIB.get(drives.size)
        if mib is None:
            return (
                float(drives.size),
                "no NetApp right-size known for this drive; decimal size used",
                "",
            )
        size = mib * data.MIB
        if size > drives.size:  # the table is checked by a test; never add capacity
            raise ValueError(f"NetApp right-size {mib:,} MiB is more than the drive")
        return (
            float(size),
            f"NetApp right-sized to {mib:,} MiB ({size / data.GIB:.2f} GiB) per drive",
            data.NETAPP_RIGHT_SIZE_SOURCE,
        )
    try:
        size = parse_size(right_size)
    except ValueError as exc:
        raise ValueError(
            f"--right-size: {exc}; give none, netapp or a size such as 745GiB"
        ) from None
    if size > drives.size:
        raise ValueError(
            f"--right-size {right_size} is more than the drive's {drives.size:,} bytes; "
            "right-sizing only takes capacity away"
        )
    if size <= 0:
        raise ValueError(f"--right-size {right_size} leaves nothing of the drive")
    return float(size), f"right-sized to {right_size} per drive (given)", "user input"


@dataclass
class _Walk:
    """The capacity walk as it goes: what is left, each deduction's line, the notes."""

    remaining: float
    lines: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def deduct(self, step: str, label: str, cut: float, source: str = "") -> None:
        self.remaining -= cut
        self.lines.append(_line(step, label, cut, self.remaining, source))


def _check_layout(
    level: Any,
    drives: Drives,
    raid: str,
    raid_group: int | None,
    spares: int,
    partitioning: str,
    reserves: tuple[tuple[str, float | None], ...],
) -> int:
    """The RAID group size, after refusing (ValueError, one line) a layout that cannot be built."""
    if level is None:
        raise ValueError(f"unknown RAID type {raid!r}; use one of {', '.join(data.RAID_LEVELS)}")
    if partitioning not in PARTITIONING:
        raise ValueError(f"unknown partitioning {partitioning!r}; use {', '.join(PARTITIONING)}")
    for name, pct in reserves:
        if pct is not None and pct >= 100:  # a walk to 0 usable is no answer
            raise ValueError(f"{name} {pct:g}% leaves nothing usable; give less than 100%")
    group = raid_group or level.default_group
    if group < level.min_group:
        raise ValueError(
            f"a {level.name} group needs at least {level.min_group} members, not {group}"
        )
    if level.mirror and group % 2:
        raise ValueError("a raid10 group needs an even number of members")
    if spares < 0 or spares >= drives.count:
        raise ValueError(f"{spares} spares leave no drives for data out of {drives.count}")
    return int(group)


def _partition(
    walk: _Walk, drives: Drives, per_drive: float, partitioning: str, root_partition: int | None
) -> tuple[int, float]:
    """Advanced disk partitioning's root partitions: (data members per drive, member bytes)."""
    if partitioning == "none":
        return 1, per_drive
    root = float(root_partition if root_partition is not None else data.DEFAULT_ROOT_PARTITION)
    if root_partition is None:
        walk.notes.append(
            f"root partition assumed {root / data.GIB:g} GiB ({data.ROOT_PARTITION_SOURCE})"
        )
    if root >= per_drive:
        raise ValueError("the root partition is as large as the drive")
    if drives.count > 48:
        walk.notes.append(
            "ONTAP partitions at most 48 drives at initialisation; the rest would be whole drives"
        )
    members_per_drive = 2 if partitioning == "root-data-data" else 1
    member = (per_drive - root) / members_per_drive
    walk.deduct(
        "partitioning",
        f"{partitioning}: a {root / data.GIB:g} GiB root partition on each of {drives.count} drives "
        f"(node root aggregates); {members_per_drive} data partition(s) of {member / data.GIB:.2f} GiB each",
        root * drives.count,
        "NetApp KB 'What are the rules for Advanced Disk Partitioning'",
    )
    return members_per_drive, member


def _parity(walk: _Walk, level: Any, group: int, members: int, member: float) -> int:
    """The parity (or mirror) members' deduction; how many members it took."""
    groups = math.ceil(members / group)
    last = members - (groups - 1) * group
    built: list[int] = []
    if level.mirror:
        parity_members = members // 2
        if members % 2:
            walk.notes.append("an odd member is left without a mirror and is not counted")
            parity_members = members - members // 2
        desc = f"raid10: {members // 2} mirrored pairs"
    else:
        if last < level.min_group:
            raise ValueError(
                f"{members} members in groups of {group} leave a last group of {last}, too small for "
                f"{level.name}; change --raid-group or --spares"
            )
        parity_members = groups * level.parity
        built = [group] * (groups - 1) + [last]
        sizes = (
            f"{groups - 1} x {group} + 1 x {last}"
            if last != group and groups > 1
            else f"{groups} x {last}"
        )
        desc = f"{level.name}: {groups} group(s) ({sizes} members), {level.parity} parity each = {parity_members}"
    walk.deduct("parity", desc, parity_members * member, data.layout_source(level, built))
    return int(parity_members)


def _reserves(walk: _Walk, fs_pct: float, fs_given: bool, snap_reserve_pct: float) -> None:
    """The file system's reserve (WAFL's on ONTAP) and the aggregate snapshot reserve."""
    if fs_pct:
        walk.deduct(
            "fs-reserve",
            f"file-system reserve {fs_pct:g}% (WAFL reserve on ONTAP)",
            walk.remaining * fs_pct / 100,
            "user input" if fs_given else data.WAFL_RESERVE_SOURCE,
        )
    if snap_reserve_pct:
        walk.deduct(
            "snap-reserve",
            f"aggregate snapshot reserve {snap_reserve_pct:g}%",
            walk.remaining * snap_reserve_pct / 100,
        )


def usable(
    drives: Drives,
    *,
    raid: str = "raid-dp",
    raid_group: int | None = None,
    spares: int = 0,
    partitioning: str = "none",
    root_partition: int | None = None,
    right_size: str = "none",
    fs_reserve_pct: float | None = None,
    snap_reserve_pct: float = 0.0,
) -> dict[str, Any]:
    """The capacity walk as a dictionary (what `dbstor capacity --json` prints): raw, the
    right-size, partitioning, spares, parity and reserves, each a named step.

    Raises ValueError with a one-line message for a layout that cannot be built.
    """
    level = data.RAID_LEVELS.get(raid.lower())
    reserves = (("--fs-reserve", fs_reserve_pct), ("--snap-reserve", snap_reserve_pct))
    group = _check_layout(level, drives, raid, raid_group, spares, partitioning, reserves)
    raw = float(drives.count * drives.size)
    walk = _Walk(raw)
    walk.deduct("raw", f"{drives.label} drives, decimal as sold", 0)
    walk.deduct(
        "units",
        f"the same in binary units: {drives.size / data.GIB:.2f} GiB per drive (nothing lost)",
        0,
    )
    per_drive, label, source = _right_size(drives, right_size)
    walk.remaining = per_drive * drives.count  # as the drive reports itself, not raw minus
    walk.lines.append(_line("right-size", label, raw - walk.remaining, walk.remaining, source))
    members_per_drive, member = _partition(walk, drives, per_drive, partitioning, root_partition)
    if spares:
        walk.deduct("spares", f"{spares} spare drive(s)", spares * members_per_drive * member)
    members = (drives.count - spares) * members_per_drive
    parity_members = _parity(walk, level, group, members, member)
    fs_pct = (
        fs_reserve_pct
        if fs_reserve_pct is not None
        else (data.WAFL_RESERVE_PCT if level.ontap else 0.0)
    )
    _reserves(walk, fs_pct, fs_reserve_pct is not None, snap_reserve_pct)
    walk.deduct("usable", "usable", 0)
    remaining = walk.remaining
    return {
        "inputs": {
            "drives": drives.count,
            "drive_bytes": drives.size,
            "raid": level.name,
            "raid_group": group,
            "spares": spares,
            "partitioning": partitioning,
            "right_size": right_size,
            "fs_reserve_pct": fs_pct,
            "snap_reserve_pct": snap_reserve_pct,
        },
        "raw_tb": round(raw / TB, 3),
        "raw_tib": round(raw / TIB, 3),
        "usable_tb": round(remaining / TB, 3),
        "usable_tib": round(remaining / TIB, 3),
        "usable_pct_of_raw": round(100 * remaining / raw, 2),
        "data_members": members - parity_members,
        "member_bytes": round(member),
        "deductions": walk.lines,
        "notes": walk.notes,
    }
