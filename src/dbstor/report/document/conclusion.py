"""The conclusion: what the figures mean for the reader's decision, and the limits of
what was measured, stated from the runs themselves (durations, sizes against memory,
flagged points, figures that could not be measured)."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.dss_compare import is_query_run
from dbstor.report.database.memory import memory_sentence
from dbstor.report.document.analyses import missing, per_target
from dbstor.report.kit.comparison import verdict_lines
from dbstor.report.kit.doubts import knee_doubts, peak_doubts
from dbstor.report.kit.fmt import (
    fmt_bytes,
    fmt_iops,
    fmt_limit_ms,
    fmt_ms,
    fmt_num,
    load_text,
)
from dbstor.report.kit.summary import (
    array_cache_bytes,
    is_database,
    knee_of,
    ok_points,
    peak_of,
    point_flags,
    slo_of,
)
from dbstor.results.model import Run

SHORT_POINT_S = 60


def _one_device(runs: list[Run]) -> str | None:
    """Targets that are folders on one device of one host: their differences are the runs'
    (the order they ran in, other work on the host), not the storage's."""
    groups: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        target = run.target or {}
        device, label = target.get("device"), str(target.get("label") or "")
        if device and label:
            key = (str((run.host or {}).get("hostname")), str(device))
            if label not in groups.setdefault(key, []):
                groups[key].append(label)
    for (_, device), labels in groups.items():
        if len(labels) > 1:
            return (
                f"{', '.join(labels[:-1])} and {labels[-1]} are folders on the same device "
                f"({device}) of one host: "
                "the differences between them are the runs' (the order they ran in, other "
                "work on the host), not the storage's."
            )
    return None


def _limits(runs: list[Run], names: list[str], analyses: dict[str, Any]) -> list[str]:
    out = [same] if (same := _one_device(runs)) else []
    timed = [r for r in runs if not is_query_run(r)]  # a query run lasts as its queries do
    durations = [p.duration_s for r in timed for p in r.points if p.duration_s]
    if durations and max(durations) < SHORT_POINT_S:
        rank = "rank the targets" if len(runs) > 1 else "read the trend"
        held = [p.trust.max_s for r in timed for p in r.points if p.trust.max_s]
        out.append(
            f"Each load point measured a window of at most {fmt_num(max(durations))} s, run "
            f"until steady up to {fmt_num(max(held))} s: enough to {rank} on this machine; "
            "the seeds hold each point for minutes."
            if held
            else f"Each load point ran at most {fmt_num(max(durations))} s: enough to {rank} on "
            "this machine, short for a steady-state claim; the seeds hold each point for "
            "minutes."
        )
    elapsed = [p.duration_s for r in runs if is_query_run(r) for p in r.points if p.duration_s]
    if elapsed and max(elapsed) < SHORT_POINT_S:
        out.append(
            f"The queries took at most {fmt_num(max(elapsed))} s a run: at this scale they "
            "time the host's CPU and caches more than the storage; TR-3476's six took 2,131 s on FC."
        )
    hosts = {str((r.host or {}).get("hostname")) for r in runs}
    if len(hosts) == 1 and not any(p.hosts for r in runs for p in r.points):
        out.append("All runs were driven from one host; a bigger client may reach further.")
    for run, name in zip(runs, names, strict=True):
        caching = _caching(run, name)
        if caching:
            out.append(caching)
        if memory_sentence(run):
            out.append(f"{name}: its reads came from memory; its TPS does not rate the storage.")
        flagged = sorted(
            {
                f
                for p in run.points
                for f in point_flags(p)
                if f in ("not steady", "noisy", "failed")
            }
        )
        if flagged:
            out.append(
                f"{name}: some points are flagged {', '.join(flagged)}; read them with care."
            )
        if run.status != "complete":
            out.append(f"{name}: the run is {run.status}; only its finished points are shown.")
    for table in ("efficiency", "capacity", "placement"):
        for label, entry in per_target(analyses, table).items():
            why = missing(entry)
            if why:
                out.append(f"{table.capitalize()} of {label} was not measured: {why}.")
    tco = analyses.get("tco")
    if isinstance(tco, dict) and missing(tco):
        out.append(f"The cost case was not computed: {missing(tco)}.")
    return out


