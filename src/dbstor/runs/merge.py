"""Every merge of point outcomes measured apart over the same window, in one place: the
cluster's hosts call these (cluster/io.py, cluster/database.py), and the single-host path
uses the same functions for fio's jobs, client processes and database instances.

    merge_histograms     latency bins added bin by bin (analysis.histogram.merge_all)
    merge_io_outcomes    io outcomes of several hosts: fio totals and bins, per-second IOPS
    merge_txn_outcomes   database outcomes: users' results (drivers.tally.merge_results),
                         engine counters (engines.base.sum_counters)
    merge_counters       engine counters added
    merge_samples        telemetry rows of several hosts, each row labelled with its host
    mean_cpu             the hosts' CPU figures as one: the mean over hosts
    summed_device        the hosts' devices as one: rates summed (a machine's device once),
                         await weighted by IOPS, null with whose reason when one is null
    merge_own_windows    the hosts' own processes' windows (telemetry/own.py): I/O added
                         per role and device, CPU only when every host is one machine
    whole_io_outcome     the hosts' io outcomes as one IoOutcome (all of the above)
    whole_txn_outcome    the hosts' database outcomes as one TxnOutcome

Percentiles are read from merged histograms, never averaged: the merge of the parts equals
the measurement of the whole. Each host's own CPU and device figures are also kept apart
under the point's `hosts` (host_view); the whole outcome's CPU is the hosts' mean and its
device the sum of the distinct devices, as whole_io_outcome says.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, fields
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram, merge_all
from dbstor.drivers.fio_output import merge_fio_runs
from dbstor.drivers.tally import merge_results
from dbstor.engines.base import EngineCounters, sum_counters
from dbstor.results.model import CpuStats, DeviceStats
from dbstor.runs.database.point import TxnOutcome
from dbstor.runs.io.point import IoOutcome


def merge_histograms(histograms: Iterable[LatencyHistogram]) -> LatencyHistogram:
    return merge_all(histograms)


def merge_counters(parts: Iterable[EngineCounters]) -> EngineCounters:
    return sum_counters(parts)


def merge_samples(parts: dict[str, Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every host's telemetry rows, each with a `host` column, in host order."""
    return [{**row, "host": host} for host, rows in parts.items() for row in rows]


def add_series(series: Sequence[Sequence[float]]) -> list[float]:
    """Per-second series added second by second, over the seconds every host measured (the
    hosts ran one window from one instant; a host whose fio ended just before logging its
    last second did not do nothing then: counting it as 0 would make a fall that did not
    happen, which the steadiness test would read as a drift)."""
    length = min((len(s) for s in series), default=0)
    return [float(sum(s[i] for s in series)) for i in range(length)]


def host_view(outcome: IoOutcome | TxnOutcome) -> dict[str, Any]:
    """One host's own figures, kept beside the merge."""
    return {
        "host": outcome.host,
        "started_at": outcome.started_at,
        "wall_s": outcome.wall_s,
        "cpu": asdict(outcome.cpu),
        "device": asdict(outcome.device) if outcome.device else None,
    }


def merge_io_outcomes(outcomes: Sequence[IoOutcome]) -> dict[str, Any]:
    """io outcomes of several hosts at one point: the fio totals and bins summed, per-second
    IOPS summed, each host's samples (with a host column) and own figures."""
    return {
        "fio": merge_fio_runs([o.fio for o in outcomes]),
        "read_iops_per_second": add_series([o.read_iops_per_second for o in outcomes]),
        "write_iops_per_second": add_series([o.write_iops_per_second for o in outcomes]),
        "samples": merge_samples({o.host: o.samples for o in outcomes}),
        "hosts": [host_view(o) for o in outcomes],
    }


def add_histograms(series: Sequence[list[dict[int, int]]]) -> list[dict[int, int]]:
    """The hosts' per-second latency histograms summed second by second, bin by bin (the
    hosts ran the same window), over the seconds every host logged (as add_series); []
    when a host has none (an older worker)."""
    if not series or any(not s for s in series):
        return []
    out: list[dict[int, int]] = []
    for second in range(min(len(s) for s in series)):
        bins: dict[int, int] = {}
        for host in series:
            for value, count in host[second].items():
                bins[value] = bins.get(value, 0) + count
        out.append(bins)
    return out


