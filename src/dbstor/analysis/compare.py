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

from dbstor.analysis.attribution import server_cpu
from dbstor.analysis.curve import curve_points, find_knee, find_peak, slo_value, value_at_knee
from dbstor.analysis.dss_compare import compare_query_runs, is_query_run
from dbstor.analysis.labels import baseline_index, run_label
from dbstor.analysis.layers import compare_layers
from dbstor.results.model import Point, Run

__all__ = ["METRICS", "comparability_warnings", "compare_runs", "factor_text", "run_label"]

METRICS = ("throughput", "iops", "tps", "read_lat_ms", "cpu_pct", "response_ms")


def _cpu(p: Point) -> float | None:
    """The database's own CPU where counted, else the host's (attribution.server_cpu)."""
    return server_cpu(p.cpu)[0]


def cpu_from(runs: Sequence[Run]) -> str:
    """Whose CPU the comparison's CPU figures are."""
    kinds = {server_cpu(p.cpu)[1] for r in runs for p in r.points if p.ok and p.cpu}
    return " and ".join(sorted(kinds - {"not measured"})) or "not measured"


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
    metric, limit = run.slo["metric"], run.slo["limit_ms"]
    knee = find_knee(run.points, metric, limit)
    if knee and knee.get("load") is not None:
        return "knee", knee
    return "peak", find_peak(run.points)


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


def factor(normalised: float) -> str:
    """A factor from a value normalised to 100, to three significant figures as the seeds
    write them (x1.15, x1.78, x4, x0.143)."""
    return f"x{float(f'{normalised / 100:.3g}'):g}"


def factor_text(normalised: dict[str, float | None]) -> str:
    """'read latency -95%, IOPS x4, CPU x4.12, response time x0.143' from values
    normalised to 100."""
    parts = []
    if normalised.get("read_lat_ms") is not None:
        parts.append(f"read latency {normalised['read_lat_ms'] - 100:+.0f}%")
    if normalised.get("tps") is not None:
        parts.append(f"transactions {factor(normalised['tps'])}")
    if normalised.get("iops") is not None:
        parts.append(f"IOPS {factor(normalised['iops'])}")
    if normalised.get("cpu_pct") is not None:
        parts.append(f"CPU {factor(normalised['cpu_pct'])}")
    if normalised.get("response_ms") is not None:
        parts.append(f"response time {factor(normalised['response_ms'])}")
    return ", ".join(parts) or "no comparable figures"


def comparability_warnings(runs: Sequence[Run]) -> tuple[bool, list[str]]:
    """Whether the runs can be set side by side, and what differs between them."""
    warnings = []
    comparable = True

    def distinct(getter: Any) -> list[Any]:
        seen = []
        for r in runs:
            value = getter(r)
            if value not in seen:
                seen.append(value)
        return seen

    workloads = distinct(lambda r: r.workload.get("name"))
    if len(workloads) > 1:
        comparable = False
        warnings.append(
            f"different workloads ({', '.join(map(str, workloads))}): figures are not like for like"
        )
    checks = (
        ("scale", lambda r: r.workload.get("scale")),
        ("data written (--data)", _data_written),
        ("test file sizes", lambda r: r.workload.get("file_size_bytes")),
        ("durations per point", lambda r: r.study.get("duration_s")),
        ("SLOs", lambda r: (r.slo.get("metric"), r.slo.get("limit_ms"))),
        (
            "load points",
            lambda r: sorted((p.load.kind, p.load.value) for p in curve_points(r.points)),
        ),
    )
    for what, getter in checks:
        values = distinct(getter)
        if len(values) > 1:
            warnings.append(f"the runs differ in {what}: compare with care")
    return comparable, warnings


def _data_written(run: Run) -> tuple[Any, ...]:
    """What an io run wrote: kind, compression, dedup (runs before --data: incompressible)."""
    data = run.workload.get("data") or {}
    return (
        data.get("kind", "incompressible"),
        data.get("compression", 1.0),
        data.get("dedupe_pct", 0.0),
    )


def _drives(run: Run) -> float | None:
    facts = run.target.get("facts") or {}
    for key in ("drives", "drive_count", "disks"):
        value = facts.get(key)
        if isinstance(value, int | float) and value > 0:
            return float(value)
    return None


def _matched(runs: Sequence[Run], labels: list[str], baseline: int) -> list[dict[str, Any]]:
    common = None
    for run in runs:
        loads = {(p.load.kind, p.load.value) for p in curve_points(run.points)}
        common = loads if common is None else common & loads
    rows = []
    for kind, value in sorted(common or ()):
        per_label: dict[str, dict[str, float | None]] = {}
        for run, label in zip(runs, labels, strict=True):
            point = next(
                p for p in curve_points(run.points) if (p.load.kind, p.load.value) == (kind, value)
            )
            per_label[label] = point_values(run, point)
        base = per_label[labels[baseline]]
        rows.append(
            {
                "load": {"kind": kind, "value": value},
                "values": per_label,
                "normalised": {label: _normalise(v, base) for label, v in per_label.items()},
            }
        )
    return rows


