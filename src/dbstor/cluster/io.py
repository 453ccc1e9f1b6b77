"""An io run across hosts: the io worker's interface, backed by one agent per host.

`IoRun` (runs/io/run.py) drives it as it drives the io worker on this host: plan, prepare,
measure a point, clean up. Here every call goes to every named host; a point is started on
all of them at one instant and their outcomes merge exactly (runs/merge.py): IOPS summed,
percentiles from the summed fio bins, per-second IOPS summed, telemetry rows with a host
column. Each host's own figures are kept for the point's `hosts` list.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, fields
from typing import Any

from dbstor.cluster.session import ClusterPoint, ClusterWorker
from dbstor.results.model import CpuStats, DeviceStats, Load
from dbstor.runs.io.point import IoOutcome
from dbstor.runs.io.summary import summarise_point
from dbstor.runs.merge import merge_io_outcomes


class ClusterIoWorker(ClusterWorker):
    kind = "io"

    def own_state(self) -> None:
        self.facts: dict[str, dict] = {}
        self.last_outcomes: dict[str, IoOutcome] = {}
        self.measuring = False  # a point is being measured (the live line asks the hosts)

    def plan(self, setup: dict[str, Any]) -> dict[str, Any]:
        setup = {**setup, "host_folders": True}
        refs = {h: self.session.agents[h].plan.remote("io", self.safety, setup) for h in self.hosts}
        self.facts = {
            h: self.session.result(ref, h, "plan its test files") for h, ref in refs.items()
        }
        return self._merged_facts()

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        setup = {**setup, "host_folders": True}
        facts = self.session.prepare("io", self.safety, {h: setup for h in self.hosts})
        self.facts = facts
        merged = self._merged_facts()
        merged["jobs"] = facts[self.hosts[0]].get("jobs", {})  # one host's layout job, as kept
        return merged

    def _merged_facts(self) -> dict[str, Any]:
        first = self.facts[self.hosts[0]]
        notes: list[str] = []
        for host in self.hosts:
            notes += [f"{host}: {n}" for n in self.facts[host].get("notes", []) if n not in notes]
        return {
            **first,
            "devices": [f"{h}:{d}" for h in self.hosts for d in self.facts[h].get("devices", [])],
            "direct": all(self.facts[h].get("direct", True) for h in self.hosts),
            "notes": notes,
        }

    def measure(self, point: dict[str, Any]) -> dict[str, Any]:
        point = {**point, "max_s": None}  # every host's fio runs the same window, not held
        rate = point.get("rate_iops")
        points = {}
        for host in self.hosts:
            own = dict(point)
            own["files"] = self.facts[host]["files"]
            own["devices"] = self.facts[host].get("devices", [])
            if rate:
                own["rate_iops"] = rate / len(self.hosts)  # open loop: split in proportion
            points[host] = own
        duration = float(point["duration_s"]) + float(point.get("warmup_s", 0))
        self.measuring = True
        try:
            result = self.session.measure(points, duration)
        finally:
            self.measuring = False
        outcomes = {}
        for host in self.hosts:
            outcome = IoOutcome.from_dict(result.outcomes[host])
            outcome.host = host
            outcomes[host] = outcome
        self.last, self.last_outcomes = result, outcomes
        return whole_outcome(list(outcomes.values()), result).to_dict()

    def latest(self) -> dict[str, Any] | None:
        """The live line: every host's device IOPS, summed (None between points)."""
        return self.session.latest(self.hosts) if self.measuring else None

    def cleanup(self) -> dict[str, Any]:
        return {"notes": self.session.clean_up(list(self.hosts))}

    def host_views(self, load: Load, duration_s: float, warmup_s: float) -> dict[str, Any]:
        """The last point's per-host figures and start skew, for the point in results.json."""
        assert self.last is not None
        hosts = []
        for host, outcome in self.last_outcomes.items():
            alone = summarise_point(load, [outcome], duration_s, warmup_s)
            hosts.append(
                {
                    "host": host,
                    "iops": alone.iops,
                    "read_iops": alone.read_iops,
                    "write_iops": alone.write_iops,
                    "read_mbps": alone.read_mbps,
                    "write_mbps": alone.write_mbps,
                    "read_lat_ms": asdict(alone.read_lat_ms) if alone.read_lat_ms else None,
                    "write_lat_ms": asdict(alone.write_lat_ms) if alone.write_lat_ms else None,
                    "device": asdict(alone.device) if alone.device else None,
                    "cpu": asdict(alone.cpu) if alone.cpu else None,
                    **self.last.start_of(host, self.session.offsets[host].offset_s),
                }
            )
        return self.last.views(hosts)


def whole_outcome(outcomes: Sequence[IoOutcome], result: ClusterPoint) -> IoOutcome:
    """The hosts' outcomes as one: merge_io_outcomes for fio, series and samples; device
    rates summed (every host's I/O reaches the shared storage), await weighted by IOPS;
    CPU the mean over hosts."""
    merged = merge_io_outcomes(outcomes)
    first = outcomes[0]
    notes = [f"{o.host}: {n}" for o in outcomes for n in o.notes]
    return IoOutcome(
        fio=merged["fio"],
        read_iops_per_second=merged["read_iops_per_second"],
        write_iops_per_second=merged["write_iops_per_second"],
        samples=merged["samples"],
        cpu=mean_cpu([o.cpu for o in outcomes]),
        device=summed_device(
            [(o.host, o.device) for o in outcomes if o.device],
            [o.boot_id for o in outcomes if o.device],
        ),
        job_text=first.job_text,
        output_text=first.output_text,
        ioengine=first.ioengine,
        started_at=min(result.starts.values()),
        wall_s=max(o.wall_s for o in outcomes),
        host=",".join(o.host for o in outcomes),
        notes=notes,
    )


def mean_cpu(parts: Sequence[CpuStats]) -> CpuStats:
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
