"""What a run says, in words shared by the HTML report and the terminal summary.

The peak comes from the run and the knee from analysis/curve.py on the run's points (so a
re-render of an older folder states the knee as the analysis defines it today); this
module reads them and phrases them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from dbstor.analysis.curve import curve_points, find_knee
from dbstor.analysis.layers import device_points
from dbstor.analysis.trust import reads_from_memory
from dbstor.report.kit.fmt import fmt_bytes, fmt_iops, fmt_limit_ms, fmt_ms, fmt_share, load_text
from dbstor.results.model import Point, Run
from dbstor.units import parse_size

_METRIC = re.compile(r"^(read|write|txn)_lat_(mean|p50|p95|p99|p999|max)_ms$")
_STAT_NAMES = {"mean": "mean", "p50": "p50", "p95": "p95", "p99": "p99", "p999": "p99.9"}
_SIDE_NAMES = {"read": "read", "write": "write", "txn": "transaction"}

FLAG_LEGEND = {
    "failed": "the point did not finish; its error is shown instead of numbers",
    "interrupted": "dbstor stood still during the point (stopped, a VM pause): no figures shown",
    "search": "a point of auto mode's search for the peak: listed, but not on the curve",
    "saturated": (
        "throughput stopped rising with load: under fio the device was 100% busy or its queue "
        "full; under a database the CPU was, the server's, the client's or other work's (the "
        "note below the table says whose, with the figures)"
    ),
    "not steady": (
        "throughput (IOPS, or transactions per second) was still drifting at the end of the "
        "point: numbers are approximate"
    ),
    "noisy": "repeats of this point differ by more than 10%",
    "few ops for p99": "too few operations for a trustworthy p99",
    "few ops for p99.9": "too few operations for a trustworthy p99.9",
    "from memory": (
        "the database's reads came from memory: fewer than 0.05 device reads per transaction, "
        "or fewer than 0.05 physical reads per transaction by the engine (a cache hit ratio "
        "above 99% when it does not count them); the transaction rate is the host's, not the "
        "storage's"
    ),
    "shared device": (
        "more than 10% of the device's I/O in the measured window was other processes', not "
        "the run's own (counted in dbstor's cgroup, or fio's output); the point's notes say how much"
    ),
    "busy host": "other work took more than 10% of the host's CPU beside the run's own processes",
}


def is_database(run: Run) -> bool:
    """A run of a real database engine (anything but fio): its read and write latencies
    are the device's await, its throughput is transactions."""
    return str((run.engine or {}).get("name") or "fio") != "fio"


@dataclass
class Slo:
    """The run's latency limit: which metric, how many ms, and how to name it."""

    metric: str
    limit_ms: float | None
    device: bool = False  # a database run: its read and write latencies are device awaits

    @property
    def name(self) -> str:
        """'p99 read' for read_lat_p99_ms; 'mean device read' for a database run's."""
        match = _METRIC.match(self.metric)
        if not match:
            return self.metric
        side, stat = match.groups()
        where = "device " if self.device and side != "txn" else ""
        return f"{_STAT_NAMES.get(stat, stat)} {where}{_SIDE_NAMES[side]}"

    @property
    def text(self) -> str:
        """'SLO 1 ms p99 read'."""
        return f"SLO {fmt_limit_ms(self.limit_ms)} {self.name}"

    def value(self, point: Point) -> float | None:
        """The point's value of the SLO metric, or None when not measured."""
        return metric_value(point, self.metric)


def slo_of(run: Run) -> Slo:
    """The run's SLO, defaulting to p99 read latency when the run names no metric."""
    slo = run.slo or {}
    limit = slo.get("limit_ms")
    return Slo(
        str(slo.get("metric") or "read_lat_p99_ms"),
        float(limit) if limit else None,
        device=is_database(run),
    )


def metric_value(point: Point, metric: str) -> float | None:
    """Value of a metric such as 'read_lat_p99_ms' on a point; None when absent or failed."""
    match = _METRIC.match(metric)
    if not match or not point.ok:
        return None
    side, stat = match.groups()
    stats = getattr(point, f"{side}_lat_ms")
    return None if stats is None else getattr(stats, stat)


def main_points(run: Run) -> list[Point]:
    """The points of the main series (not auto mode's search for the peak), by load."""
    return sorted(
        (p for p in run.points if getattr(p, "series", "main") == "main"),
        key=lambda p: p.load.value,
    )


def table_points(run: Run) -> list[Point]:
    """Every point: the main series by load, then any search points by load."""
    search = [p for p in run.points if getattr(p, "series", "main") != "main"]
    return main_points(run) + sorted(search, key=lambda p: p.load.value)


def ok_points(run: Run) -> list[Point]:
    """Main-series points that finished, in load order: the curve."""
    return [p for p in main_points(run) if p.ok]


def load_kind(run: Run) -> str | None:
    """The kind of load the run's main points step through."""
    points = main_points(run)
    return points[0].load.kind if points else None


