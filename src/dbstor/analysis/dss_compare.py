"""Query runs (dss) compared across targets: total elapsed time with the baseline at 100,
and every query's elapsed time against the baseline's.

TR-3476 set FC beside iSCSI by the total execution time of its six queries (FC 2131.1 s,
iSCSI 2389.9 s: iSCSI at 112) and by each query's time, read MB/s and CPU; h6080 gives
DSS queries as 7-15% faster on flash. Elapsed time is lower-is-better: 112 means 12% longer
than the baseline. Runs are compared at one load point: the power run (1 stream) when
every run has one, else the lowest streams count they share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.comparable import unfinished_notes
from dbstor.analysis.factor_interval import flag_text
from dbstor.analysis.interval import estimate_of, factor_interval
from dbstor.analysis.labels import baseline_index, run_label
from dbstor.results.model import Point, Run

VALUES = ("total_elapsed_s", "queries_per_hour", "geomean_s", "read_mbps", "cpu_pct")
QUERY_FIGURES = ("elapsed_s", "read_mbps", "read_iops", "cpu_pct")
# /proc/stat counts CPU in clock ticks of 10 ms: a query shorter than two has no CPU figure
# (it read 0% or 100% from one tick), whatever its run recorded
CPU_TICKS_S = 0.02


def is_query_run(run: Run) -> bool:
    """A run of a query workload (dss): its points are query streams."""
    if (run.workload or {}).get("kind") == "queries":
        return True
    return bool(run.points) and all(p.load.kind == "streams" for p in run.points)


def finished(run: Run) -> list[Point]:
    return [p for p in run.points if p.ok]


def point_at(run: Run, streams: float | None) -> Point | None:
    """The run's first finished point at this many streams (None: its first finished)."""
    points = finished(run)
    if streams is None:
        return points[0] if points else None
    return next((p for p in points if p.load.value == streams), None)


