"""The system facts that decide a storage result, read without privileges: for each device
under a target its model, firmware, rotational, block sizes, I/O scheduler, queue depth
(nr_requests), read-ahead, write cache and what it is built on (dm, md, multipath paths);
(the target's file system and mount options are telemetry/disk.py's mount_facts, the
host's CPU governor and NUMA nodes dbstor/host.py's).

Every fact that cannot be read is left out (never guessed); the facts are recorded in
results.json and compared by `dbstor compare`, which names the ones that differ."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dbstor.telemetry.paths import path_facts

SYS_BLOCK = Path("/sys/block")


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


def _int(path: Path) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _active(choices: str | None) -> str | None:
    """'none [mq-deadline] kyber' -> 'mq-deadline'."""
    if choices is None:
        return None
    for word in choices.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return choices


def device_facts(name: str, sys_block: Path = SYS_BLOCK) -> dict[str, Any]:
    """What /sys says about one block device (a partition's facts are its disk's queue)."""
    base = sys_block / name
    if not base.exists():  # a partition: /sys/class/block/<part> points into its disk
        link = Path("/sys/class/block") / name
        if not link.exists():
            return {}
        base = link.resolve().parent
    queue, device = base / "queue", base / "device"
    rotational = _int(queue / "rotational")
    facts: dict[str, Any] = {
        "model": _read(device / "model"),
        "vendor": _read(device / "vendor"),
        "firmware": _read(device / "firmware_rev") or _read(device / "rev"),
        "rotational": None if rotational is None else bool(rotational),
        "logical_block_bytes": _int(queue / "logical_block_size"),
        "physical_block_bytes": _int(queue / "physical_block_size"),
        "scheduler": _active(_read(queue / "scheduler")),
        "nr_requests": _int(queue / "nr_requests"),
        "read_ahead_kb": _int(queue / "read_ahead_kb"),
        "write_cache": _read(queue / "write_cache"),
    }
    dm_name, dm_uuid = _read(base / "dm" / "name"), _read(base / "dm" / "uuid")
    if dm_name:
        facts["dm_name"] = dm_name
        facts["multipath"] = bool(dm_uuid and dm_uuid.startswith("mpath-"))
    if (base / "md").is_dir():
        facts["md_level"] = _read(base / "md" / "level")
    slaves = base / "slaves"
    if slaves.is_dir():
        below = sorted(os.listdir(slaves))
        if below:
            facts["built_on"] = below
    return {k: v for k, v in facts.items() if v is not None}


def target_system(devices: list[str]) -> dict[str, Any]:
    """A target's system facts: each local device's (its file system is target.mount), and
    the paths to it (telemetry/paths.py) when it has FC, iSCSI, multipath or network links."""
    local = [d for d in devices if ":" not in d]  # host:device names are a cluster host's own
    paths = path_facts(local)  # FC ports, iSCSI sessions, multipath maps, links
    return {"devices": {d: device_facts(d) for d in local}} | ({"paths": paths} if paths else {})