def _load_of(value: Any, default_kind: str | None) -> tuple[str | None, float | None, int]:
    if isinstance(value, dict):
        return value.get("kind", default_kind), value.get("value"), int(value.get("jobs") or 1)
    if isinstance(value, int | float):
        return default_kind, float(value), 1
    return default_kind, None, 1


def _point_at(run: Run, value: float | None) -> Point | None:
    for point in ok_points(run):
        if value is not None and abs(point.load.value - value) < 1e-9:
            return point
    return None


@dataclass
class Knee:
    """The knee as the report shows it.

    state: 'found' (interpolated or at a point), 'beyond' (every point within the SLO),
    'none' (no point within the SLO) or 'unknown' (the SLO metric was not measured).
    """

    state: str
    iops: float | None = None
    load_kind: str | None = None
    load_value: float | None = None
    latency_ms: float | None = None
    tps: float | None = None


def knee_of(run: Run) -> Knee:
    """The run's knee, computed from its points by the analysis (the same figure the run
    stored, and the one a re-render of an older folder corrects): the highest throughput
    within the SLO, interpolated only where the curve still rises."""
    slo = slo_of(run)
    if slo.limit_ms is None:
        return Knee("unknown")
    points, _ = device_points(run.points)
    knee = find_knee(points, slo.metric, slo.limit_ms)
    if knee is None:
        return Knee("unknown")
    if not knee.get("within_slo"):
        return Knee("none")
    state = "beyond" if knee.get("beyond_last") else "found"
    return Knee(
        state,
        knee.get("iops"),
        knee.get("kind"),
        knee.get("load"),
        knee.get("latency_ms"),
        tps=knee.get("tps"),
    )


def device_seen(run: Run) -> tuple[Run, str]:
    """The run as its database's own device saw it, and words naming that device when it
    is not this host's: an external server's (the remote_device layer, --db-host)."""
    if not is_database(run):
        return run, ""
    points, layer = device_points(run.points)
    if layer is None:
        return run, ""
    return replace(run, points=points), f" (on the database server's own device: the {layer} layer)"


def knee_sentence(run: Run) -> str:
    """'knee: 41,200 IOPS at QD 13.6 (p99 read 1.00 ms, SLO 1 ms)' or why there is none;
    an external server's knee on its own device names the layer."""
    run, seen = device_seen(run)
    return _knee_words(run) + seen


def _knee_words(run: Run) -> str:
    slo = slo_of(run)
    knee = knee_of(run)
    limit = f"SLO {fmt_limit_ms(slo.limit_ms)}"
    if knee.state == "unknown":
        if slo.limit_ms is None:
            return "knee: no SLO set"
        if any("no block device" in str(note) for note in run.notes or []):
            return (
                f"knee: not computed (no block device under the target, so {slo.name} "
                "latency was not measured)"
            )
        return f"knee: unknown ({slo.name} latency was not measured at any finished point)"
    if knee.state == "none":
        return f"knee: no point within the SLO ({slo.name} ≤ {fmt_limit_ms(slo.limit_ms)})"
    where = load_text(knee.load_kind, knee.load_value, compact=False)
    detail = f"{slo.name} {fmt_ms(knee.latency_ms)}, {limit}"
    tps = f"{fmt_iops(knee.tps)} TPS, " if knee.tps is not None else ""
    iops = f"{fmt_iops(knee.iops)} {'device IOPS' if slo.device else 'IOPS'}"
    if knee.iops is None:
        iops = "device IOPS not measured" if slo.device else "IOPS not measured"
    failed = [p for p in run.points if not p.ok and p.load.value > (knee.load_value or 0.0)]
    if knee.state == "beyond" and failed:
        stop = failed[0]
        why = (stop.error or "no error recorded").split(";")[0]
        return (
            f"knee: every finished point within the SLO; the point at "
            f"{load_text(stop.load.kind, stop.load.value, compact=False)} failed ({why}), so "
            f"the knee was not reached ({tps}{iops} at {where}, {detail})"
        )
    top = max((p.load.value for p in curve_points(run.points)), default=None)
    if knee.state == "beyond" and top is not None and (knee.load_value or 0.0) < top:
        return (  # the most within the SLO is not at the highest load: say both
            f"knee: every point within the SLO, the most at {where} ({tps}{iops}, {detail}); "
            "the higher loads carried less"
        )
    if knee.state == "beyond":
        return (
            f"knee: every point within the SLO; the knee lies beyond the highest load "
            f"({tps}{iops} at {where}, {detail})"
        )
    return f"knee: {tps}{iops} at {where} ({detail})"


def peak_of(run: Run) -> Point | None:
    """The point with the peak IOPS: the run's peak if it names one, else the highest."""
    points = ok_points(run)
    if not points:
        return None
    if run.peak:
        _, value, _ = _load_of(run.peak.get("load"), run.peak.get("kind") or load_kind(run))
        point = _point_at(run, value)
        if point is not None:
            return point
    return max(points, key=lambda p: (p.iops if p.tps is None else p.tps) or 0.0)


