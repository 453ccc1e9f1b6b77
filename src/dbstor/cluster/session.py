"""The coordinator: one agent per named host, preflight, clocks, points started together.

    with ClusterSession(address, ["db1", "db2"]) as cluster:
        cluster.preflight({"fio": True, "target": "/mnt/lun1", "min_free_bytes": ...})
        cluster.prepare("io", safety, {"db1": setup, "db2": setup})
        result = cluster.measure({"db1": point, "db2": point}, duration_s=30)

A host that dies, hangs or fails mid-point ends the point as failed, naming the host; the
other hosts' load is stopped at once, and closing the session removes what every host made.
Ctrl-C stops every host the same way.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from dbstor.cluster.clock import (
    ClockOffset,
    measure_offset,
    skew_limit_s,
    start_instants,
    start_skew,
)
from dbstor.cluster.connect import connect
from dbstor.cluster.hosts import HostNode, discover, select
from dbstor.cluster.preflight import version_problem
from dbstor.errors import PointFailed, UserError
from dbstor.runs.lock import run_facts
from dbstor.testfiles import Safety

PLACE_TIMEOUT_S = 120.0  # a host's first worker process may take a while to start on a busy node
CALL_TIMEOUT_S = 60.0
BEAT_EVERY_S = 2.0
START_MARGIN_S = 0.5
LATE_GRACE_S = 30.0
STOP_TIMEOUT_S = 15.0
CLOSE_TIMEOUT_S = 30.0  # a host this late after a point's end is taken as cut off
LIVE_TIMEOUT_S = 1.0


class HostFailed(PointFailed):
    """A point failed because of one host (it died, was cut off, or its load failed)."""

    def __init__(self, host: str, message: str) -> None:
        super().__init__(f"host {host}: {message}")
        self.host = host


@dataclass
class ClusterPoint:
    outcomes: dict[str, dict]  # host -> its plain outcome
    starts: dict[str, float]  # host -> real start on the coordinator's clock
    skew_s: float
    skew_limit_s: float
    flagged: bool = field(init=False)

    def __post_init__(self) -> None:
        self.flagged = self.skew_s > self.skew_limit_s

    def start_of(self, host: str, clock_offset_s: float) -> dict[str, Any]:
        """When a host really started, how far after the first, its clock offset, and the
        niceness its load ran at."""
        return {
            "started_at": self.starts[host],
            "start_offset_ms": (self.starts[host] - min(self.starts.values())) * 1000,
            "clock_offset_ms": clock_offset_s * 1000,
            "nice": self.outcomes[host].get("nice"),
        }

    def views(self, hosts: list[dict[str, Any]]) -> dict[str, Any]:
        """The hosts' own figures with the point's start skew and whether it was flagged."""
        return {
            "hosts": hosts,
            "start_skew_ms": self.skew_s * 1000,
            "start_skew_limit_ms": self.skew_limit_s * 1000,
            "start_skew_flagged": self.flagged,
        }


class ClusterSession:
    def __init__(
        self,
        address: str,
        names: Sequence[str],
        lease_s: float = 10.0,
        late_grace_s: float = LATE_GRACE_S,
    ) -> None:
        self.address = address
        self.names = list(names)
        self.lease_s = lease_s
        self.late_grace_s = late_grace_s
        self.hosts: list[HostNode] = []
        self.agents: dict[str, Any] = {}
        self.offsets: dict[str, ClockOffset] = {}
        self.facts: dict[str, dict] = {}
        self.given_up: set[str] = set()
        self.nice = os.getpriority(os.PRIO_PROCESS, 0)  # the hosts' load runs at this too
        self.opened = False
        self._ray: Any = None
        self._beating = threading.Event()

    # -- opening -------------------------------------------------------------------------
    def __enter__(self) -> ClusterSession:
        try:
            self.open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        ray = self._ray = connect(self.address)
        from dbstor.cluster import actor

        known = discover(ray.nodes())
        self.hosts = select(known, self.names) if self.names else known
        if not self.hosts:
            raise UserError(f"the Ray cluster at {self.address} has no live hosts")
        probes = {h.name: actor.version_probe(h.node_id) for h in self.hosts}
        for name, ref in probes.items():
            remote = self._get(ref, name, "report its dbstor version", PLACE_TIMEOUT_S)
            problem = version_problem(name, remote)
            if problem:
                raise UserError(problem)
        self.agents = {
            h.name: actor.place_agent(h.name, h.node_id, self.lease_s, self.nice, run_facts())
            for h in self.hosts
        }
        self._start_beats()
        facts = {name: a.facts.remote() for name, a in self.agents.items()}
        self.facts = {
            name: self._get(ref, name, "start its agent", PLACE_TIMEOUT_S)
            for name, ref in facts.items()
        }
        self.offsets = {name: self._offset(a) for name, a in self.agents.items()}
        self.opened = True

    def _offset(self, agent: Any) -> ClockOffset:
        ray = self._ray
        return measure_offset(
            lambda: ray.get(agent.clock.remote(), timeout=CALL_TIMEOUT_S), time.time
        )

    def _get(self, ref: Any, host: str, what: str, timeout: float) -> Any:
        ray = self._ray
        try:
            return ray.get(ref, timeout=timeout)
        except ray.exceptions.RayTaskError as exc:  # the call raised on the host
            cause = exc.cause
            if isinstance(cause, UserError):
                raise UserError(f"host {host}: {cause}") from None
            if isinstance(cause, PointFailed):
                raise HostFailed(host, str(cause)) from None
            raise HostFailed(host, f"could not {what}: {_first_line(cause or exc)}") from None
        except ray.exceptions.GetTimeoutError:
            raise UserError(
                f"host {host} did not {what} within {timeout:.0f} s: check that its Ray node "
                "is up and not overloaded ('ray status')"
            ) from None
        except ray.exceptions.RayError as exc:
            if self.opened:  # the work had begun: a host lost now is a failed point
                raise HostFailed(host, f"died or was cut off ({_first_line(exc)})") from None
            raise UserError(f"host {host} could not {what}: {_first_line(exc)}") from None

    # -- heartbeats: the agents' lease -----------------------------------------------------
    def _start_beats(self) -> None:
        self._beating.set()
        agents = dict(self.agents)

        def beat() -> None:
            while self._beating.is_set():
                for agent in agents.values():
                    agent.beat.remote()
                time.sleep(BEAT_EVERY_S)

        threading.Thread(target=beat, name="dbstor-heartbeat", daemon=True).start()

    # -- before the points -----------------------------------------------------------------
    def preflight(self, spec: Mapping[str, Any], hosts: Sequence[str] = ()) -> None:
        """Every host (or these) checks itself; the first problem, named by host, stops
        everything."""
        refs = {
            name: a.preflight.remote(dict(spec))
            for name, a in self.agents.items()
            if not hosts or name in hosts
        }
        for name, ref in refs.items():
            problems = self._get(ref, name, "run its checks", CALL_TIMEOUT_S)
            if problems:
                raise UserError(f"host {name}: {problems[0]}")

    def result(self, ref: Any, host: str, what: str, timeout: float | None = None) -> Any:
        """A call's answer; a host that died or failed in it is a failed point naming it."""
        return self._get(ref, host, what, timeout)

    def clean_up(self, hosts: Sequence[str]) -> list[str]:
        """Every host's worker cleans up (bounded; hosts given up on are skipped): notes."""
        notes = []
        for host in hosts:
            if host in self.given_up:
                notes.append(f"{host}: not cleaned up from here (its guard removes its files)")
                continue
            try:
                ref = self.agents[host].cleanup.remote()
                got = self.result(ref, host, "clean up", CLOSE_TIMEOUT_S)
            except (UserError, PointFailed) as exc:  # a dead host: its guard cleaned up
                notes.append(str(exc))
                continue
            notes += [f"{host}: {n}" for n in got.get("notes", [])]
        return notes

    def prepare(self, kind: str, safety: Mapping[str, Any], setups: Mapping[str, Mapping]) -> dict:
        refs = {
            name: self.agents[name].prepare.remote(kind, dict(safety), dict(setup))
            for name, setup in setups.items()
        }
        return {name: self._get(ref, name, "prepare", None) for name, ref in refs.items()}

    # -- one point on every host, started together ------------------------------------------
    def measure(self, points: Mapping[str, Mapping[str, Any]], duration_s: float) -> ClusterPoint:
        ray = self._ray
        worst_rtt = max((o.bound_s * 2 for o in self.offsets.values()), default=0.0)
        begin = time.time() + START_MARGIN_S + 4 * worst_rtt
        instants = start_instants(begin, {n: self.offsets[n] for n in points})
        refs = {
            self.agents[name].measure.remote({**point, "start_at": instants[name]}): name
            for name, point in points.items()
        }
        deadline = time.monotonic() + START_MARGIN_S + duration_s + self.late_grace_s
        outcomes: dict[str, dict] = {}
        try:
            pending = list(refs)
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    late = ", ".join(sorted(refs[r] for r in pending))
                    raise HostFailed(late, "did not finish the point in time: cut off or hung")
                done, pending = ray.wait(pending, num_returns=1, timeout=min(left, 1.0))
                for ref in done:
                    name = refs[ref]
                    try:
                        outcome = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        raise HostFailed(
                            name, f"died or was cut off mid-point ({_first_line(exc)})"
                        ) from None
                    if outcome.get("error"):
                        raise HostFailed(name, str(outcome["error"]))
                    outcomes[name] = outcome
        except BaseException as exc:
            failed = exc.host if isinstance(exc, HostFailed) else None
            self.stop_all(f"host {failed} failed" if failed else "interrupted", skip=failed)
            if failed:  # a dead or hung host is not waited for again when closing
                self.given_up.add(failed)
            raise
        skew, starts = start_skew({n: o["started_at"] for n, o in outcomes.items()}, self.offsets)
        return ClusterPoint(outcomes, starts, skew, skew_limit_s(duration_s))

    def latest(self, hosts: Sequence[str]) -> dict[str, Any] | None:
        """The live line's figures while a point runs: the hosts' newest telemetry samples
        (those that answer within a second), device IOPS added up."""
        ray = self._ray
        live = [h for h in hosts if h in self.agents and h not in self.given_up]
        if ray is None or not live:
            return None
        refs = [self.agents[h].ask.remote("latest") for h in live]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=LIVE_TIMEOUT_S)
        samples = []
        for ref in ready:
            try:
                samples.append(ray.get(ref, timeout=0))
            except Exception:  # a host lost now fails the point, not the live line
                continue
        return summed_live(samples)

    def stop_all(self, reason: str, skip: str | None = None) -> None:
        """Stop the load on every host now (best effort, bounded)."""
        ray = self._ray
        refs = [a.stop.remote(reason) for name, a in self.agents.items() if name != skip]
        if refs:
            ray.wait(refs, num_returns=len(refs), timeout=STOP_TIMEOUT_S)

    # -- closing -----------------------------------------------------------------------------
    def close(self) -> None:
        """Clean up on every host that still answers, then end the agents."""
        ray = self._ray
        if ray is None or not self.agents:
            self._beating.clear()
            return
        refs = [a.close.remote() for n, a in self.agents.items() if n not in self.given_up]
        if refs:
            ray.wait(refs, num_returns=len(refs), timeout=CLOSE_TIMEOUT_S)
        self._beating.clear()
        for agent in self.agents.values():
            try:
                ray.kill(agent)
            except Exception:  # already gone with its node
                continue
        self.agents = {}


