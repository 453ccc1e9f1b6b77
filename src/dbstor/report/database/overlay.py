"""The database on the storage's curve: fio runs and database runs on one target label,
where the database ran on the storage's IOPS-latency curve, and the caption that says so
from the data.

A database run's IOPS are what the device under the target saw, not what the engine asked
for; its read latency is the device's await (diskstats has a mean, not a distribution).
A database on an external server is placed by its own device when `--db-host` named it
(the remote_device layer, from that server's node_exporter), and the caption says so;
without it the run is left off, as this host's device is not the database's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dbstor.analysis.curve import value_at_knee
from dbstor.analysis.layers import layer_figure, remote_view
from dbstor.report.database.memory import is_external, memory_detail
from dbstor.report.kit.doubts import FOREIGN, doubts, knee_doubts, peak_doubts
from dbstor.report.kit.fmt import capitalise, fmt_iops, fmt_share, join_words, load_text
from dbstor.report.kit.summary import (
    is_database,
    knee_of,
    ok_points,
    peak_of,
    point_label,
    reads_from_memory,
    slo_of,
)
from dbstor.results.model import Point, Run


@dataclass
class Overlay:
    """fio runs and database runs on one target label: the storage's curve and where the
    database ran on it."""

    label: str
    storage: list[Run]  # fio runs; the first is the curve the caption reads
    databases: list[Run]  # database runs placed on the curve (external ones by --db-host)
    external: list[Run] = field(default_factory=list)  # left out: their devices are elsewhere


def overlays(runs: Sequence[Run]) -> list[Overlay]:
    """One overlay per target label that has both a fio run and a database run."""
    out = []
    labels: list[str] = []
    for run in runs:
        label = str((run.target or {}).get("label", ""))
        if label not in labels:
            labels.append(label)
    for label in labels:
        same = [r for r in runs if str((r.target or {}).get("label", "")) == label]
        fio = [r for r in same if not is_database(r) and ok_points(r)]
        dbs = [r for r in same if is_database(r)]
        if not fio or not dbs:
            continue
        fio.sort(key=lambda r: (r.workload or {}).get("name") != "io-oltp")
        placed = [r for r in dbs if not is_external(r) or on_remote_device(r)]
        external = [r for r in dbs if is_external(r) and not on_remote_device(r)]
        if placed:  # an external server's devices are elsewhere unless --db-host named one
            out.append(Overlay(label, fio, placed, external))
    return out


def on_remote_device(run: Run) -> bool:
    """An external database run placed by its server's own device: --db-host gave the
    remote_device layer figures on some finished point."""
    return is_external(run) and any(_remote_iops(p) is not None for p in ok_points(run) if p.layers)


def _remote_iops(point: Point) -> tuple[float, float] | None:
    reads = layer_figure(point.layers, "remote_device", "read_iops")
    writes = layer_figure(point.layers, "remote_device", "write_iops")
    if reads is None and writes is None:
        return None
    return reads or 0.0, writes or 0.0


def placed_points(run: Run) -> list[Point]:
    """A database run's finished points that have device IOPS to place on the curve: the
    database host's device (remote_device) for an external server --db-host named, else
    this host's device under the target."""
    if on_remote_device(run):
        remote = [remote_view(p) for p in ok_points(run)]
        return [p for p in remote if p is not None]
    return [p for p in ok_points(run) if p.read_iops is not None or p.write_iops is not None]


@dataclass
class HostView:
    """One host's own device view at each finished point of a run measured on several
    hosts: its device IOPS (reads + writes) against its device read await."""

    host: str
    iops: list[float]
    read_ms: list[float | None]  # None (never 0) where the host's device read nothing
    missing: list[str | None] = field(default_factory=list)  # why a read_ms is None


def host_views(run: Run) -> list[HostView]:
    """Each host's own device at every finished point of a cluster database run, in the
    order the hosts first appear; [] for a run on one host or without device figures."""
    views: dict[str, HostView] = {}
    for point in placed_points(run) if not on_remote_device(run) else []:
        for entry in point.hosts or []:
            device = entry.get("device") or {}
            reads, writes = device.get("read_iops"), device.get("write_iops")
            if reads is None and writes is None:
                continue
            view = views.setdefault(str(entry["host"]), HostView(str(entry["host"]), [], []))
            view.iops.append((reads or 0.0) + (writes or 0.0))
            awaited = device.get("read_await_ms")
            measured = reads and awaited is not None
            view.read_ms.append(float(awaited) if measured else None)
            view.missing.append(None if measured else NO_READS)
    return list(views.values()) if len(views) > 1 else []


