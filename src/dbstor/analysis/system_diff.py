"""Which system facts differ between runs (results.json's target.system, target.mount and
host): an I/O scheduler, a queue depth, read-ahead, write cache, file system, mount
options, kernel or CPU governor that differs is named in a comparison's warnings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.results.model import Run

DEVICE_FACTS = ("scheduler", "nr_requests", "read_ahead_kb", "write_cache", "rotational")
FS_FACTS = (("fs", "file system type"), ("options", "mount options"))
HOST_FACTS = ("kernel", "cpu_governor")


def _values(run: Run) -> dict[str, str] | None:
    system = run.target.get("system")
    if not isinstance(system, dict):
        return None  # a run made before dbstor recorded them: nothing to compare
    devices = [d for d in (system.get("devices") or {}).values() if isinstance(d, dict)]
    out: dict[str, str] = {}
    for key in DEVICE_FACTS:
        seen = sorted({str(f[key]) for f in devices if f.get(key) is not None})
        if seen:
            out[f"device {key.replace('_', ' ')}"] = "/".join(seen)
    mount = run.target.get("mount")
    for key, name in FS_FACTS if isinstance(mount, dict) else ():
        if mount.get(key):
            out[name] = str(mount[key])
    for key in HOST_FACTS:
        if run.host.get(key):
            out[key.replace("_", " ")] = str(run.host[key])
    return out


def system_differences(runs: Sequence[Run]) -> list[str]:
    """One warning per fact whose values differ between runs that recorded it."""
    recorded: list[tuple[str, dict[str, Any]]] = []
    for run in runs:
        values = _values(run)
        if values is not None:
            recorded.append((str(run.target.get("label") or run.run_id), values))
    if len(recorded) < 2:
        return []
    warnings = []
    keys = sorted({k for _, v in recorded for k in v})
    for key in keys:
        per_run = [(label, values.get(key)) for label, values in recorded]
        if len({v for _, v in per_run if v is not None}) > 1:
            shown = ", ".join(f"{label} {value}" for label, value in per_run if value is not None)
            warnings.append(f"the runs differ in {key} ({shown}): compare with care")
    return warnings