def query_order(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """The queries the runs ran, in the first run's power order: name, number, titles."""
    seen: dict[str, dict[str, Any]] = {}
    for run in runs:
        listed = (run.workload or {}).get("queries") or []
        ran = [q for p in run.points for q in (p.queries or [])]
        for q in [*listed, *ran]:
            name = str(q.get("name"))
            if name not in seen:
                seen[name] = {
                    k: q.get(k) for k in ("name", "number", "title", "tr3476", "tr3476_code")
                }
    return list(seen.values())


def per_query(point: Point | None, figure: str = "elapsed_s") -> dict[str, float]:
    """A figure per query name at a point: the mean over its streams, finished queries only."""
    sums: dict[str, list[float]] = {}
    for q in (point.queries or []) if point else []:
        value = query_figure(q, figure)
        if q.get("status") == "ok" and value is not None:
            sums.setdefault(str(q.get("name")), []).append(value)
    return {name: sum(v) / len(v) for name, v in sums.items()}


def query_figure(query: dict[str, Any], figure: str) -> float | None:
    """One query's figure; None when not measured, and its CPU when it ran shorter than
    two clock ticks (CPU_TICKS_S)."""
    value = query.get(figure)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    if figure == "cpu_pct":
        elapsed = query.get("elapsed_s")
        if not isinstance(elapsed, int | float) or elapsed < CPU_TICKS_S:
            return None
    return float(value)


def point_values(point: Point | None) -> dict[str, float | None]:
    if point is None:
        return dict.fromkeys(VALUES)
    metrics = point.workload_metrics or {}
    return {
        "total_elapsed_s": metrics.get("total_elapsed_s"),
        "queries_per_hour": metrics.get("queries_per_hour"),
        "geomean_s": metrics.get("geomean_s"),
        "read_mbps": point.read_mbps,
        "cpu_pct": server_cpu(point.cpu)[0],  # the run's own where counted, not the host's
    }


def normalise(values: dict[str, Any], base: dict[str, Any]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, value in values.items():
        b = base.get(key)
        ok = isinstance(value, int | float) and isinstance(b, int | float) and b
        out[key] = value / b * 100.0 if ok else None
    return out


def factor_text(
    normalised: dict[str, float | None],
    cpu_word: str = "CPU",
    intervals: dict[str, list[float]] | None = None,
) -> str:
    """'total elapsed 112 (12% longer; 105-119), read MB/s x0.81 (0.74-0.89), CPU x1.1';
    cpu_word says whose CPU it is ('host CPU' where the runs did not count their own).
    `intervals` (normalised, baseline = 100) from the points' repeats: a figure whose
    interval includes 100 says so instead of a direction."""
    bounds = intervals or {}
    parts = []
    total = normalised.get("total_elapsed_s")
    if total is not None:
        change = total - 100.0
        how = (
            "the same"
            if abs(change) < 0.5
            else f"{abs(change):.0f}% {'longer' if change > 0 else 'shorter'}"
        )
        span = bounds.get("total_elapsed_s")
        if span and span[0] <= 100.0 <= span[1]:
            how = "no difference beyond the repeats' own spread"
        parts.append(f"total elapsed {total:.0f} ({how}{_span(span, 100)})")
    for key, word in (("queries_per_hour", "queries/h"), ("read_mbps", "read MB/s")):
        if normalised.get(key) is not None:
            parts.append(_factor(word, normalised[key], bounds.get(key)))
    if normalised.get("cpu_pct") is not None:
        parts.append(_factor(cpu_word, normalised["cpu_pct"], bounds.get("cpu_pct")))
    text = ", ".join(parts) or "no comparable figures"
    if parts and not bounds:
        text += " (no interval: each run measured its queries once; repeats give one)"
    return text


def _span(span: list[float] | None, scale: float) -> str:
    return f"; {span[0] / scale * 100:.0f}-{span[1] / scale * 100:.0f}" if span else ""


def _factor(word: str, value: float, span: list[float] | None) -> str:
    said = f"{word} x{value / 100:.2g}"
    if not span:
        return said
    said += f" ({span[0] / 100:.2g}-{span[1] / 100:.2g})"
    return said + (", which includes 1" if span[0] <= 100.0 <= span[1] else "")


def query_intervals(
    point: Point | None, base: Point | None, normalised: dict[str, float | None]
) -> dict[str, list[float]]:
    """Figure -> its normalised 95% interval (baseline = 100) from both points' repeats
    (analysis/interval.py); figures without repeats on both sides have none."""
    out = {}
    for key in VALUES:
        value = normalised.get(key)
        if value is None or point is None or base is None:
            continue
        bounds = factor_interval(estimate_of(point, key), estimate_of(base, key))
        if bounds is not None:
            out[key] = [value * bounds[0], value * bounds[1]]
    return out


def basis_streams(runs: Sequence[Run]) -> tuple[float | None, list[float]]:
    """The streams count runs are compared at (1 when all have a power run, else the
    lowest shared one; None when they share none) and every shared count."""
    shared: set[float] | None = None
    for run in runs:
        values = {p.load.value for p in finished(run)}
        shared = values if shared is None else shared & values
    common = sorted(shared or ())
    return (common[0] if common else None), common


def _warnings(runs: Sequence[Run], basis: float | None) -> tuple[bool, list[str]]:
    def distinct(getter: Any) -> list[Any]:
        seen: list[Any] = []
        for run in runs:
            value = getter(run)
            if value not in seen:
                seen.append(value)
        return seen

    comparable, warnings = True, []
    workloads = distinct(lambda r: (r.workload or {}).get("name"))
    if len(workloads) > 1:
        comparable = False
        warnings.append(
            f"different workloads ({', '.join(map(str, workloads))}): not like for like"
        )
    if basis is None:
        comparable = False
        warnings.append("the runs share no finished load point: each is taken at its first")
    checks = (
        ("scale", lambda r: (r.workload or {}).get("scale")),
        ("the queries run", lambda r: [q.get("name") for q in (r.workload or {}).get("queries") or []]),
        ("cold or warm cache", lambda r: (r.workload or {}).get("cache")),
        ("engine", lambda r: (r.engine or {}).get("name")),
    )  # fmt: skip
    for what, getter in checks:
        if len(distinct(getter)) > 1:
            warnings.append(f"the runs differ in {what}: compare with care")
    return comparable, warnings + unfinished_notes(runs)


def compare_query_runs(runs: Sequence[Run], baseline: str | None = None) -> dict[str, Any]:
    """Every query run normalised to the baseline run (= 100): totals and per query."""
    labels = [run_label(r, runs) for r in runs]
    base_index = baseline_index(runs, labels, baseline)
    basis, common = basis_streams(runs)
    comparable, warnings = _warnings(runs, basis)
    points = [point_at(run, basis) for run in runs]
    entries = [
        {
            "label": label,
            "run_id": run.run_id,
            "workload": (run.workload or {}).get("name"),
            "basis": _basis_text(point),
            "cache": (run.workload or {}).get("cache"),
            "values": point_values(point),
        }
        for run, label, point in zip(runs, labels, points, strict=True)
    ]
    base_values = entries[base_index]["values"]
    kinds = {server_cpu(p.cpu)[1] for p in points if p is not None and p.cpu is not None}
    for entry, point in zip(entries, points, strict=True):
        entry["normalised"] = normalise(entry["values"], base_values)
        if len(kinds) > 1:  # the server's own CPU beside a whole host's: not one figure
            entry["normalised"]["cpu_pct"] = None
        entry["intervals"] = query_intervals(point, points[base_index], entry["normalised"])
    cpu_word = "host CPU" if kinds == {"the whole host"} else "CPU"
    queries = []
    for query in query_order(runs):
        name = str(query["name"])
        figures = {
            figure: {
                label: per_query(point, figure).get(name)
                for label, point in zip(labels, points, strict=True)
            }
            for figure in QUERY_FIGURES
        }
        seconds = figures["elapsed_s"]
        base = seconds.get(labels[base_index])
        queries.append(
            {
                **query,
                "values": seconds,
                "normalised": {
                    label: (value / base * 100.0 if value is not None and base else None)
                    for label, value in seconds.items()
                },
                "figures": figures,
            }
        )
    matched = []
    for value in common:
        at = [point_at(run, value) for run in runs]
        per_label = {label: point_values(p) for label, p in zip(labels, at, strict=True)}
        base = per_label[labels[base_index]]
        matched.append(
            {
                "load": {"kind": "streams", "value": value},
                "values": per_label,
                "normalised": {label: normalise(v, base) for label, v in per_label.items()},
            }
        )
    return {
        "kind": "dss",
        "baseline": labels[base_index],
        "comparable": comparable,
        "warnings": warnings,
        "metric": "total_elapsed_s",
        "lower_is_better": True,
        "basis_streams": basis,
        "runs": entries,
        "queries": queries,
        "matched": matched,
        "factors": [
            {
                "label": e["label"],
                "text": flag_text(
                    factor_text(e["normalised"], cpu_word, e["intervals"]),
                    drifting([(labels[base_index], points[base_index]), (e["label"], point)]),
                ),
                "intervals": e["intervals"],
            }
            for i, (e, point) in enumerate(zip(entries, points, strict=True))
            if i != base_index
        ],
        "per_disk": [],
        "cpu_from": " and ".join(sorted(kinds - {"not measured"})) or "not measured",
    }


def drifting(pairs: Sequence[tuple[str, Point | None]]) -> list[str]:
    """ "ISCSI's power run: not steady" for each point a factor rests on that is flagged
    (held until steady and never got there: analysis/trust.py rounds_steadiness); the
    factor stands, with the flag beside it in words."""
    return [
        f"{label}'s {_basis_text(point)}: not steady"
        for label, point in pairs
        if point is not None and point.trust.steady is False
    ]


def _basis_text(point: Point | None) -> str:
    if point is None:
        return "no finished point"
    value = point.load.value
    return "power run" if value == 1 else f"throughput run, {value:g} streams"