def merge_txn_outcomes(outcomes: Sequence[TxnOutcome]) -> dict[str, Any]:
    """Database outcomes of several hosts at one point: users' results merged exactly,
    engine counters summed, each host's samples and own figures."""
    return {
        "drive": merge_results([o.drive for o in outcomes]),
        "counters": sum_counters(o.counters for o in outcomes),
        "alive": all(o.alive for o in outcomes),
        "samples": merge_samples({o.host: o.samples for o in outcomes}),
        "hosts": [host_view(o) for o in outcomes],
    }


def whole_io_outcome(outcomes: Sequence[IoOutcome], started_at: float) -> IoOutcome:
    """The hosts' io outcomes as one: merge_io_outcomes for fio, series and samples; device
    rates summed (every host's I/O reaches the shared storage), await weighted by IOPS;
    CPU the mean over hosts. `started_at`: when the first host started."""
    merged = merge_io_outcomes(outcomes)
    first = outcomes[0]
    notes = [f"{o.host}: {n}" for o in outcomes for n in o.notes]
    return IoOutcome(
        fio=merged["fio"],
        read_iops_per_second=merged["read_iops_per_second"],
        write_iops_per_second=merged["write_iops_per_second"],
        read_hist_per_second=add_histograms([o.read_hist_per_second for o in outcomes]),
        samples=merged["samples"],
        cpu=mean_cpu([o.cpu for o in outcomes]),
        device=summed_device(
            [(o.host, o.device) for o in outcomes if o.device],
            [o.boot_id for o in outcomes if o.device],
        ),
        job_text=first.job_text,
        output_text=first.output_text,
        ioengine=first.ioengine,
        started_at=started_at,
        wall_s=max(o.wall_s for o in outcomes),
        host=",".join(o.host for o in outcomes),
        notes=notes,
    )


def whole_txn_outcome(
    outcomes: dict[str, TxnOutcome], counters_host: str | None, started_at: float
) -> TxnOutcome:
    """The hosts' database outcomes as one: users' results merged exactly, the engine
    counters of `counters_host` (the one host that read a shared server's) or else summed,
    CPU the mean, devices summed, own windows merged. `started_at`: the first host's start."""
    parts = list(outcomes.values())
    merged = merge_txn_outcomes(parts)
    return TxnOutcome(
        drive=merged["drive"],
        counters=outcomes[counters_host].counters if counters_host else merged["counters"],
        samples=merged["samples"],
        cpu=mean_cpu([o.cpu for o in parts]),
        device=summed_device(
            [(h, o.device) for h, o in outcomes.items() if o.device],
            [o.boot_id for o in parts if o.device],
        ),
        devices=host_devices(outcomes),
        own=merge_own_windows([o.own for o in parts], [o.boot_id for o in parts]),
        alive=merged["alive"],
        started_at=started_at,
        wall_s=max(o.wall_s for o in parts),
        host=",".join(outcomes),
    )


def host_devices(outcomes: dict[str, TxnOutcome]) -> dict[str, DeviceStats] | None:
    """Every host's sampled devices as host:device (the names a cluster run's roles use),
    a device of one machine seen by several of its hosts kept once, under its first host."""
    out: dict[str, DeviceStats] = {}
    seen: set[tuple[str, str]] = set()
    for host, outcome in outcomes.items():
        machine = outcome.boot_id or host
        for name, stats in (outcome.devices or {}).items():
            if (machine, name) in seen:
                continue
            seen.add((machine, name))
            out[f"{host}:{name}"] = stats
    return out or None


