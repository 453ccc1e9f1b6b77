"""Usable capacity from drives: raw -> right-sized -> partitioned -> spares -> parity -> reserves.

Every step is a line with what it takes away and what is left, in bytes; reports show
decimal TB (as drives are sold) and binary TiB (as ONTAP and most systems print sizes,
often labelled "TB").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
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
    """The capacity walk as a dictionary (what `dbstor capacity --json` prints).

    Raises ValueError with a one-line message for a layout that cannot be built.
    """
    level = data.RAID_LEVELS.get(raid.lower())
    if level is None:
        raise ValueError(f"unknown RAID type {raid!r}; use one of {', '.join(data.RAID_LEVELS)}")
    if partitioning not in PARTITIONING:
        raise ValueError(f"unknown partitioning {partitioning!r}; use {', '.join(PARTITIONING)}")
    for name, pct in (("--fs-reserve", fs_reserve_pct), ("--snap-reserve", snap_reserve_pct)):
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
    notes: list[str] = []
    raw = float(drives.count * drives.size)
    lines = [_line("raw", f"{drives.label} drives, decimal as sold", 0, raw)]
    lines.append(
        _line(
            "units",
            f"the same in binary units: {drives.size / data.GIB:.2f} GiB per drive (nothing lost)",
            0,
            raw,
        )
    )
    per_drive, label, source = _right_size(drives, right_size)
    remaining = per_drive * drives.count
    lines.append(_line("right-size", label, raw - remaining, remaining, source))

    members_per_drive = 1
    member = per_drive
    if partitioning != "none":
        root = float(root_partition if root_partition is not None else data.DEFAULT_ROOT_PARTITION)
        if root_partition is None:
            notes.append(
                f"root partition assumed {root / data.GIB:g} GiB ({data.ROOT_PARTITION_SOURCE})"
            )
        if root >= per_drive:
            raise ValueError("the root partition is as large as the drive")
        if drives.count > 48:
            notes.append(
                "ONTAP partitions at most 48 drives at initialisation; the rest would be whole drives"
            )
        members_per_drive = 2 if partitioning == "root-data-data" else 1
        member = (per_drive - root) / members_per_drive
        remaining -= root * drives.count
        lines.append(
            _line(
                "partitioning",
                f"{partitioning}: a {root / data.GIB:g} GiB root partition on each of {drives.count} drives "
                f"(node root aggregates); {members_per_drive} data partition(s) of {member / data.GIB:.2f} GiB each",
                root * drives.count,
                remaining,
                "NetApp KB 'What are the rules for Advanced Disk Partitioning'",
            )
        )
    if spares:
        remaining -= spares * members_per_drive * member
        lines.append(
            _line(
                "spares", f"{spares} spare drive(s)", spares * members_per_drive * member, remaining
            )
        )
    members = (drives.count - spares) * members_per_drive
    groups = math.ceil(members / group)
    last = members - (groups - 1) * group
    if level.mirror:
        parity_members = members // 2
        if members % 2:
            notes.append("an odd member is left without a mirror and is not counted")
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
    remaining -= parity_members * member
    lines.append(
        _line(
            "parity",
            desc,
            parity_members * member,
            remaining,
            data.layout_source(level, built if not level.mirror else []),
        )
    )
    data_members = members - parity_members

    fs_pct = (
        fs_reserve_pct
        if fs_reserve_pct is not None
        else (data.WAFL_RESERVE_PCT if level.ontap else 0.0)
    )
    if fs_pct:
        cut = remaining * fs_pct / 100
        remaining -= cut
        src = data.WAFL_RESERVE_SOURCE if fs_reserve_pct is None else "user input"
        lines.append(
            _line(
                "fs-reserve",
                f"file-system reserve {fs_pct:g}% (WAFL reserve on ONTAP)",
                cut,
                remaining,
                src,
            )
        )
    if snap_reserve_pct:
        cut = remaining * snap_reserve_pct / 100
        remaining -= cut
        lines.append(
            _line(
                "snap-reserve", f"aggregate snapshot reserve {snap_reserve_pct:g}%", cut, remaining
            )
        )
    lines.append(_line("usable", "usable", 0, remaining))
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
        "data_members": data_members,
        "member_bytes": round(member),
        "deductions": lines,
        "notes": notes,
    }