def hosts_sentence(run: Run, views: list[HostView], name: str) -> str:
    """What the caption says of a run measured on several hosts."""
    names = join_words([v.host for v in views])
    return (
        f"{name} ran on {len(views)} hosts ({names}): its large markers are every host's "
        "device I/O summed at the shared storage (IOPS added, read await weighted by each "
        "host's reads); the small ones are each host's own device view, one shape per host."
    )


def remote_sentence(run: Run, name: str) -> str:
    """What the caption says of a run placed by the database host's own device."""
    selection = ((run.study or {}).get("telemetry") or {}).get("db_host")
    which = f" ({selection})" if selection else ""
    return (
        f"{name} ran on an external server: its markers are that server's own device{which}, "
        "from its node_exporter through Prometheus (--db-host), not this host's."
    )


NO_READS = "the device saw no reads"


def device_read_ms(point: Point) -> float | None:
    """The y of a database point on the overlay: device read await; None (not measured,
    never 0) when the device read nothing."""
    stats = point.read_lat_ms
    if not point.read_iops or stats is None or stats.mean is None:
        return None
    return stats.mean


def storage_read_ms(point: Point) -> float | None:
    """The y of a fio point on the overlay: fio's mean read latency."""
    return point.read_lat_ms.mean if point.read_lat_ms else None


@dataclass
class KneeMark:
    iops: float
    read_ms: float
    load: str
    slo_text: str


def storage_knee(run: Run) -> KneeMark | None:
    """The storage's knee on the overlay's axes (mean read latency at the knee's load)."""
    knee = knee_of(run)
    if knee.state != "found" or knee.iops is None or knee.load_value is None:
        return None
    if knee_doubts(run):  # the document says this knee could not be stated: no ring
        return None
    y = value_at_knee(run.points, {"load": knee.load_value}, storage_read_ms)
    if y is None:
        return None
    slo = slo_of(run)
    limit = f"{slo.name} ≤ {slo.limit_ms:g} ms" if slo.limit_ms else slo.name
    return KneeMark(knee.iops, y, load_text(knee.load_kind, knee.load_value), limit)


def _relation(iops: float, storage: Run) -> str:
    knee = knee_of(storage)
    peak = peak_of(storage)
    if knee.state == "found" and knee.iops and not knee_doubts(storage):
        ratio = iops / knee.iops
        where = (
            f"the storage's knee ({fmt_iops(knee.iops)} IOPS at "
            f"{load_text(knee.load_kind, knee.load_value)})"
        )
        if ratio < 0.5:
            return f"it runs far below {where}"
        if ratio < 0.9:
            return f"it runs below {where}"
        if ratio <= 1.1:
            return f"it runs close to {where}"
        return f"it runs past {where}: expect the storage's latency to climb"
    top = (peak.iops if peak else None) or 0.0  # fio's peak: measured, or no comparison
    if knee.state == "beyond" and not knee_doubts(storage):
        qualifier = "far below" if top and iops < 0.5 * top else "below"
        return (
            f"it runs {qualifier} the highest load the storage sustained within its SLO "
            "(the storage's knee lies beyond its highest measured load)"
        )
    if top and iops > 0.9 * top:
        return "it runs close to the storage's peak"
    if not top:
        return "the storage's peak IOPS were not measured"
    return "it runs far below the storage's peak" if iops < 0.5 * top else "it runs below it"


def _drove(busiest: Point, storage: Run, peak_iops: float) -> str:
    """'At 8 users the database drove 14,671 IOPS, 17% of the storage's peak of 84,943
    IOPS: it runs far below ...'."""
    busiest_iops = busiest.iops or 0.0
    writes = (busiest.write_iops or 0.0) / busiest_iops if busiest_iops else 0.0
    mix = ""
    if writes >= 0.995:
        mix = " (almost all writes)"
    elif writes >= 0.5:
        mix = f" ({fmt_share(writes, 1.0)} writes)"
    refused = peak_doubts(storage)
    if not peak_iops or refused:
        why = f"is not stated ({refused})" if refused else "IOPS were not measured"
        return (
            f"At {point_label(busiest, compact=False)} the database drove "
            f"{fmt_iops(busiest_iops)} IOPS{mix}; the storage's peak {why}."
        )
    share = fmt_share(busiest_iops, peak_iops)
    return (
        f"At {point_label(busiest, compact=False)} the database drove "
        f"{fmt_iops(busiest_iops)} IOPS{mix}, {share} of the storage's peak of "
        f"{fmt_iops(peak_iops)} IOPS: {_relation(busiest_iops, storage)}."
    )


