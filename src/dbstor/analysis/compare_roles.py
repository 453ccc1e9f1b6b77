"""Each role's own device in a comparison: the I/O and latency of every role a run placed
on the storage (data, log, temp, a placement's fast path), run beside run at the same load.

A comparison's device figures are the data device's; a placement's after-run that moved
objects to a fast device, or a run whose log sits on a device of its own, did part of its
I/O elsewhere. Here every run's roles are read at one load (the baseline's knee load, or
each run's own basis load), each figure interpolated on the run's curve as the other
compared figures are, with each role's share of the run's device I/O. A role on another
role's device is counted once, on that device (`shared_with`). Runs that recorded no roles
(older results, external servers) are left out with why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.curve import curve_points, value_at_knee
from dbstor.results.model import Point, Run

FIGURES = ("read_iops", "write_iops", "read_mbps", "write_mbps", "read_await_ms", "write_await_ms")


def role_iops(entry: dict[str, Any]) -> float | None:
    """A role's reads plus writes per second (None: not measured)."""
    if entry.get("read_iops") is None and entry.get("write_iops") is None:
        return None
    return (entry.get("read_iops") or 0.0) + (entry.get("write_iops") or 0.0)


def _role_names(points: Sequence[Point]) -> list[str]:
    names: list[str] = []
    for point in points:
        names += [r for r in (point.roles or {}) if r not in names]
    return names


def _figure(points: Sequence[Point], load: float, role: str, key: str) -> float | None:
    def getter(p: Point) -> float | None:
        value = ((p.roles or {}).get(role) or {}).get(key)
        return float(value) if isinstance(value, int | float) else None

    return value_at_knee(points, {"load": load}, getter)


def roles_at(run: Run, load: float | None) -> dict[str, dict[str, Any]] | None:
    """Role -> its devices and figures at this load (None: the run recorded no roles, or
    measured nothing at that load). Roles on a device already counted are left out."""
    points = [p for p in curve_points(run.points) if p.roles]
    if load is None or not points:
        return None
    recorded = (run.target or {}).get("roles") or {}
    out: dict[str, dict[str, Any]] = {}
    counted: set[str] = set()
    for role in _role_names(points):
        sample = next(p.roles[role] for p in points if role in (p.roles or {}))
        devices = list(sample.get("devices") or (recorded.get(role) or {}).get("devices") or [])
        if devices and set(devices) <= counted:
            continue
        counted |= set(devices)
        entry: dict[str, Any] = {
            "devices": devices,
            "shared_with": list(sample.get("shared_with") or []),
            **{key: _figure(points, load, role, key) for key in FIGURES},
        }
        if all(entry[k] is None for k in FIGURES):
            entry["missing"] = str(sample.get("missing") or "not measured at this load")
        out[role] = entry
    if all("missing" in e for e in out.values()):
        return None
    whole = sum(v for v in (role_iops(e) for e in out.values()) if v is not None)
    for entry in out.values():
        iops = role_iops(entry)
        entry["share"] = iops / whole if iops is not None and whole else None
    return out


def compare_roles(
    runs: Sequence[Run],
    labels: Sequence[str],
    loads: Sequence[float | None],
    words: str,
    load: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """comparison.json's `roles`: every run's roles at its load (`loads`, one per run: the
    same load for all, or each run's own basis when the runs share none), or None when no
    run recorded roles. `words` names where ("QD 4, the baseline's knee load"); `load` is
    the common load ({"kind", "value"}), None when each run is at its own."""
    if not any(p.roles for r in runs for p in r.points):
        return None
    entries = []
    for run, label, value in zip(runs, labels, loads, strict=True):
        found = roles_at(run, value)
        entry: dict[str, Any] = {"label": label, "load": value, "roles": found}
        if found is None:
            entry["missing"] = (
                "the run recorded no device per role (an older run, or an external server)"
                if not any(p.roles for p in run.points)
                else "no role was measured at this load"
            )
        entries.append(entry)
    return {"load": load, "at": words, "runs": entries}