def summed_live(samples: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """Several hosts' newest samples as one for the live line: device read and write IOPS
    summed over the hosts that have a device view, hosts on one machine (one boot id) counted
    once, as the point's figures count one device once; None when none has."""
    machines: dict[object, Mapping[str, Any]] = {}
    for i, s in enumerate(samples):
        if s and s.get("dev_read_iops") is not None:
            machines.setdefault(s.get("boot_id") or i, s)
    views = list(machines.values())
    if not views:
        return None
    return {
        "dev_read_iops": sum(s["dev_read_iops"] or 0 for s in views),
        "dev_write_iops": sum(s.get("dev_write_iops") or 0 for s in views),
        "hosts": len(views),
    }


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class ClusterWorker:
    """What the cluster's io and database workers share: the session, the hosts they run
    on (default: every host of the session), the safety rules as a plain dict (a task
    argument), the progress line and the last point measured."""

    def __init__(
        self,
        session: ClusterSession,
        safety: Safety,
        say: Callable[[str], None],
        hosts: Sequence[str] = (),
    ):
        self.session = session
        self.hosts = list(hosts) or [h.name for h in session.hosts]
        self.safety = {f.name: getattr(safety, f.name) for f in fields(safety)}
        self.say = say
        self.last: ClusterPoint | None = None
        self.own_state()

    def plan(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Nothing decided ahead here (the io worker decides each host's test files)."""
        return {}

    def path_layout(self) -> list[dict[str, Any]]:
        """None yet: each host's paths stay on that host."""
        return []

    def running(self) -> None:
        """None: the hosts' live figures come through latest()."""
        return None

    def own_files(self) -> list[tuple[str, str]]:
        """None here: the files are on the other hosts, each removing its own."""
        return []

    def own_state(self) -> None:
        """A kind of worker's own fields, set when it is made."""
