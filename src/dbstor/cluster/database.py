"""A database run across hosts: the database worker's interface, one agent per host.

Instances spread over the hosts in order (TR-4403: instance 1 on the first host, instance 2
on the second, ...; with more instances than hosts, round again). A point with N instances
drives the first N, each on its own host, all started at one instant; the hosts' outcomes
merge exactly (runs/merge.py): the users' results (per-transaction-type histograms,
commits, errors, per-second commits) across hosts, engine counters summed, samples with a
host column. Each host's own figures are kept for the point's `hosts` list.

Client hosts driving one external server (`--clients`, ClusterClientsWorker): the first
client host creates and loads the database once; the others only connect to it. A point's
users are spread over the client hosts as evenly as possible, in order (each host numbers
its users on from the previous host's, so no two users share a random stream); open-loop
rates split in proportion to the users; the server's counters are read on the first client
host alone (they are the one server's, and would be counted twice if summed).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from dbstor.cluster.session import ClusterWorker
from dbstor.errors import UserError
from dbstor.results.model import Load
from dbstor.runs.database.point import TxnOutcome
from dbstor.runs.database.steady import ROUND_SEED_STEP, SETTLE_S, hold_rounds
from dbstor.runs.database.summary import database_point
from dbstor.runs.merge import whole_txn_outcome
from dbstor.telemetry.roles import sampled_devices


def instances_on(hosts: list[str], count: int) -> dict[str, int]:
    """How many of the first `count` instances each host holds (in order, round robin)."""
    taking_part: dict[str, int] = {}
    for n in range(count):
        host = hosts[n % len(hosts)]
        taking_part[host] = taking_part.get(host, 0) + 1
    return taking_part


class ClusterDatabaseWorker(ClusterWorker):
    kind = "database"

    def own_state(self) -> None:
        self.instances: list[str] = []  # the host of each prepared instance, in order
        self.devices: dict[str, list[str]] = {}  # each host's own devices under the target
        self.role_devices: dict[str, list[str]] = {}  # role -> host:device on every host
        self.last_outcomes: dict[str, TxnOutcome] = {}
        self.measuring: list[str] = []  # the hosts of the point being measured

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Create and load the next instance on the next host."""
        host = self.hosts[len(self.instances) % len(self.hosts)]
        self.say(f"  instance {int(setup['instance']) + 1} on host {host}")
        facts = self._prepare_on(host, setup)
        self.instances.append(host)
        return facts

    def _prepare_on(self, host: str, setup: dict[str, Any]) -> dict[str, Any]:
        agent = self.session.agents[host]
        if setup.get("dsn"):  # a DSN may hold a password: never a task argument
            from dbstor.cluster.actor import SECRETS_KEY, seal

            setup = {**setup, "dsn": None, SECRETS_KEY: seal({"dsn": str(setup["dsn"])})}
        facts = self.session.result(
            agent.prepare.remote("database", self.safety, setup), host, "prepare"
        )
        own = {str(r): list(ds) for r, ds in (facts.get("role_devices") or {}).items()}
        # each host samples its data device and every role's device (telemetry/roles.py)
        self.devices.setdefault(host, sampled_devices(list(facts.get("devices") or []), own))
        for role, devices in own.items():
            named = self.role_devices.setdefault(role, [])
            named += [f"{host}:{d}" for d in devices if f"{host}:{d}" not in named]
        # the run's header names each host's device as host:device, as an io run does
        return {
            **facts,
            "devices": [f"{host}:{d}" for d in facts.get("devices") or []],
            "role_devices": {r: list(ds) for r, ds in self.role_devices.items()},
        }

    def split(self, point: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Each taking-part host's own point: its instances and its share of the rate."""
        taking_part = instances_on(self.hosts, int(point["instances"]))
        points = {  # each host samples its own device, resolved there at prepare
            host: {**point, "instances": n, "devices": self.devices.get(host, [])}
            for host, n in taking_part.items()
        }
        if point.get("rate"):  # open loop: split in proportion to the instances
            for host, n in taking_part.items():
                points[host]["rate"] = float(point["rate"]) * n / int(point["instances"])
        return points

    def counters_host(self) -> str | None:
        """The host whose engine counters stand for the point (None: sum every host's)."""
        return None

    def measure(self, point: dict[str, Any]) -> dict[str, Any]:
        """The point on every taking-part host, held until the merged throughput is steady
        (rounds decided here, on the hosts' transactions together, as runs/database/steady.py
        decides them on one host: every host measures the same windows)."""
        max_s = point.get("max_s")

        def measure(k: int) -> TxnOutcome:
            seed = int(point.get("seed", 1)) + k * ROUND_SEED_STEP
            return self._measure_round(
                point if k == 0 else {**point, "warmup_s": SETTLE_S, "seed": seed}
            )

        whole, rounds, ran_s = hold_rounds(
            measure,
            lambda o: o.drive.per_second,
            lambda o: o.drive.fatal,
            float(point["duration_s"]),
            float(max_s) if max_s else None,
        )
        if max_s:
            whole.rounds, whole.ran_s, whole.max_s = rounds, ran_s, float(max_s)
            whole.window_warmup_s = float(point.get("warmup_s", 0)) if rounds == 1 else SETTLE_S
        return whole.to_dict()

    def _measure_round(self, point: dict[str, Any]) -> TxnOutcome:
        """One window on every taking-part host, merged."""
        points = self.split({**point, "max_s": None})
        duration = float(point["duration_s"]) + float(point.get("warmup_s", 0))
        self.measuring = list(points)
        try:
            result = self.session.measure(points, duration)
        finally:
            self.measuring = []
        outcomes = {}
        for host in points:
            outcome = TxnOutcome.from_dict(result.outcomes[host])
            outcome.host = host
            outcomes[host] = outcome
        self.last, self.last_outcomes = result, outcomes
        started = min(result.starts.values())
        return whole_txn_outcome(outcomes, self.counters_host(), started)

    def latest(self) -> dict[str, Any] | None:
        """The live line: device IOPS of the hosts in the point being measured, summed."""
        return self.session.latest(self.measuring) if self.measuring else None

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


def users_on(hosts: list[str], users: int) -> dict[str, tuple[int, int]]:
    """Users spread over client hosts as evenly as possible, in order: host -> (first user's
    number, users there); hosts left without a user (fewer users than hosts) take no part."""
    share, extra = divmod(users, len(hosts))
    spread: dict[str, tuple[int, int]] = {}
    first = 0
    for n, host in enumerate(hosts):
        count = share + (1 if n < extra else 0)
        if count:
            spread[host] = (first, count)
        first += count
    return spread


class ClusterClientsWorker(ClusterDatabaseWorker):
    """Client hosts driving one external server: loaded once, users spread over the hosts."""

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        if self.instances:
            raise UserError("--clients drives one external server: give --users or --rate")
        lead, *others = self.hosts
        self.say(f"  loading on the server from client host {lead}")
        facts = self._prepare_on(lead, setup)
        for host in others:  # the database is there: the other hosts only connect
            self._prepare_on(host, {**setup, "attach": True})
        self.instances = list(self.hosts)
        return facts

    def split(self, point: dict[str, Any]) -> dict[str, dict[str, Any]]:
        users = int(point["users"])
        points = {}
        for host, (first, count) in users_on(self.hosts, users).items():
            own = {**point, "users": count, "first_user": first}
            own["read_counters"] = host == self.hosts[0]
            if point.get("rate"):  # open loop: split in proportion to the users
                own["rate"] = float(point["rate"]) * count / users
            points[host] = own
        return points

    def counters_host(self) -> str | None:
        return self.hosts[0]
