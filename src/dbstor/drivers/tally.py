"""What virtual users saw, kept per user without locks and merged exactly after a point.

Latencies go into per-type histograms with 2%-wide bins, merged across users (and client
processes) like fio's. In the open loop a transaction's latency runs from its intended
start (its arrival), so time spent queued behind a slow storage shows up; its service time
(from the moment a user picked it up) is kept apart.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram, merge_all
from dbstor.drivers.client_watch import merge_memory
from dbstor.drivers.second_bins import (
    add_latency,
    from_plain,
    merge_seconds,
    p99_per_second_ms,
    to_plain,
)
from dbstor.engines.base import mask_dsn
from dbstor.hotpath import bin_ns, count

BIN_GROWTH = 1.02  # each latency bin is 2% wider than the one below
MAX_ERROR_MESSAGES = 5


# bin_ns(ns): the representative value of the 2%-wide bin holding a latency in ns
# (int(BIN_GROWTH ** floor(log(ns) / log(BIN_GROWTH))), the value itself below 1 us), from
# a table of 2,000 bins, about a day; compiled (dbstor/hotpath.c): once or twice a
# transaction


def error_line(exc: BaseException, limit: int = 200) -> str:
    """An exception as one line, passwords masked."""
    return mask_dsn(f"{type(exc).__name__}: {exc}".strip().splitlines()[0])[:limit]


@dataclass
class Tally:
    """What one user saw; plain data, so a client process can send it back pickled."""

    bins: dict[str, Counter[int]] = field(default_factory=dict)
    total_ns: Counter[str] = field(default_factory=Counter)
    max_ns: dict[str, float] = field(default_factory=dict)
    service_bins: Counter[int] = field(default_factory=Counter)
    service_total_ns: float = 0.0
    service_max_ns: float = 0.0
    rollbacks: Counter[str] = field(default_factory=Counter)
    # commits and their latency summed, per measured second: typed arrays, 16 bytes a user
    # a second (a Counter of each took about 100, 0.8 KiB a second for 8 users)
    per_second: array[int] = field(default_factory=lambda: array("q"))
    per_second_ns: array[float] = field(default_factory=lambda: array("d"))
    errors: int = 0
    retries: int = 0
    messages: list[str] = field(default_factory=list)
    # lost connections the user got back (a crash event), and every commit it was told
    # of by type, warm-up included, rollbacks by design not (none of these may be lost)
    reconnects: int = 0
    acknowledged: Counter[str] = field(default_factory=Counter)
    # latency bins per measured second, kept only when asked (points with events)
    second_bins: list[Counter[int]] | None = None

    def record(
        self,
        txn: str,
        ns: float,
        second: int,
        service_ns: float | None = None,
        rolled_back: bool = False,
    ) -> None:
        """One transaction finished in the measured window (a rollback by design counts as
        finished and is also counted apart, over the same window): its bin, sums, maximum
        and second counted by the compiled count()."""
        count(self, txn, ns, second, rolled_back)
        if self.second_bins is not None:
            add_latency(self.second_bins, second, bin_ns(ns))
        if service_ns is not None:
            self.service_bins[bin_ns(service_ns)] += 1
            self.service_total_ns += service_ns
            self.service_max_ns = max(self.service_max_ns, service_ns)

    def committer(self) -> Callable[[str, float, int], None]:
        """record(txn, ns, second) for a committed transaction without a service time, as
        one compiled call when no per-second bins are kept (no Python frame between the
        loop thread and count); a loop user's tally keeps its second_bins all along."""
        if self.second_bins is None:
            return partial(count, self)
        return self.record

    def note(self, exc: BaseException) -> None:
        text = error_line(exc)
        if text not in self.messages and len(self.messages) < MAX_ERROR_MESSAGES:
            self.messages.append(text)


