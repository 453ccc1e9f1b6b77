"""An io run across hosts: the io worker's interface, backed by one agent per host.

`IoRun` (runs/io/run.py) drives it as it drives the io worker on this host: plan, prepare,
measure a point, clean up. Here every call goes to every named host; a point is started on
all of them at one instant and their outcomes merge exactly (runs/merge.py): IOPS summed,
percentiles from the summed fio bins, per-second IOPS summed, telemetry rows with a host
column. Each host's own figures are kept for the point's `hosts` list.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from dbstor.cluster.session import ClusterWorker
from dbstor.results.model import Load
from dbstor.runs.database.steady import SETTLE_S, hold_rounds
from dbstor.runs.io.point import IoOutcome
from dbstor.runs.io.summary import summarise_point
from dbstor.runs.merge import whole_io_outcome


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
        """The point on every host, held until the hosts' merged IOPS are steady (with
        point['max_s']): rounds of the planned window, each started on every host at one
        instant, decided here with the same test that sets the point's flag (trust.py
        `steadiness`), as cluster/database.py holds a database point. fio's own
        steadystate would end each host's fio on its own IOPS at its own time, and the
        hosts' windows would no longer be one window."""
        max_s = point.get("max_s")
        self.measuring = True
        try:
            whole, rounds, ran_s = hold_rounds(
                lambda k: self._measure_round(point if k == 0 else {**point, "warmup_s": SETTLE_S}),
                lambda o: o.iops_per_second(),
                lambda o: bool(o.fio.errors),
                float(point["duration_s"]),
                float(max_s) if max_s else None,
            )
        finally:
            self.measuring = False
        if max_s:
            whole.rounds, whole.ran_s, whole.max_s = rounds, ran_s, float(max_s)
            whole.window_warmup_s = float(point.get("warmup_s", 0)) if rounds == 1 else SETTLE_S
        return whole.to_dict()

    def _measure_round(self, point: dict[str, Any]) -> IoOutcome:
        """One window of the point on every host, started together, merged: every host's
        fio runs the same fixed window (no steadystate of its own)."""
        point = {**point, "max_s": None}
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
        result = self.session.measure(points, duration)
        outcomes = {}
        for host in self.hosts:
            outcome = IoOutcome.from_dict(result.outcomes[host])
            outcome.host = host
            outcomes[host] = outcome
        self.last, self.last_outcomes = result, outcomes
        started = min(result.starts.values())
        return whole_io_outcome(list(outcomes.values()), started)

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
