"""Whose numbers are these: the run's own processes' I/O and CPU beside the host's.

From the own processes' counters over the measured window (telemetry/own.py: per role,
per device, CPU nanoseconds) and the host's device and CPU figures over the same window:
`own_io` (reads, writes, bytes, per device and per transaction), the share of the device's
I/O that was not the run's (`foreign_io_share`, null with a reason where it cannot be
told), and the own CPU as a share of the host's cores with what other work took.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.results.model import CpuStats, DeviceStats, Run

SHARED_DEVICE_SHARE = 0.10  # more of the device's I/O than this not the run's: shared_device
MOSTLY_FOREIGN_SHARE = 0.5  # more than this: the point cannot carry a factor (trust.py)
BUSY_HOST_PCT = 10.0  # other work took more of the host's CPU than this: flagged
MIN_DEVICE_READS = 100  # fewer device reads in the window: too few to split
_KEYS = ("reads", "writes", "read_bytes", "write_bytes")


def _sum(rows: list[list[int]]) -> dict[str, int]:
    return {k: sum(r[i] for r in rows) for i, k in enumerate(_KEYS)}


def own_io(own: dict[str, Any], device: DeviceStats | None, txns: float) -> dict[str, Any]:
    """The own processes' block I/O over the window: totals on the measured device (null
    when the target has none: tmpfs), per device, per role, per transaction."""
    roles = own["roles"]
    by_device: dict[str, list[list[int]]] = {}
    for entry in roles.values():
        for name, row in entry["devices"].items():
            by_device.setdefault(name, []).append(row)
    per_device = {name: _sum(rows) for name, rows in by_device.items()}
    cgroup = not own["source"].startswith("/proc")
    top = device.name if device else None
    if top is None:  # no block device under the target: nothing of the target's to count
        totals: dict[str, Any] = dict.fromkeys(_KEYS)
    elif cgroup:  # a cluster's device is named host:dev,host:dev (hosts' own, summed)
        names = {part.rsplit(":", 1)[-1] for part in top.split(",")}
        totals = _sum([list(per_device[n].values()) for n in names if n in per_device])
    else:  # /proc: bytes of every device together
        read = [e.get("proc_read_bytes") for e in roles.values()]
        write = [e.get("proc_write_bytes") for e in roles.values()]
        totals = {
            "reads": None,
            "writes": None,
            "read_bytes": None if None in read else sum(read),
            "write_bytes": None if None in write else sum(write),
        }

    def per_txn(value: float | None) -> float | None:
        return None if value is None or not txns else value / txns

    proc_write = [e.get("proc_write_bytes") for e in roles.values()]
    return {
        "source": own["source"],
        "writes_counted": own["writes_counted"],
        "device": top,
        **totals,
        **{f"{k}_per_txn": per_txn(totals[k]) for k in _KEYS},
        "devices": per_device,
        "roles": {
            role: _sum(list(entry["devices"].values())) if cgroup else None
            for role, entry in roles.items()
        },
        "proc_write_bytes": None if None in proc_write else sum(proc_write),
    }


def foreign_share(
    io: dict[str, Any], device: DeviceStats | None, seconds: float
) -> tuple[float | None, str | None]:
    """1 - own / device over the window's reads (operations from a cgroup, bytes from
    /proc), or None and why it cannot be told."""
    if device is None or device.read_iops is None:
        return None, "the target has no block device measured here (tmpfs, a network file system)"
    if io["reads"] is not None:
        own, whole = io["reads"], device.read_iops * seconds
    elif io["read_bytes"] is not None and device.read_mbps is not None:
        own, whole = io["read_bytes"], device.read_mbps * 1e6 * seconds
    else:
        return None, "the own processes' reads could not be read"
    if device.read_iops * seconds < MIN_DEVICE_READS:
        return None, (
            f"the device did only {device.read_iops * seconds:,.0f} reads in the window: "
            "too few to tell whose they were"
        )
    return max(0.0, min(1.0, 1.0 - own / whole)), None


def own_cpu(own: dict[str, Any], host: CpuStats, seconds: float, cores: int) -> dict[str, Any]:
    """The own processes' CPU as % of all the host's cores, server and client apart, and
    what the rest of the host's work took (host util - own)."""
    roles = own["roles"]

    def pct(role: str) -> float | None:
        entry = roles.get(role) or {}
        ns = entry.get("cpu_ns")
        if ns is None or seconds <= 0 or not cores:
            return None
        if role == "server" and not entry.get("processes"):
            return None  # an embedded engine: no server process
        return 100.0 * ns / 1e9 / (seconds * cores)

    server, client = pct("server"), pct("client")
    parts = [p for p in (server, client) if p is not None]
    total = sum(parts) if parts and client is not None else None
    other = None
    if total is not None and host.util_pct is not None:
        other = max(0.0, host.util_pct - total)
    return {
        "own_pct": total,
        "server_pct": server,
        "client_pct": client,
        "other_pct": other,
        "own_source": own["source"],
    }


