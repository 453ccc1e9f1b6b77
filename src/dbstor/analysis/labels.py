"""How a comparison names its runs and finds its baseline: shared by the comparison of
load curves (compare.py) and of query runs (dss_compare.py)."""

from __future__ import annotations

from collections.abc import Sequence

from dbstor.results.model import Run


def run_label(run: Run, runs: Sequence[Run]) -> str:
    """The target label, plus the workload when the runs differ in workload."""
    label = str(run.target.get("label", run.run_id))
    workloads = {r.workload.get("name") for r in runs}
    labels = [str(r.target.get("label")) for r in runs]
    if len(workloads) > 1 or labels.count(label) > 1:
        return f"{label} {run.workload.get('name')}"
    return label


def baseline_index(runs: Sequence[Run], labels: Sequence[str], baseline: str | None) -> int:
    """Which run is the baseline: the first whose label, run id or target label is
    `baseline`; the first run when none is (or none was asked for)."""
    if baseline is None:
        return 0
    matches = [
        i
        for i, r in enumerate(runs)
        if baseline in (labels[i], r.run_id, (r.target or {}).get("label"))
    ]
    return matches[0] if matches else 0


WORKLOAD_METRICS = {  # a workload's own figure: (terminal words, table heading)
    "nopm": ("NOPM", "NOPM|new orders/min"),
    "tpm": ("TPM", "TPM|txn/min"),
    "rows_read_per_s": ("rows read/s", "rows read|per second"),
    "rows_updated_per_s": ("rows updated/s", "rows updated|per second"),
    "visit_latency_ms_mean": ("ms/visit", "visit latency|mean ms"),
}


def workload_metric_words(key: str) -> tuple[str, str]:
    """How a workload's own figure is named: (words for the terminal line, table heading);
    a key no workload declared reads as words ('queries_per_hour' -> 'queries per hour'),
    never as the raw key."""
    if key in WORKLOAD_METRICS:
        return WORKLOAD_METRICS[key]
    words = key.replace("_per_s", " per second").replace("_ms_", " ms ").replace("_", " ")
    return words, words
