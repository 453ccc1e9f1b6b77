"""Comparisons across runs: every configuration normalised to a baseline of 100.

TR-4367 normalises latency, transactions, IOPS and CPU to its FC baseline; TR-4403 and
TR-4415 quote improvement factors ("read latency -95%, IOPS x4, CPU x4"); h6080 multiplies
the drive-count reduction by the performance factor into a per-disk efficiency.

The headline is made the way the seeds made it: every run at the same load, the baseline's
knee load (interpolated on each run's curve). TR-4403 directed "the same workload" (the
users at which the legacy array stopped delivering reads under 20 ms) to the flash array;
a flash run that was pushed further than that would otherwise turn "IOPS x4" into "x8".
Second, each run at its own knee (its peak when it has no knee): throughput and CPU there,
latency at the baseline's knee load. Runs that are not comparable get the reason and no
verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis import compare_guard as guard
from dbstor.analysis import compare_words
from dbstor.analysis import factor_interval as spreads
from dbstor.analysis.attribution import cpu_from, server_cpu
from dbstor.analysis.comparable import comparability_warnings, refuse_a_run_twice
from dbstor.analysis.compare_roles import compare_roles
from dbstor.analysis.compare_words import (
    basis_load,
    basis_of,
    factor,
    factor_text,
    load_words,
    metric_names,
    verdict,
)
from dbstor.analysis.curve import curve_points, find_knee, find_peak, slo_value, value_at_knee
from dbstor.analysis.dss_compare import compare_query_runs, is_query_run
from dbstor.analysis.event_compare import compare_events
from dbstor.analysis.labels import baseline_index, run_label
from dbstor.analysis.layers import compare_layers
from dbstor.analysis.per_disk import per_disk as per_disk_rows
from dbstor.analysis.trust import inside_spread
from dbstor.results.model import Point, Run

__all__ = [
    "METRICS",
    "comparability_warnings",
    "compare_runs",
    "factor",
    "factor_text",
    "run_label",
]

METRICS = ("throughput", "iops", "tps", "read_lat_ms", "cpu_pct", "response_ms")


def _cpu(p: Point) -> float | None:
    """The database's own CPU where counted, else the host's (attribution.server_cpu)."""
    return server_cpu(p.cpu)[0]


def _response(p: Point) -> float | None:
    """The transaction response time the users saw (mean), h6080's "response time"."""
    return p.txn_lat_ms.mean if p.txn_lat_ms else None


def _throughput(p: Point) -> float | None:
    return p.tps if p.tps is not None else p.iops


def point_values(run: Run, p: Point) -> dict[str, float | None]:
    """Every compared figure of one point."""
    return {
        "throughput": _throughput(p),
        "iops": p.iops,
        "tps": p.tps,
        "read_lat_ms": _read_latency_getter(run)(p),
        "cpu_pct": _cpu(p),
        "response_ms": _response(p),
    }


def values_at_load(run: Run, load: float | None) -> dict[str, float | None]:
    """Every compared figure interpolated on the run's curve at this load (None outside
    the loads it measured)."""
    getters = {key: (lambda p, k=key: point_values(run, p)[k]) for key in METRICS}
    return {key: _value_at(run.points, load, getter) for key, getter in getters.items()}


def _at_basis(run: Run) -> tuple[str, dict[str, Any] | None]:
    """The run's knee within its SLO, else its peak on the main curve (auto mode's search
    points are another kind of load: a queue depth is not a rate)."""
    metric, limit = run.slo["metric"], run.slo["limit_ms"]
    knee = find_knee(run.points, metric, limit)
    if knee and knee.get("load") is not None:
        return basis_of(run), knee
    return "peak", find_peak(curve_points(run.points))


def _value_at(points: Sequence[Point], load: float | None, getter: Any) -> float | None:
    return value_at_knee(points, {"load": load}, getter) if load is not None else None


def _read_latency_getter(run: Run) -> Any:
    metric = run.slo["metric"]
    read_metric = metric if metric.startswith("read_") else "read_lat_p99_ms"
    return lambda p: slo_value(p, read_metric)


def _values(
    run: Run, basis_point: dict[str, Any] | None, latency_load: float | None
) -> dict[str, float | None]:
    if basis_point is None:
        return dict.fromkeys(METRICS)
    load = basis_point.get("load")
    iops = basis_point.get("iops")
    tps = basis_point.get("tps")
    return {
        "throughput": tps if tps is not None else iops,
        "iops": iops,
        "tps": tps,
        "read_lat_ms": _value_at(run.points, latency_load, _read_latency_getter(run)),
        "cpu_pct": _value_at(run.points, load, _cpu),
        "response_ms": _value_at(run.points, load, _response),
    }


