"""Snapshot space and savings from a schedule, a retention and an overwrite rate.

The model, per volume role (data, log, ...):
- copies kept: N = floor(retention / interval), or N as given (--copies);
- each snapshot holds the blocks overwritten during its interval: f = min(1, rate x interval)
  of the volume (distinct blocks assumed, so this is the most space snapshots can take);
- snapshot space = N x f x E, where E is the space the volume takes on the array after
  compression and dedup (snapshots keep blocks as they are stored);
- full copies would take N x E on the same array; the savings are the difference, and the
  ratio against full copies is 1 / f.

Totals: the logical data presented (the volume plus N point-in-time copies, N x L more)
over the physical space (E plus snapshot space) = total_ratio_with_snapshots.

The seed reports count differently: TR-4403 counts each of its 16 Snapshot copies as saving
a whole copy of the 7.3 TB compressed data (16 x 7.3 = 117 TB), divides by the 11.2 TB of
logical data (10:1) and adds the logical data back over the compressed size
((11.2 + 117) / 7.3 = 17:1). `seed_style` reproduces that arithmetic from the same inputs,
with and without subtracting the space the snapshots themselves take.
"""

from __future__ import annotations

import math
import re
from typing import Any

from dbstor.units import parse_duration

_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*%\s*/\s*([a-z]+)\s*$", re.IGNORECASE)
_PER = {
    "s": 1 / 3600,
    "sec": 1 / 3600,
    "m": 1 / 60,
    "min": 1 / 60,
    "h": 1.0,
    "hr": 1.0,
    "d": 24.0,
    "day": 24.0,
}


def _mapping(text: str, what: str, example: str) -> dict[str, str]:
    """'data=2h,log=15m' -> {'data': '2h', 'log': '15m'}; 'x' alone -> {'*': 'x'}."""
    out: dict[str, str] = {}
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise ValueError(f"empty {what}; e.g. {example}")
    for part in parts:
        role, sep, value = part.partition("=")
        if not sep:
            if len(parts) > 1:
                raise ValueError(f"{text!r}: give ROLE=VALUE pairs, e.g. {example}")
            return {"*": part.strip()}
        role = role.strip().lower()
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", role) or not value.strip():
            raise ValueError(f"{text!r}: bad entry {part!r}; e.g. {example}")
        if role in out:
            raise ValueError(f"{text!r}: {role} is given twice; give each role once")
        out[role] = value.strip()
    return out


def parse_schedule(text: str) -> dict[str, float]:
    """'data=2h,log=15m' -> {'data': 7200.0, 'log': 900.0} (seconds between snapshots)."""
    out = {}
    for role, value in _mapping(text, "snapshot schedule", "data=2h,log=15m").items():
        if role == "*":
            role = "data"
        seconds = parse_duration(value)
        if seconds <= 0:
            raise ValueError(f"{text!r}: the interval for {role} must be more than 0")
        out[role] = seconds
    return out


def parse_rate(text: str) -> float:
    """'5%/h' -> 0.05 (fraction of the volume overwritten per hour)."""
    match = _RATE.match(text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _PER:
        raise ValueError(
            f"{text!r} is not an overwrite rate; use a percentage per time, e.g. 5%/h or 20%/d"
        )
    return float(match.group(1)) / 100.0 / _PER[unit]


def parse_per_role(text: str, parse: Any, what: str, example: str) -> dict[str, Any]:
    """A single value ('24h') or per-role values ('data=24h,log=48h'); '*' holds the default."""
    return {role: parse(value) for role, value in _mapping(text, what, example).items()}


MAX_COPIES = 100_000


def parse_copies(text: str) -> int:
    """'16' -> 16: snapshot copies kept, a whole number from 1 to MAX_COPIES."""
    value = text.strip()
    if not value.isdigit() or not 1 <= int(value) <= MAX_COPIES:
        raise ValueError(
            f"{text!r} is not a number of copies; give a whole number from 1 to {MAX_COPIES:,}"
        )
    return int(value)


def model(
    volumes: dict[str, tuple[float, float]],
    schedule: dict[str, float],
    retention: dict[str, float],
    change_rate: dict[str, float],
    copies: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Snapshot figures per role and in total.

    volumes: role -> (logical bytes, bytes stored on the array after compression/dedup).
    schedule: role -> seconds between snapshots; retention: role or '*' -> seconds kept;
    change_rate: role or '*' -> fraction of the volume overwritten per hour; copies: role
    or '*' -> copies kept, given directly (instead of retention / interval).
    """
    copies = copies or {}
    roles = []
    logical_presented = physical = full_copies = snap_space = 0.0
    seed_savings = seed_savings_gross = logical_total = effective_total = 0.0
    notes = []
    for role, interval in schedule.items():
        given = copies.get(role, copies.get("*"))
        keep = retention.get(role, retention.get("*"))
        rate = change_rate.get(role, change_rate.get("*"))
        if (keep is None and given is None) or rate is None:
            raise ValueError(f"no retention (or copies) or change rate for {role!r}")
        logical, effective = volumes.get(role, (0.0, 0.0))
        hours = interval / 3600.0
        n = given if given is not None else math.floor(keep / interval + 1e-9)
        if given is not None:
            keep = n * interval
        f = min(1.0, rate * hours)
        space = n * f * effective
        full = n * effective
        if logical == 0:
            notes.append(f"no files of role {role!r} were scanned; its snapshots count as 0 bytes")
        roles.append(
            {
                "role": role,
                "interval_s": interval,
                "retention_s": keep,
                "copies": n,
                "copies_given": given is not None,
                "change_rate_per_h": rate,
                "changed_per_snapshot_pct": round(f * 100, 3),
                "logical_bytes": round(logical),
                "stored_bytes": round(effective),
                "snapshot_bytes": round(space),
                "full_copies_bytes": round(full),
                "savings_bytes": round(full - space),
                "savings_vs_full_copies": round(1 / f, 3) if f > 0 else None,
            }
        )
        logical_presented += logical * (1 + n)
        physical += effective + space
        full_copies += full
        snap_space += space
        seed_savings += n * (1 - f) * effective
        seed_savings_gross += n * effective
        logical_total += logical
        effective_total += effective
    vs_full = full_copies / snap_space if snap_space else None
    total = logical_presented / physical if physical else None

    def seed(savings: float) -> dict[str, float | None]:
        if not logical_total or not effective_total:
            return {"snapshot_ratio": None, "total_ratio": None, "savings_bytes": round(savings)}
        return {
            "savings_bytes": round(savings),
            "snapshot_ratio": round(savings / logical_total, 2),
            "total_ratio": round((logical_total + savings) / effective_total, 2),
        }

    return {
        "roles": roles,
        "snapshot_bytes": round(snap_space),
        "full_copies_bytes": round(full_copies),
        "savings_bytes": round(full_copies - snap_space),
        "savings_vs_full_copies": round(vs_full, 3) if vs_full else None,
        "logical_presented_bytes": round(logical_presented),
        "physical_bytes": round(physical),
        "total_ratio_with_snapshots": round(total, 3) if total else None,
        "seed_style": {
            "net_of_snapshot_space": seed(seed_savings),
            "as_tr4403": seed(seed_savings_gross),
        },
        "assumptions": [
            "each snapshot keeps the blocks overwritten during its interval: rate x interval of "
            "the volume, distinct blocks (an upper bound on snapshot space)",
            "copies kept = retention / interval unless given (--copies); snapshots store "
            "blocks as compressed and deduplicated",
            "a full copy would take the same space on the array as the volume does",
        ],
        "notes": notes,
    }
