"""Every role a run places on the storage, on its own device: which device holds each
role's paths (data, log, temp, a placement's fast path), the devices a point samples for
them, and each role's figures over the point's window.

A role whose paths sit on the same device as another role's is measured on that device
with it: its figures are the device's, and `shared_with` names the other roles, so no one
reads the same I/O twice as two roles' own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dbstor.results.model import DeviceStats
from dbstor.telemetry.disk import devices_for_path, mount_facts

ROLE_FIELDS = ("read_iops", "write_iops", "read_mbps", "write_mbps", "util_pct")


def role_devices(
    roles: Mapping[str, Sequence[str | os.PathLike[str]]],
    find: Callable[[str | os.PathLike[str]], list[str]] = devices_for_path,
) -> dict[str, list[str]]:
    """Role -> the top device of each of its paths (in the paths' order, each once);
    [] for a role on no block device (tmpfs, a network file system)."""
    found: dict[str, list[str]] = {}
    for role, paths in roles.items():
        names: list[str] = []
        for path in paths:
            try:
                top = find(path)[:1]
            except OSError:
                top = []
            names += [n for n in top if n not in names]
        found[str(role)] = names
    return found


def sampled_devices(data_devices: Sequence[str], by_role: Mapping[str, Sequence[str]]) -> list[str]:
    """The devices a point samples: the data path's (top device first, as before, so the
    point's `device` stays the data's), then every other role's device not among them."""
    names = list(data_devices)
    for devices in by_role.values():
        names += [d for d in devices if d not in names]
    return names


def target_roles(
    paths: Mapping[str, Sequence[Any]],
    by_role: Mapping[str, Sequence[str]],
    mount: Callable[[str | os.PathLike[str]], dict[str, str] | None] = mount_facts,
) -> dict[str, dict[str, Any]]:
    """results.json's `target.roles`: each role's paths, devices and file system (its
    first path's), and the other roles on the same device."""
    out = {}
    for role, devices in by_role.items():
        mine = [str(p) for p in paths.get(role, [])]
        out[role] = {
            "paths": mine,
            "devices": list(devices),
            "mount": mount(mine[0]) if mine else None,
            "shared_with": _sharing(role, by_role),
        }
    return out


def _sharing(role: str, by_role: Mapping[str, Sequence[str]]) -> list[str]:
    mine = set(by_role.get(role) or [])
    return [r for r, ds in by_role.items() if r != role and mine & set(ds)]


def role_figures(
    by_role: Mapping[str, Sequence[str]], window: Mapping[str, DeviceStats]
) -> dict[str, dict[str, Any]] | None:
    """A point's `roles`: per role its devices' I/O over the point's window (IOPS and MB/s
    summed over the role's devices, await the mean per I/O over them, util the busiest),
    or null figures and why. None when no role was measured at all (an old run's
    description, an external server)."""
    if not by_role or not window:
        return None
    figures: dict[str, dict[str, Any]] = {}
    for role, devices in by_role.items():
        entry: dict[str, Any] = {
            "devices": list(devices),
            "shared_with": _sharing(role, by_role),
        }
        stats = [window[d] for d in devices if d in window]
        if not stats:
            entry.update(dict.fromkeys(ROLE_FIELDS))
            entry["read_await_ms"] = entry["write_await_ms"] = None
            entry["missing"] = (
                "no block device under this role's paths (tmpfs, a network file system)"
                if not devices
                else f"device {', '.join(devices)} was not sampled"
            )
        else:
            entry.update(_combined(stats))
        figures[role] = entry
    return figures


def _combined(stats: list[DeviceStats]) -> dict[str, Any]:
    def total(key: str) -> float | None:
        values = [getattr(s, key) for s in stats if getattr(s, key) is not None]
        return sum(values) if values else None

    def await_ms(kind: str) -> float | None:
        pairs = [(getattr(s, f"{kind}_await_ms"), getattr(s, f"{kind}_iops") or 0.0) for s in stats]
        ops = sum(n for ms, n in pairs if ms is not None)
        return sum(ms * n for ms, n in pairs if ms is not None) / ops if ops else None

    utils = [s.util_pct for s in stats if s.util_pct is not None]
    reasons = [r for s in stats for r in (s.read_await_reason, s.write_await_reason) if r]
    return {
        **{k: total(k) for k in ROLE_FIELDS if k != "util_pct"},
        "util_pct": max(utils) if utils else None,
        "read_await_ms": await_ms("read"),
        "write_await_ms": await_ms("write"),
        **({"await_reasons": reasons} if reasons else {}),
    }


def role_iops(entry: Mapping[str, Any] | None) -> float | None:
    """A role's reads plus writes per second (None: not measured)."""
    if not entry or (entry.get("read_iops") is None and entry.get("write_iops") is None):
        return None
    return (entry.get("read_iops") or 0.0) + (entry.get("write_iops") or 0.0)


def roles_line(figures: Mapping[str, Mapping[str, Any]] | None) -> str:
    """The terminal line's roles on devices of their own (none when every role is on the
    data's device): "  log loop3 812 IOPS 0.41 ms w; fast loop4 96 IOPS 0.22 ms r"."""
    data = set((figures or {}).get("data", {}).get("devices") or [])
    parts = []
    for role, entry in (figures or {}).items():
        devices = set(entry.get("devices") or [])
        if role == "data" or not devices or devices <= data or entry.get("missing"):
            continue
        iops = role_iops(entry)
        reads = (entry.get("read_iops") or 0.0) >= (entry.get("write_iops") or 0.0)
        ms = entry.get("read_await_ms" if reads else "write_await_ms")
        latency = f" {ms:.3g} ms {'r' if reads else 'w'}" if ms is not None else ""
        parts.append(f"{role} {','.join(sorted(devices))} {iops or 0:,.0f} IOPS{latency}")
    return f"  {'; '.join(parts)}" if parts else ""