def _normalise(
    values: dict[str, float | None], base: dict[str, float | None]
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, value in values.items():
        b = base.get(key)
        out[key] = None if value is None or not b else value / b * 100.0
    return out


def _matched(runs: Sequence[Run], labels: list[str], baseline: int) -> list[dict[str, Any]]:
    common = None
    for run in runs:
        loads = {(p.load.kind, p.load.value) for p in curve_points(run.points)}
        common = loads if common is None else common & loads
    rows = []
    database = _is_database(runs[baseline])
    for kind, value in sorted(common or ()):
        per_label: dict[str, dict[str, float | None]] = {}
        rests = []
        for run, label in zip(runs, labels, strict=True):
            point = next(
                p for p in curve_points(run.points) if (p.load.kind, p.load.value) == (kind, value)
            )
            per_label[label] = point_values(run, point)
            rests.append((run, label, [point]))
        base = per_label[labels[baseline]]
        normalised, intervals = {}, {}
        sure = [
            spreads.estimates(points, point_values(r, points[0]), _read_metric(r))
            for r, _, points in rests
        ]
        for i, (label, v) in enumerate(per_label.items()):
            held = guard.withheld([rests[i], rests[baseline]], v, base, database)
            entry = {"values": v}
            _bounded(entry, base, held, sure[i], sure[baseline])
            normalised[label], intervals[label] = entry["normalised"], entry["intervals"]
        rows.append(
            {
                "load": {"kind": kind, "value": value},
                "values": per_label,
                "normalised": normalised,
                "intervals": intervals,
            }
        )
    return rows


def compare_runs(runs: Sequence[Run], baseline: str | None = None) -> dict[str, Any]:
    """Normalise every run to the baseline run (= 100); see the module docstring."""
    refuse_a_run_twice(runs)
    if runs and all(is_query_run(r) for r in runs):  # query runs: total elapsed time
        return compare_query_runs(runs, baseline)
    labels = [run_label(r, runs) for r in runs]
    base_index = baseline_index(runs, labels, baseline)
    base_run = runs[base_index]
    base_basis, base_point = _at_basis(base_run)
    latency_load = base_point.get("load") if base_point else None
    comparable, warnings = comparability_warnings(runs)
    refused = guard.load_kinds(list(runs), labels)
    database = _is_database(base_run)
    base_kind = base_point.get("kind") if base_point else None
    latency_words = (
        f"{load_words(base_kind, latency_load, database)}, the baseline's {basis_load(base_basis)}"
    )
    words = compare_words.latency_words(metric_names(_read_metric(base_run), database))

    entries, rests, sure = [], [], []
    for i, (run, label) in enumerate(zip(runs, labels, strict=True)):
        basis, point = _at_basis(run)
        at_latency = latency_load if (i == base_index or not refused) else None
        own = guard.points_at(run, point.get("load") if point else None)
        rests.append((run, label, own + guard.points_at(run, at_latency)))
        values = _values(run, point, at_latency)
        at = guard.points_at(run, at_latency)
        sure.append(spreads.estimates(own, values, _read_metric(run), at))
        entries.append(
            {
                "label": label,
                "run_id": run.run_id,
                "workload": run.workload.get("name"),
                "basis": basis,
                "values": values,
            }
        )
    base_values = entries[base_index]["values"]
    factors = []
    for i, (entry, run_i) in enumerate(zip(entries, runs, strict=True)):
        pair = [rests[i], rests[base_index]]
        held = guard.withheld(pair, entry["values"], base_values, database, latency_load)
        if refused and i != base_index and guard.summary_reason(held) is None:
            held["read_lat_ms"] = "no load is the same on both runs"
        bounds = _bounded(entry, base_values, held, sure[i], sure[base_index])
        flagged = spreads.flags(pair, database) if i != base_index else []
        entry["flags"] = flagged
        if i != base_index:
            spread, inside, note = inside_spread(entry["normalised"], [run_i, base_run])
            text = _text(entry["normalised"], held, words, bounds) + note
            factors.append(
                {
                    "label": entry["label"],
                    "text": spreads.flag_text(text, flagged),
                    "intervals": spreads.as_factors(bounds),
                    "flags": flagged,
                    "basis": entry["basis"],
                    "baseline_basis": base_basis,
                    "latency_at": None if refused else latency_words,
                    "spread_pct": spread,
                    "inside_spread": inside,
                }
            )
    per_disk, per_disk_withheld = per_disk_rows(runs, entries, base_index)
    same_load = (
        None if refused else _same_load(runs, labels, base_index, base_point, database, words)
    )
    comparison = {
        "baseline": labels[base_index],
        "comparable": comparable,
        "warnings": warnings,
        "latency_at_load": latency_load,
        "latency_at": latency_words,
        "metric_names": metric_names(_read_metric(base_run), database, cpu_from(runs)),
        "runs": entries,
        "matched": _matched(runs, labels, base_index),
        "same_load": same_load,
        "same_load_refused": refused,
        "factors": factors,
        "factors_at": f"each run's own {compare_words.FACTORS_AT}; read latency at {latency_words}",
        "per_disk": per_disk,
        "per_disk_withheld": per_disk_withheld,
        "cpu_from": cpu_from(runs),
        "verdict": verdict(comparable, warnings, same_load, refused, factors, labels[base_index]),
    }
    comparison["events"] = compare_events(runs, labels)  # events side by side, or None
    comparison["roles"] = _roles(runs, labels, entries, same_load)
    # Each layer (client, devices, storage) at the same load, baseline's layer = 100.
    layers = compare_layers(runs, labels, labels[base_index], (same_load or {}).get("load"))
    if layers is not None:
        comparison["layers"] = _guard_layers(layers, same_load, labels[base_index])
    return comparison


def _roles(
    runs: Sequence[Run],
    labels: list[str],
    entries: list[dict[str, Any]],
    same_load: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """Every run's roles on their own devices at the same load, or at each run's own basis
    when the runs share no load (analysis/compare_roles.py)."""
    if same_load is not None:
        value = same_load["load"]["value"]
        at = f"{same_load['load_words']}, {same_load['basis']}"
        return compare_roles(runs, labels, [value] * len(runs), at, same_load["load"])
    loads = [(_at_basis(run)[1] or {}).get("load") for run in runs]
    return compare_roles(runs, labels, loads, "each run's own knee (its peak without one)")


def _guard_layers(
    layers: dict[str, Any], same_load: dict[str, Any] | None, baseline: str
) -> dict[str, Any]:
    """No layer is normalised from points a factor may not rest on: a run whose same-load
    factor was withheld keeps its values, not their share, and says why (never the baseline)."""
    held = {e["label"]: guard.summary_reason(e["withheld"]) for e in (same_load or {})["runs"]}
    for entry in layers.get("runs") or []:
        reason = held.get(entry["label"]) if entry["label"] != baseline else None
        if reason:
            entry["normalised"] = {
                layer: dict.fromkeys(figures) for layer, figures in entry["normalised"].items()
            }
            entry["withheld"] = reason
    return layers


def _is_database(run: Run) -> bool:
    return str((run.engine or {}).get("name") or "fio") != "fio"


def _read_metric(run: Run) -> str:
    metric = run.slo["metric"]
    return metric if metric.startswith("read_") else "read_lat_p99_ms"


def _text(
    normalised: dict[str, float | None],
    held: dict[str, str],
    names: dict[str, str],
    bounds: dict[str, tuple[float, float]] | None = None,
) -> str:
    """The factor line, each latency with its statistic and each throughput with its
    interval, or why no factor was computed."""
    whole = guard.summary_reason(held)
    if whole:
        return f"not computed: {whole}"
    return spreads.remark_once(factor_text(normalised, held, names, bounds))


def _bounded(
    entry: dict[str, Any],
    base: dict[str, float | None],
    held: dict[str, str],
    run_sure: dict[str, Any],
    base_sure: dict[str, Any],
) -> dict[str, tuple[float, float]]:
    """Set the entry's normalised figures, its intervals and what they withhold (`held`
    gains every figure whose interval includes 1); the intervals of the figures shown."""
    normalised = guard.apply(_normalise(entry["values"], base), held)
    bounds = spreads.intervals(normalised, run_sure, base_sure)
    held.update(spreads.held_by_interval(normalised, bounds))
    entry["normalised"] = guard.apply(normalised, held)
    entry["withheld"] = held
    entry["intervals"] = spreads.as_factors(bounds)
    return {k: v for k, v in bounds.items() if k not in held}


def _same_load(
    runs: Sequence[Run],
    labels: list[str],
    base_index: int,
    base_point: dict[str, Any] | None,
    database: bool,
    words: dict[str, str],
) -> dict[str, Any] | None:
    """Every run at the baseline's knee load (its peak load when it has no knee within
    the SLO): values, normalised, factors."""
    load = base_point.get("load") if base_point else None
    if load is None:
        return None
    base_run = runs[base_index]
    basis = basis_of(base_run)
    kind = base_point.get("kind") if base_point else None
    values = [values_at_load(run, load) for run in runs]
    rests = [
        (run, label, guard.points_at(run, load)) for run, label in zip(runs, labels, strict=True)
    ]
    entries, bounds = [], []
    sure = [
        spreads.estimates(points, v, _read_metric(r))
        for (r, _, points), v in zip(rests, values, strict=True)
    ]
    for i, (label, v) in enumerate(zip(labels, values, strict=True)):
        pair = [rests[i], rests[base_index]]
        held = guard.withheld(pair, v, values[base_index], database, load, load_all=True)
        entry = {"label": label, "values": v}
        bounds.append(_bounded(entry, values[base_index], held, sure[i], sure[base_index]))
        entry["flags"] = spreads.flags(pair, database) if i != base_index else []
        entries.append(entry)
    return {
        "load": {"kind": kind, "value": load},
        "load_words": load_words(kind, load, database),
        "basis": f"the baseline's {basis_load(basis)}",
        "runs": entries,
        "factors": [
            {
                "label": e["label"],
                "text": spreads.flag_text(
                    _text(e["normalised"], e["withheld"], words, bounds[i]), e["flags"]
                ),
                "intervals": e["intervals"],
                "flags": e["flags"],
            }
            for i, e in enumerate(entries)
            if i != base_index
        ],
    }
