"""The words of a comparison: factors, the load a figure was taken at, each latency's
statistic and unit, and the headline lines. Only true words: a load is named as it is
(an IO/s rate is a rate, not a queue depth), a peak is not called a knee, and a figure
that could not be computed says why instead of reading x0 or x1."""

from __future__ import annotations

from typing import Any

from dbstor.analysis.curve import curve_points, find_knee

_LATENCY_STATS = {"mean": "mean", "p50": "p50", "p95": "p95", "p99": "p99", "p999": "p99.9"}


def load_words(kind: str | None, value: float | None, database: bool = False) -> str:
    """A load as it is: 'QD 4', '8 users', '2 instances', '3 streams', '4 jobs',
    '47,160 IO/s' (a rate of I/Os) or '800 txn/s' (a rate of transactions)."""
    if value is None:
        return "no load"
    number = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    if kind == "iodepth":
        return f"QD {number}"
    if kind == "rate":
        return f"{number} {'txn/s' if database else 'IO/s'}"
    if kind in ("users", "instances", "streams", "jobs"):
        single = {"users": "user", "instances": "instance", "streams": "stream", "jobs": "job"}
        return f"{number} {single[kind] if value == 1 else kind}"
    return f"{kind or 'load'} {number}"


def basis_of(run: Any) -> str:
    """The word for what a run's own figures were taken at: 'knee' where the curve crossed
    its SLO, 'highest load' where every finished point was within it (the knee lies
    beyond: it was not reached, so it is not named a knee), else 'peak' (its highest
    throughput: no point within the SLO, or every point within it and the most throughput
    at a lower load than the highest)."""
    knee = find_knee(run.points, run.slo["metric"], run.slo["limit_ms"])
    if not knee or knee.get("load") is None:
        return "peak"
    if not knee.get("beyond_last"):
        return "knee"
    curve = curve_points(run.points)
    top = curve[-1].load.value if curve else None
    # every point within the SLO, but the most throughput at a lower load than the highest
    # (a saturated host carried less at the top): that point is the run's peak
    return "highest load" if top is None or knee["load"] >= top else "peak"


FACTORS_AT = "knee (its peak when it has none, its highest load when all were within the SLO)"


def basis_load(basis: str) -> str:
    """'knee load', 'peak load', 'highest load': the load a basis names."""
    return basis if basis.endswith(" load") else f"{basis} load"


def latency_name(metric: str, database: bool) -> str:
    """'p99 read latency (ms)' for read_lat_p99_ms; 'mean device read latency (ms)' for a
    database run's read_lat_mean_ms (the device's await)."""
    parts = metric.split("_")
    stat = _LATENCY_STATS.get(parts[2], parts[2]) if len(parts) == 4 else "p99"
    where = "device " if database else ""
    return f"{stat} {where}read latency (ms)"


_CPU_NAMES = {
    "the database server's own processes": "server's own CPU (%)",
    "the engine's own (client) processes": "engine's own CPU (%)",
    "the whole host": "host CPU (%)",
}


def cpu_name(cpu_from: str) -> str:
    """The CPU column's name for whose CPU it is (attribution.cpu_from): 'server's own CPU
    (%)' for a managed server's processes, 'host CPU (%)' for the whole host's, and a name
    that says so where the runs' CPU figures are of different kinds."""
    return _CPU_NAMES.get(cpu_from, f"CPU (%): {cpu_from}")


def metric_names(
    read_metric: str, database: bool, cpu_from: str = "the whole host"
) -> dict[str, str]:
    """Every compared figure's name with its statistic and unit, as tables head them; the
    CPU's names whose it is (attribution.cpu_from)."""
    return {
        "throughput": "throughput (per s)",
        "iops": "device IOPS" if database else "IOPS",
        "tps": "TPS",
        "read_lat_ms": latency_name(read_metric, database),
        "cpu_pct": cpu_name(cpu_from),
        "response_ms": "mean response time (ms)",
    }


def latency_words(names: dict[str, str]) -> dict[str, str]:
    """The latencies' names for a factor line: metric_names without their unit."""
    return {
        key: names[key].replace(" (ms)", "")
        for key in ("read_lat_ms", "response_ms")
        if key in names
    }


def factor(normalised: float) -> str:
    """A factor from a value normalised to 100, to three significant figures as the seeds
    write them (x1.15, x1.78, x4, x0.143)."""
    return f"x{float(f'{normalised / 100:.3g}'):g}"


def factor_text(
    normalised: dict[str, float | None],
    withheld: dict[str, str] | None = None,
    latency: dict[str, str] | None = None,
    intervals: dict[str, tuple[float, float]] | None = None,
) -> str:
    """'read latency -95%, IOPS x4, CPU x4.12, response time x0.143' from values
    normalised to 100; a figure withheld says so and why ('CPU not computed: ...'), and
    then the figures are set apart by semicolons. `latency` names the latencies with
    their statistic ({'read_lat_ms': 'p99 read latency'}). A figure with an interval
    (normalised, baseline = 100) reads as the seeds quote it: 'IOPS x4.1 (3.8-4.4)'."""
    withheld, intervals = withheld or {}, intervals or {}
    words = {
        "read_lat_ms": "read latency",
        "tps": "transactions",
        "iops": "IOPS",
        "cpu_pct": "CPU",
        "response_ms": "response time",
        **(latency or {}),
    }
    parts = []
    for key, word in words.items():
        value = normalised.get(key)
        if key in withheld:
            parts.append(f"{word} not computed: {withheld[key]}")
        elif value is None:
            continue
        elif key == "read_lat_ms":
            change = f"{word} {value - 100:+.0f}%"
            if key in intervals:
                low, high = intervals[key]
                change += f" ({low - 100:+.0f}% to {high - 100:+.0f}%)"
            parts.append(change)
        elif key in intervals:
            low, high = intervals[key]
            parts.append(f"{word} {factor(value)} ({factor(low)[1:]}-{factor(high)[1:]})")
        else:
            parts.append(f"{word} {factor(value)}")
    joiner = "; " if withheld else ", "
    return joiner.join(parts) or "no comparable figures"


def verdict(
    comparable: bool,
    warnings: list[str],
    same_load: dict[str, Any] | None,
    refused: str | None,
    factors: list[dict[str, Any]],
    baseline: str,
) -> dict[str, Any]:
    """The headline: factors at the same load first, then at each run's own knee (or
    peak); no verdict at all when the runs are not comparable, only the reason."""
    if not comparable:
        return {"lines": [], "reason": "; ".join(warnings) or "the runs are not comparable"}
    lines = []
    if same_load:
        lines += [
            {
                "lead": f"{f['label']} vs {baseline} at the same load "
                f"({same_load['load_words']}, {same_load['basis']})",
                "text": f["text"],
            }
            for f in same_load["factors"]
        ]
    elif refused:
        lines.append({"lead": "no comparison at the same load", "text": refused})
    for f in factors:
        latency = f.get("latency_at")
        lead = (
            f"{f['label']} at its own {f.get('basis') or 'knee'} vs {baseline} at its own "
            f"{f.get('baseline_basis') or 'knee'}"
        )
        lines.append(
            {
                # the latency factor is read at one load for both, not at each own figure
                "lead": f"{lead} (read latency at one load for both: {latency})"
                if latency
                else lead,
                "text": f["text"],
            }
        )
    return {"lines": lines, "reason": None}