def merge_own_windows(
    parts: Sequence[dict[str, Any] | None], machines: Sequence[str]
) -> dict[str, Any] | None:
    """Several hosts' own windows as one: their processes' I/O added per role and device
    (each host's processes are its own, even when hosts share a machine); CPU added only
    when every host is the same machine (one set of cores), else None."""
    if not parts or any(p is None for p in parts):
        return None
    one_machine = len(set(machines)) == 1 and all(machines)
    roles: dict[str, Any] = {}
    for part in parts:
        for role, entry in part["roles"].items():  # type: ignore[index]
            into = roles.setdefault(
                role,
                {
                    "devices": {},
                    "processes": 0,
                    "cpu_ns": 0,
                    "proc_read_bytes": 0,
                    "proc_write_bytes": 0,
                },
            )
            for name, row in entry["devices"].items():
                old = into["devices"].get(name, [0, 0, 0, 0])
                into["devices"][name] = [a + b for a, b in zip(old, row, strict=True)]
            for key in ("processes", "cpu_ns", "proc_read_bytes", "proc_write_bytes"):
                value = entry.get(key)
                into[key] = None if value is None or into[key] is None else into[key] + value
    if not one_machine:
        for entry in roles.values():
            entry["cpu_ns"] = None
    first = parts[0]
    return {"source": first["source"], "writes_counted": first["writes_counted"], "roles": roles}  # type: ignore[index]


def mean_cpu(parts: Sequence[CpuStats]) -> CpuStats:
    """The hosts' CPU figures as one: each field's mean over the hosts that have it."""
    values = {}
    for f in fields(CpuStats):
        column = [getattr(p, f.name) for p in parts if getattr(p, f.name) is not None]
        values[f.name] = statistics.fmean(column) if column else None
    return CpuStats(**values)


def summed_device(
    parts: Sequence[tuple[str, DeviceStats]], machines: Sequence[str] = ()
) -> DeviceStats | None:
    """The hosts' devices as one. `machines` (each part's boot id): hosts that are the
    same machine saw the same device, which is counted once, not once per host."""
    seen: set[tuple[str, str | None]] = set()
    kept = []
    for i, (host, device) in enumerate(parts):
        machine = machines[i] if i < len(machines) and machines[i] else host
        if (machine, device.name) not in seen:
            seen.add((machine, device.name))
            kept.append((host, device))
    parts = kept
    if not parts:
        return None

    def total(name: str) -> float | None:
        column = [getattr(d, name) for _, d in parts if getattr(d, name) is not None]
        return sum(column) if column else None

    def weighted(await_name: str, iops_name: str) -> float | None:
        if any(why(await_name) for _, d in parts):
            return None  # a host's await under the counters' resolution: no mean, a reason
        pairs = [
            (getattr(d, await_name), getattr(d, iops_name) or 0.0)
            for _, d in parts
            if getattr(d, await_name) is not None
        ]
        weight = sum(w for _, w in pairs)
        return sum(a * w for a, w in pairs) / weight if pairs and weight else None

    def why(await_name: str) -> str | None:
        name = await_name.replace("_ms", "_reason")
        found = [f"{host}: {getattr(d, name)}" for host, d in parts if getattr(d, name)]
        return "; ".join(found) or None

    utils = [d.util_pct for _, d in parts if d.util_pct is not None]
    reads, writes = total("read_iops"), total("write_iops")
    read_mb, write_mb = total("read_mbps"), total("write_mbps")
    ios = (reads or 0.0) + (writes or 0.0)
    return DeviceStats(
        name=",".join(f"{host}:{d.name}" for host, d in parts),
        read_iops=total("read_iops"),
        write_iops=total("write_iops"),
        read_mbps=total("read_mbps"),
        write_mbps=total("write_mbps"),
        read_await_ms=weighted("read_await_ms", "read_iops"),
        write_await_ms=weighted("write_await_ms", "write_iops"),
        util_pct=max(utils) if utils else None,
        read_await_reason=why("read_await_ms"),
        write_await_reason=why("write_await_ms"),
        read_share=(reads or 0.0) / ios if ios else None,
        read_kib_mean=read_mb * 1e6 / 1024 / reads if reads and read_mb is not None else None,
        write_kib_mean=write_mb * 1e6 / 1024 / writes if writes and write_mb is not None else None,
        queue_depth_mean=total("queue_depth_mean"),  # the devices' queues side by side
    )