def compare_runs(runs: Sequence[Run], baseline: str | None = None) -> dict[str, Any]:
    """Normalise every run to the baseline run (= 100); see the module docstring."""
    if runs and all(is_query_run(r) for r in runs):  # query runs: total elapsed time
        return compare_query_runs(runs, baseline)
    labels = [run_label(r, runs) for r in runs]
    base_index = baseline_index(runs, labels, baseline)
    base_run = runs[base_index]
    _, base_point = _at_basis(base_run)
    latency_load = base_point.get("load") if base_point else None
    comparable, warnings = comparability_warnings(runs)

    entries = []
    for run, label in zip(runs, labels, strict=True):
        basis, point = _at_basis(run)
        entries.append(
            {
                "label": label,
                "run_id": run.run_id,
                "workload": run.workload.get("name"),
                "basis": basis,
                "values": _values(run, point, latency_load),
            }
        )
    base_values = entries[base_index]["values"]
    for entry in entries:
        entry["normalised"] = _normalise(entry["values"], base_values)

    factors = [
        {"label": e["label"], "text": factor_text(e["normalised"])}
        for i, e in enumerate(entries)
        if i != base_index
    ]
    per_disk = []
    base_drives = _drives(base_run)
    for i, (run, entry) in enumerate(zip(runs, entries, strict=True)):
        drives = _drives(run)
        perf = entry["normalised"].get("throughput")
        if i == base_index or not base_drives or not drives or perf is None:
            continue
        reduction = base_drives / drives
        per_disk.append(
            {
                "label": entry["label"],
                "drives": drives,
                "baseline_drives": base_drives,
                "drive_reduction": reduction,
                "performance_factor": perf / 100.0,
                "per_disk_efficiency": reduction * perf / 100.0,
            }
        )
    same_load = _same_load(runs, labels, base_index, base_run, base_point)
    comparison = {
        "baseline": labels[base_index],
        "comparable": comparable,
        "warnings": warnings,
        "latency_at_load": latency_load,
        "runs": entries,
        "matched": _matched(runs, labels, base_index),
        "same_load": same_load,
        "factors": factors,
        "factors_at": "each run's own knee (its peak when it has none); latency at the baseline's knee load",
        "per_disk": per_disk,
        "cpu_from": cpu_from(runs),
        "verdict": _verdict(comparable, warnings, same_load, factors, labels[base_index]),
    }
    # Each layer (client, devices, storage) at the same load, baseline's layer = 100.
    layers = compare_layers(runs, labels, labels[base_index], (same_load or {}).get("load"))
    if layers is not None:
        comparison["layers"] = layers
    return comparison


def _same_load(
    runs: Sequence[Run],
    labels: list[str],
    base_index: int,
    base_run: Run,
    base_point: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """Every run at the baseline's knee load: values, normalised, factors."""
    load = base_point.get("load") if base_point else None
    if load is None:
        return None
    basis = (
        "knee"
        if find_knee(base_run.points, base_run.slo["metric"], base_run.slo["limit_ms"])
        else "peak"
    )
    kinds = {p.load.kind for p in curve_points(base_run.points)}
    values = [values_at_load(run, load) for run in runs]
    entries = [
        {"label": label, "values": v, "normalised": _normalise(v, values[base_index])}
        for label, v in zip(labels, values, strict=True)
    ]
    return {
        "load": {"kind": next(iter(kinds)) if len(kinds) == 1 else None, "value": load},
        "basis": f"the baseline's {basis} load",
        "runs": entries,
        "factors": [
            {"label": e["label"], "text": factor_text(e["normalised"])}
            for i, e in enumerate(entries)
            if i != base_index
        ],
    }


def _verdict(
    comparable: bool,
    warnings: list[str],
    same_load: dict[str, Any] | None,
    factors: list[dict[str, Any]],
    baseline: str,
) -> dict[str, Any]:
    """The headline: factors at the same load first, then at each run's own knee; no
    verdict at all when the runs are not comparable, only the reason."""
    if not comparable:
        return {"lines": [], "reason": "; ".join(warnings) or "the runs are not comparable"}
    lines = []
    if same_load:
        load = same_load["load"]
        value = f"{load['value']:.3g}"
        what = f"{load['kind']} {value}" if load["kind"] else f"load {value}"
        lines += [
            {
                "lead": f"{f['label']} vs {baseline} at the same load ({what}, {same_load['basis']})",
                "text": f["text"],
            }
            for f in same_load["factors"]
        ]
    lines += [
        {"lead": f"{f['label']} vs {baseline} at each run's own knee", "text": f["text"]}
        for f in factors
    ]
    return {"lines": lines, "reason": None}