def _caching(run: Run, name: str) -> str | None:
    """What could have served a fio run's reads instead of the drives."""
    size = (run.workload or {}).get("file_size_bytes")
    memory = (run.host or {}).get("memory_bytes")
    if is_database(run) or not isinstance(size, int):
        return None
    cache = array_cache_bytes((run.target or {}).get("facts") or {})
    if cache and size <= cache:
        return (
            f"{name}: an array cache of {fmt_bytes(cache)} could hold the whole "
            f"{fmt_bytes(size)} test file, so the figures may be the cache's, not the drives'."
        )
    sources = [run.workload or {}, (run.workload or {}).get("profile"), run.study or {}]
    direct = next((d["direct"] for d in sources if isinstance(d, dict) and "direct" in d), None)
    if isinstance(memory, int) and size < memory and direct is False:
        return (
            f"{name}: the {fmt_bytes(size)} test file fits in the host's {fmt_bytes(memory)} "
            "of memory and the I/O was buffered: the page cache may have served it."
        )
    return None


def _database_decision(run: Run, name: str) -> list[str]:
    """Where the database's limit lay: in the storage (its device read await reached the
    SLO) or elsewhere (the await stayed within it at every load)."""
    knee, slo = knee_of(run), slo_of(run)
    if knee_doubts(run) or knee.tps is None:
        return []
    where = load_text(knee.load_kind, knee.load_value, compact=False)
    if knee.state == "beyond":
        top = max(ok_points(run), key=lambda p: p.load.value, default=None)
        highest = top is not None and abs(top.load.value - knee.load_value) < 1e-9
        most = (  # the highest throughput within the limit need not be at the highest load
            f"up to the highest load ({fmt_iops(knee.tps)} TPS at {where})"
            if highest or top is None
            else f"at every load up to the highest "
            f"({load_text(top.load.kind, top.load.value, top.load.jobs, compact=False)}), "
            f"carrying at most {fmt_iops(knee.tps)} TPS (at {where})"
        )
        return [
            f"{name}: the storage kept the {slo.name} await within {fmt_limit_ms(slo.limit_ms)} "
            f"{most}: at these loads the limit lay in the database and the host, not the "
            "storage."
        ]
    if knee.state == "found":
        return [
            f"Size {name} on {fmt_iops(knee.tps)} TPS at {where}, where the {slo.name} await "
            f"reaches its {fmt_limit_ms(slo.limit_ms)} limit: beyond it the storage sets the pace."
        ]
    return []


def _size_on_knee(run: Run, name: str, knee_iops: float) -> str:
    """'Size FC on its knee, 47,702 IOPS within SLO 1 ms p99 read, not on its peak of
    54,100 IOPS, where p99 read latency was 1.90 ms.' The knee is the highest throughput
    within the SLO, so a peak within it is the knee itself."""
    peak, slo = peak_of(run), slo_of(run)
    lead = f"Size {name} on its knee, {fmt_iops(knee_iops)} IOPS within {slo.text}"
    if peak is None or not peak.iops or peak_doubts(run) or peak.iops <= knee_iops:
        return lead + "."
    over = slo.value(peak)
    beyond = f", where {slo.name} latency was {fmt_ms(over)}" if over is not None else ""
    return f"{lead}, not on its peak of {fmt_iops(peak.iops)} IOPS{beyond}."


def _decisions(runs: list[Run], names: list[str], comparison: dict[str, Any] | None) -> list[str]:
    out = []
    if comparison and comparison.get("comparable") is not False:
        lines = verdict_lines(comparison)
        if lines:
            lead, text = lines[0]
            out.append(f"Choosing between the targets: {lead}, {text}.".replace("..", "."))
    for run, name in zip(runs, names, strict=True):
        if is_query_run(run):
            continue
        if memory_sentence(run):
            out.append(
                f"{name} measured the host, not the storage: before drawing a storage "
                "conclusion from it, run it again with a larger scale or a smaller memory cap."
            )
            continue
        if is_database(run):
            out.extend(_database_decision(run, name))
            continue
        knee = knee_of(run)
        doubts = knee_doubts(run)
        if doubts:
            out.append(
                f"{name}: no size can be drawn from its knee ({doubts}); run it again with "
                "longer points or on a quieter host before sizing on it."
            )
        elif knee.state == "found" and knee.iops:
            out.append(_size_on_knee(run, name, knee.iops))
        elif knee.state == "beyond":
            out.append(
                f"{name} never left its SLO: it can take more load than this study offered; "
                "a longer series would find its knee."
            )
    return out


def conclusion_body(
    runs: list[Run], names: list[str], comparison: dict[str, Any] | None, analyses: dict[str, Any]
) -> str:
    """The decisions the measured figures support, then the limits."""
    decisions = _decisions(runs, names, comparison)
    lead = "".join(f"<p>{escape(d)}</p>" for d in decisions) or (
        "<p>No decision can be drawn from these runs alone: see the limits below.</p>"
    )
    limits = "".join(f"<li>{escape(x)}</li>" for x in _limits(runs, names, analyses))
    return lead + (f"<h3>Limits</h3><ul>{limits}</ul>" if limits else "")
