"""A database run across hosts: the database worker's interface, one agent per host.

Instances spread over the hosts in order (TR-4403: instance 1 on the first host, instance 2
on the second, ...; with more instances than hosts, round again). A point with N instances
drives the first N, each on its own host, all started at one instant; the hosts' outcomes
merge exactly (runs/merge.py): the users' results (per-transaction-type histograms,
commits, errors, per-second commits) across hosts, engine counters summed, samples with a
host column. Each host's own figures are kept for the point's `hosts` list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, fields
from typing import Any

from dbstor.cluster.io import mean_cpu, summed_device
from dbstor.cluster.session import ClusterPoint, ClusterSession
from dbstor.results.model import Load
from dbstor.runs.database.point import TxnOutcome
from dbstor.runs.database.summary import database_point
from dbstor.runs.merge import merge_txn_outcomes
from dbstor.testfiles import Safety


def instances_on(hosts: list[str], count: int) -> dict[str, int]:
    """How many of the first `count` instances each host holds (in order, round robin)."""
    taking_part: dict[str, int] = {}
    for n in range(count):
        host = hosts[n % len(hosts)]
        taking_part[host] = taking_part.get(host, 0) + 1
    return taking_part


class ClusterDatabaseWorker:
    kind = "database"

    def __init__(self, session: ClusterSession, safety: Safety, say: Callable[[str], None]):
        self.session = session
        self.hosts = [h.name for h in session.hosts]
        self.safety = {f.name: getattr(safety, f.name) for f in fields(safety)}
        self.say = say
        self.instances: list[str] = []  # the host of each prepared instance, in order
        self.devices: dict[str, list[str]] = {}  # each host's own devices under the target
        self.last: ClusterPoint | None = None
        self.last_outcomes: dict[str, TxnOutcome] = {}

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Create and load the next instance on the next host."""
        host = self.hosts[len(self.instances) % len(self.hosts)]
        self.say(f"  instance {int(setup['instance']) + 1} on host {host}")
        agent = self.session.agents[host]
        if setup.get("dsn"):  # a DSN may hold a password: never a task argument
            from dbstor.cluster.actor import SECRETS_KEY, seal

            setup = {**setup, "dsn": None, SECRETS_KEY: seal({"dsn": str(setup["dsn"])})}
        facts = self.session.result(
            agent.prepare.remote("database", self.safety, setup), host, "prepare"
        )
        self.instances.append(host)
        self.devices.setdefault(host, list(facts.get("devices") or []))
        return facts

    def measure(self, point: dict[str, Any]) -> dict[str, Any]:
        taking_part = instances_on(self.hosts, int(point["instances"]))
        points = {  # each host samples its own device, resolved there at prepare
            host: {**point, "instances": n, "devices": self.devices.get(host, [])}
            for host, n in taking_part.items()
        }
        if point.get("rate"):  # open loop: split in proportion to the instances
            for host, n in taking_part.items():
                points[host]["rate"] = float(point["rate"]) * n / int(point["instances"])
        duration = float(point["duration_s"]) + float(point.get("warmup_s", 0))
        result = self.session.measure(points, duration)
        outcomes = {}
        for host in taking_part:
            outcome = TxnOutcome.from_dict(result.outcomes[host])
            outcome.host = host
            outcomes[host] = outcome
        self.last, self.last_outcomes = result, outcomes
        merged = merge_txn_outcomes(list(outcomes.values()))
        whole = TxnOutcome(
            drive=merged["drive"],
            counters=merged["counters"],
            samples=merged["samples"],
            cpu=mean_cpu([o.cpu for o in outcomes.values()]),
            device=summed_device([(h, o.device) for h, o in outcomes.items() if o.device]),
            alive=merged["alive"],
            started_at=min(result.starts.values()),
            wall_s=max(o.wall_s for o in outcomes.values()),
            host=",".join(outcomes),
        )
        return whole.to_dict()

    def latest(self) -> dict[str, Any] | None:
        return None

    def objects(self) -> list[dict[str, Any]]:
        """Per-object I/O of the first instance (on the first host)."""
        if not self.instances:
            return []
        host = self.instances[0]
        return (
            self.session.result(self.session.agents[host].ask.remote("objects"), host, "report I/O")
            or []
        )

    def cleanup(self) -> dict[str, Any]:
        return {"notes": self.session.clean_up(list(dict.fromkeys(self.instances)))}

    def host_views(self, load: Load, duration_s: float, warmup_s: float) -> dict[str, Any]:
        assert self.last is not None
        hosts = []
        for host, outcome in self.last_outcomes.items():
            alone = database_point(load, outcome, duration_s, warmup_s, None)
            hosts.append(
                {
                    "host": host,
                    "tps": alone.tps,
                    "txn_lat_ms": asdict(alone.txn_lat_ms) if alone.txn_lat_ms else None,
                    "read_iops": alone.read_iops,
                    "write_iops": alone.write_iops,
                    "device": asdict(alone.device) if alone.device else None,
                    "cpu": asdict(alone.cpu) if alone.cpu else None,
                    "errors": alone.errors,
                    **self.last.start_of(host, self.session.offsets[host].offset_s),
                }
            )
        return self.last.views(hosts)