def database_on_storage(overlay: Overlay, names: dict[str, str]) -> list[tuple[str, str]]:
    """For the summary: each database run of the overlay that has a point whose device IOPS
    are its own, and the sentence that places it against the storage's peak."""
    storage = overlay.storage[0]
    peak = peak_of(storage)
    peak_iops = (peak.iops if peak else None) or 0.0
    if not peak_iops or peak_doubts(storage):
        return []
    out = []
    for run in overlay.databases:
        trusted = [p for p in placed_points(run) if not doubts([p], device_iops=True, only=FOREIGN)]
        if not trusted:
            continue
        busiest = max(trusted, key=lambda p: p.iops or 0.0)
        name = names.get(run.run_id, run.run_id)
        drove = _drove(busiest, storage, peak_iops)
        out.append((run.run_id, f"{name}: {drove[0].lower()}{drove[1:]}"))
    return out


def overlay_caption(overlay: Overlay, names: dict[str, str]) -> str:
    """Sentences computed from the data: where each database ran against the storage."""
    storage = overlay.storage[0]
    peak = peak_of(storage)
    peak_iops = (peak.iops if peak else None) or 0.0  # 0: no peak to compare with
    sentences = []
    many = len(overlay.databases) > 1
    for run in overlay.databases:
        who = f"{names.get(run.run_id, run.run_id)}: " if many else ""
        points = placed_points(run)
        if not ok_points(run):
            sentences.append(capitalise(f"{who}the database run has no finished load point yet."))
            continue
        if not points:
            sentences.append(
                capitalise(
                    f"{who}the database run has no device statistics, so it cannot be placed "
                    "on the storage's curve."
                )
            )
            continue
        if on_remote_device(run):
            sentences.append(remote_sentence(run, names.get(run.run_id, run.run_id)))
        views = host_views(run)
        if views:
            sentences.append(hosts_sentence(run, views, names.get(run.run_id, "The database")))
        refused = doubts(points, device_iops=True, only=FOREIGN)
        trusted = [p for p in points if not doubts([p], device_iops=True, only=FOREIGN)]
        if refused:
            sentences.append(
                capitalise(
                    f"{who}not every point's device IOPS are the database's ({refused}): "
                    + (
                        "those points are not stated as the database's."
                        if trusted
                        else "none is stated as the database's."
                    )
                )
            )
        if not trusted:
            continue
        busiest = max(trusted, key=lambda p: p.iops or 0.0)
        busiest_iops = busiest.iops or 0.0  # placed points have device IOPS
        sentences.append(capitalise(who + _drove(busiest, storage, peak_iops)))
        if peak_iops and busiest_iops > 1.1 * peak_iops:
            sentences.append(
                "That is more than fio ever drove: the device's figures likely include other "
                "I/O on the device, or the storage changed between the runs."
            )
        unread = [p for p in points if device_read_ms(p) is None]
        if unread and len(unread) == len(points):
            sentences.append(
                "The device saw no reads at any load point, so the database's points have no "
                "read await and are not on the chart: every read came from memory."
            )
        elif unread:
            where = join_words(
                [f"{point_label(p, compact=False)} ({fmt_iops(p.iops)} IOPS)" for p in unread]
            )
            verb = ("it has", "is") if len(unread) == 1 else ("they have", "are")
            sentences.append(
                f"At {where} the device saw no reads, so {verb[0]} no read await and {verb[1]} "
                "not on the chart."
            )
        if reads_from_memory(busiest) and len(unread) < len(points):
            sentences.append(
                f"Its reads came from memory: {memory_detail(run, busiest)}. The storage's "
                "read latency barely touched its transactions."
            )
    for run in overlay.external:
        name = names.get(run.run_id, run.run_id)
        sentences.append(
            f"{name} ran on an external server: its device figures are this host's, so it "
            "is left off this chart."
        )
    return " ".join(sentences)