@dataclass
class DriveResult:
    per_type: dict[str, LatencyHistogram]
    overall: LatencyHistogram  # closed loop: service time; open loop: from intended start
    commits: int
    measured_s: float
    per_second: list[float]
    errors: int
    retries: int
    messages: list[str]
    fatal: str | None
    rollbacks: dict[str, int] = field(default_factory=dict)
    service: LatencyHistogram | None = None  # open loop only: from pick-up to commit
    arrivals: int | None = None  # open loop: transactions due in the measured window
    backlog: int | None = None  # open loop: due but never started when the point ended
    unfinished: LatencyHistogram | None = None  # the backlog's ages at the end: lower bounds
    client_cpu_s: float | None = None  # the client's CPU over the measured window
    client_rss_per_user_bytes: float | None = None
    processes: int = 1
    per_second_ns: list[float] = field(default_factory=list)  # latency summed per second
    # the client tree's memory over the point and the host's run queue (client_watch.py)
    client_memory: dict[str, Any] | None = None
    reconnects: int = 0  # lost connections the users got back (a crash event)
    acknowledged: dict[str, int] = field(default_factory=dict)  # commits told, by type
    second_bins: list[Counter[int]] | None = None  # per measured second (points with events)

    @property
    def tps(self) -> float:
        return self.commits / self.measured_s if self.measured_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data: histograms as bins, counters as numbers (see runs/database/point.py)."""
        data: dict[str, Any] = {
            name: getattr(self, name)
            for name in (
                "commits",
                "measured_s",
                "errors",
                "retries",
                "fatal",
                "arrivals",
                "backlog",
                "client_cpu_s",
                "client_rss_per_user_bytes",
                "processes",
                "reconnects",
            )
        }
        data["acknowledged"] = dict(self.acknowledged)
        data["second_bins"] = to_plain(self.second_bins)
        data["per_type"] = {name: h.to_dict() for name, h in self.per_type.items()}
        data["overall"] = self.overall.to_dict()
        data["per_second"] = list(self.per_second)
        data["per_second_ns"] = list(self.per_second_ns)
        data["messages"] = list(self.messages)
        data["rollbacks"] = dict(self.rollbacks)
        data["client_memory"] = dict(self.client_memory) if self.client_memory else None
        for name in ("service", "unfinished"):
            histogram = getattr(self, name)
            data[name] = histogram.to_dict() if histogram is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DriveResult:
        def histogram(value: dict[str, Any] | None) -> LatencyHistogram | None:
            return None if value is None else LatencyHistogram.from_dict(value)

        return cls(
            per_type={n: LatencyHistogram.from_dict(h) for n, h in data["per_type"].items()},
            overall=LatencyHistogram.from_dict(data["overall"]),
            commits=int(data["commits"]),
            measured_s=float(data["measured_s"]),
            per_second=[float(v) for v in data["per_second"]],
            errors=int(data["errors"]),
            retries=int(data["retries"]),
            messages=list(data["messages"]),
            fatal=data["fatal"],
            rollbacks={k: int(v) for k, v in data["rollbacks"].items()},
            service=histogram(data["service"]),
            arrivals=data["arrivals"],
            backlog=data["backlog"],
            unfinished=histogram(data["unfinished"]),
            client_cpu_s=data["client_cpu_s"],
            client_rss_per_user_bytes=data["client_rss_per_user_bytes"],
            processes=int(data["processes"]),
            per_second_ns=[float(v) for v in data.get("per_second_ns", [])],
            client_memory=data.get("client_memory"),
            reconnects=int(data.get("reconnects") or 0),
            acknowledged={k: int(v) for k, v in (data.get("acknowledged") or {}).items()},
            second_bins=from_plain(data.get("second_bins")),
        )

    def per_second_mean_ms(self) -> list[float | None]:
        """The mean latency of the transactions that finished in each measured second, in
        ms (None for a second with none)."""
        return [
            ns / n / 1e6 if n else None
            for n, ns in zip(self.per_second, self.per_second_ns, strict=False)
        ]

    def per_second_p99_ms(self) -> list[float | None] | None:
        """Each measured second's p99 latency in ms (None for a second with none); None
        when the per-second bins were not kept (a point without events)."""
        return p99_per_second_ms(self.second_bins)

    @property
    def latency(self) -> LatencyHistogram:
        """Every transaction's latency; in the open loop also the arrivals still waiting at
        the end, at their age then (a lower bound), so an overloaded point cannot look fast
        by leaving its slowest transactions out."""
        return self.overall.merge(self.unfinished) if self.unfinished else self.overall


def ages_histogram(intended: Iterable[float], end: float) -> LatencyHistogram:
    """How long each waiting arrival had waited at `end`."""
    histogram = LatencyHistogram()
    for t in intended:
        ns = (end - t) * 1e9
        histogram.bins[bin_ns(ns)] += 1
        histogram.total_ns += ns
        histogram.max_ns = max(histogram.max_ns, ns)
    return histogram


def _at(values: array, second: int) -> float:
    return values[second] if second < len(values) else 0


def merge(
    tallies: Iterable[Tally], mix: Iterable[str], measured_s: float, open_loop: bool
) -> DriveResult:
    """One result from every user's tally (the fatal error and open-loop counts are added
    by the caller)."""
    tallies = list(tallies)
    per_type: dict[str, LatencyHistogram] = {}
    for txn in mix:
        per_type[txn] = merge_all(
            LatencyHistogram(
                bins=t.bins.get(txn, Counter()),
                total_ns=t.total_ns[txn],
                max_ns=t.max_ns.get(txn, 0.0),
            )
            for t in tallies
        )
    overall = merge_all(per_type.values())
    service = (
        merge_all(
            LatencyHistogram(
                bins=t.service_bins, total_ns=t.service_total_ns, max_ns=t.service_max_ns
            )
            for t in tallies
        )
        if open_loop
        else None
    )
    seconds = math.ceil(measured_s)
    per_second = [float(sum(_at(t.per_second, s) for t in tallies)) for s in range(seconds)]
    per_second_ns = [float(sum(_at(t.per_second_ns, s) for t in tallies)) for s in range(seconds)]
    messages: list[str] = []
    for t in tallies:
        messages += [m for m in t.messages if m not in messages]
    rollbacks: Counter[str] = Counter()
    acknowledged: Counter[str] = Counter()
    for t in tallies:
        rollbacks.update(t.rollbacks)
        acknowledged.update(t.acknowledged)
    return DriveResult(
        per_type=per_type,
        overall=overall,
        commits=overall.count,
        measured_s=measured_s,
        per_second=per_second,
        per_second_ns=per_second_ns,
        errors=sum(t.errors for t in tallies),
        retries=sum(t.retries for t in tallies),
        messages=messages[:MAX_ERROR_MESSAGES],
        fatal=None,
        rollbacks=dict(rollbacks),
        service=service,
        reconnects=sum(t.reconnects for t in tallies),
        acknowledged=dict(acknowledged),
        second_bins=merge_seconds(t.second_bins for t in tallies),
    )


def merge_results(results: list[DriveResult]) -> DriveResult:
    """One result from the results of users driven apart over the same window (client
    processes, instances, hosts): histograms bin by bin, counts and per-second commits
    added, CPU added, memory per user averaged, the first fatal error. Exact: merging the
    results of two groups of users equals the result of all their tallies merged."""
    per_type: dict[str, LatencyHistogram] = {}
    for name in dict.fromkeys(n for r in results for n in r.per_type):
        per_type[name] = merge_all(r.per_type[name] for r in results if name in r.per_type)
    seconds = max((len(r.per_second) for r in results), default=0)
    messages: list[str] = []
    for r in results:
        messages += [m for m in r.messages if m not in messages]
    rollbacks: Counter[str] = Counter()
    acknowledged: Counter[str] = Counter()
    for r in results:
        rollbacks.update(r.rollbacks)
        acknowledged.update(r.acknowledged)
    cpus = [r.client_cpu_s for r in results]
    per_user = [
        r.client_rss_per_user_bytes for r in results if r.client_rss_per_user_bytes is not None
    ]
    services = [r.service for r in results if r.service is not None]
    open_loop = any(r.arrivals is not None for r in results)
    unfinished = merge_all(r.unfinished for r in results if r.unfinished) if open_loop else None
    return DriveResult(
        per_type=per_type,
        overall=merge_all(r.overall for r in results),
        commits=sum(r.commits for r in results),
        measured_s=max((r.measured_s for r in results), default=0.0),
        per_second=[
            sum(r.per_second[s] for r in results if s < len(r.per_second)) for s in range(seconds)
        ],
        per_second_ns=[
            sum(r.per_second_ns[s] for r in results if s < len(r.per_second_ns))
            for s in range(seconds)
        ],
        errors=sum(r.errors for r in results),
        retries=sum(r.retries for r in results),
        messages=messages[:MAX_ERROR_MESSAGES],
        fatal=next((r.fatal for r in results if r.fatal), None),
        rollbacks=dict(rollbacks),
        service=merge_all(services) if services else None,
        arrivals=sum(r.arrivals or 0 for r in results) if open_loop else None,
        backlog=unfinished.count if unfinished is not None else None,
        unfinished=unfinished,
        client_cpu_s=None if not cpus or None in cpus else sum(c for c in cpus if c is not None),
        client_rss_per_user_bytes=sum(per_user) / len(per_user) if per_user else None,
        processes=sum(r.processes for r in results),
        client_memory=merge_memory([r.client_memory for r in results]),
        reconnects=sum(r.reconnects for r in results),
        acknowledged=dict(acknowledged),
        second_bins=merge_seconds(r.second_bins for r in results),
    )