def peak_sentence(run: Run) -> str:
    """'peak: 54,100 IOPS at QD64 (p99 read 1.90 ms)'; for a database, transactions first:
    'peak: 5,918 TPS at 8 users (transaction p99 13.8 ms; device 2,646 IOPS, ...)'."""
    run, seen = device_seen(run)
    return _peak_words(run) + seen


def _peak_words(run: Run) -> str:
    point = peak_of(run)
    if point is None:
        return "peak: none (no load point finished)"
    slo = slo_of(run)
    where = load_text(point.load.kind, point.load.value, point.load.jobs, compact=False)
    if slo.device and point.tps is not None:
        device = "no device statistics"
        if point.read_iops is not None or point.write_iops is not None:
            device = f"device {fmt_iops(point.iops)} IOPS, {slo.name} {fmt_ms(slo.value(point))}"
        return (
            f"peak: {fmt_iops(point.tps)} TPS at {where} (transaction p99 {txn_p99_text(point)}; "
            f"{device})"
        )
    tps = f", {fmt_iops(point.tps)} TPS" if point.tps is not None else ""
    iops = f"{fmt_iops(point.iops)} IOPS" if point.iops is not None else "IOPS not measured"
    return f"peak: {iops}{tps} at {where} ({slo.name} {fmt_ms(slo.value(point))})"


def txn_p99_text(point: Point) -> str:
    """A point's transaction p99 for a sentence: '13.8 ms', or why there is none ('not
    stated: 611 transactions, too few for a p99'), never a dash."""
    stats = point.txn_lat_ms
    if stats is not None and stats.p99 is not None:
        return fmt_ms(stats.p99)
    if stats is not None and stats.count:
        return f"not stated: {stats.count:,} transactions, too few for a p99"
    return "not measured"


def point_flags(point: Point) -> list[str]:
    """Short trust flags for one point, each explained in FLAG_LEGEND."""
    search = ["search"] if getattr(point, "series", "main") != "main" else []
    if not point.ok:
        return ["interrupted" if point.status == "interrupted" else "failed", *search]
    flags = search
    trust = point.trust
    if point.saturated:
        flags.append("saturated")
    if trust.steady is False:
        flags.append("not steady")
    if trust.noisy:
        flags.append("noisy")
    stats = (point.read_lat_ms, point.write_lat_ms, point.txn_lat_ms)
    has = {
        "p99": any(s is not None and s.p99 is not None for s in stats),
        "p999": any(s is not None and s.p999 is not None for s in stats),
    }
    if has["p99"] and not trust.p99_trusted:
        flags.append("few ops for p99")
    elif has["p999"] and not trust.p999_trusted:
        flags.append("few ops for p99.9")
    if reads_from_memory(point):
        flags.append("from memory")
    if getattr(point, "shared_device", False):
        flags.append("shared device")
    if point.cpu and (point.cpu.other_pct or 0.0) > 10.0:
        flags.append("busy host")
    return flags


def _bytes(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(parse_size(str(value).replace(" ", "")))
    except ValueError:
        return None


def array_cache_bytes(facts: dict[str, Any]) -> float | None:
    """The array cache from target facts: cache_gb (GiB) or array_cache ('64GiB' or bytes)."""
    if isinstance(facts.get("cache_gb"), int | float) and not isinstance(facts["cache_gb"], bool):
        return float(facts["cache_gb"]) * 1024**3
    return _bytes(facts.get("array_cache"))


def _direct(run: Run) -> bool | None:
    workload = run.workload or {}
    for source in (workload.get("profile"), workload, run.study):
        if isinstance(source, dict) and "direct" in source:
            return bool(source["direct"])
    return None


def cache_sentence(run: Run) -> str | None:
    """How the test data compares with host memory and the array cache, or None if unknown."""
    size = _bytes((run.workload or {}).get("file_size_bytes"))
    if not size:
        return None
    memory = _bytes((run.host or {}).get("memory_bytes"))
    cache = array_cache_bytes((run.target or {}).get("facts") or {})
    subject = f"The {fmt_bytes(size)} test file"
    if memory:
        subject += f" is {fmt_share(size, memory)} of host memory ({fmt_bytes(memory)})"
    direct = _direct(run)
    clauses = []
    if direct:
        clauses.append("direct I/O bypasses the host page cache")
    elif direct is False and memory and size < memory:
        clauses.append("buffered I/O, so the host page cache may serve it at memory speed")
    if cache:
        joiner = "but " if direct else ("and " if clauses else "")
        if size <= cache:
            clauses.append(f"{joiner}an array cache of {fmt_bytes(cache)} could hold it all")
        else:
            held = fmt_share(cache, size)
            clauses.append(f"{joiner}an array cache of {fmt_bytes(cache)} could hold {held} of it")
    if not clauses:
        return subject + "."
    return f"{subject}: {', '.join(clauses)}."


def point_label(point: Point, compact: bool = True) -> str:
    """A load point's load in words: 'QD8', '4 users', '2 inst × 4 users'."""
    return load_text(point.load.kind, point.load.value, point.load.jobs, compact=compact)