def share_text(share: float) -> str:
    """'72%', and 'over 99%' for a share that rounds to 100% without being all."""
    return "over 99%" if 0.995 <= share < 1.0 else f"{share:.0%}"


def attribution_notes(
    share: float | None,
    cpu: dict[str, Any],
    device: DeviceStats | None,
    basis: str = "the reads",
) -> list[str]:
    """Trust notes: a shared device, a busy host."""
    notes = []
    if share is not None and share > SHARED_DEVICE_SHARE:
        notes.append(
            f"shared device: {share_text(share)} of {basis} on {device.name if device else 'the device'} "
            "in the window were not the run's but other processes'; the run's own are in own_io"
        )
    other = cpu.get("other_pct")
    if other is not None and other > BUSY_HOST_PCT:
        notes.append(
            f"busy host: other work took {other:.0f}% of the host's CPU beside the run's own "
            f"{cpu['own_pct']:.0f}%"
        )
    return notes


def fio_attribution(
    read_mbps: float, write_mbps: float, read_iops: float, write_iops: float,
    device: DeviceStats | None, seconds: float,
) -> tuple[dict[str, Any], float | None, str | None]:  # fmt: skip
    """fio's own I/O is known exactly from its output; what the device moved beyond it in
    the same window was other processes' (by bytes: the block layer splits and merges
    requests, so operation counts differ even when every byte is fio's)."""
    own = {
        "source": "fio's output",
        "writes_counted": "every write fio completed",
        "device": device.name if device else None,
        "reads": round(read_iops * seconds),
        "writes": round(write_iops * seconds),
        "read_bytes": round(read_mbps * 1e6 * seconds),
        "write_bytes": round(write_mbps * 1e6 * seconds),
        "basis": "bytes read and written",
    }
    if device is None or device.read_mbps is None or device.write_mbps is None:
        return (
            own,
            None,
            "the target has no block device measured here (tmpfs, a network file system)",
        )
    whole = (device.read_mbps + device.write_mbps) * 1e6 * seconds
    if whole < MIN_DEVICE_READS * 4096:
        return own, None, "the device moved too few bytes in the window to tell whose they were"
    share = 1.0 - (own["read_bytes"] + own["write_bytes"]) / whole
    return own, max(0.0, min(1.0, share)), None


def server_cpu(cpu: CpuStats | None) -> tuple[float | None, str]:
    """The database's own CPU, % of the host's cores, and whose it is: a managed server's
    processes (cpu.server_pct); an embedded engine's, which runs in the client processes
    (cpu.own_pct); the whole host's (cpu.util_pct) where the own processes were not counted
    (fio points, runs from before dbstor counted them, an external server)."""
    if cpu is None:
        return None, "not measured"
    if cpu.server_pct is not None:
        return cpu.server_pct, "the database server's own processes"
    if cpu.own_pct is not None:
        return cpu.own_pct, "the engine's own (client) processes"
    return cpu.util_pct, "the whole host" if cpu.util_pct is not None else "not measured"


def cpu_from(runs: Sequence[Run]) -> str:
    """Whose CPU a comparison's CPU figures are."""
    kinds = {server_cpu(p.cpu)[1] for r in runs for p in r.points if p.ok and p.cpu}
    return " and ".join(sorted(kinds - {"not measured"})) or "not measured"
