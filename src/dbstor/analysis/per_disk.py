"""h6080's per-disk efficiency: the drive-count reduction times the performance factor,
per run against the baseline, and the runs whose throughput factor was withheld."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.analysis import compare_guard as guard
from dbstor.results.model import Run


def drives_of(run: Run) -> float | None:
    facts = run.target.get("facts") or {}
    for key in ("drives", "drive_count", "disks"):
        value = facts.get(key)
        if isinstance(value, int | float) and value > 0:
            return float(value)
    return None


def per_disk(
    runs: Sequence[Run], entries: list[dict[str, Any]], base_index: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """h6080's per-disk efficiency (drive reduction x performance factor) per run, and
    the runs whose throughput factor was withheld, with the reason."""
    rows, refused = [], []
    base_drives = drives_of(runs[base_index])
    for i, (run, entry) in enumerate(zip(runs, entries, strict=True)):
        drives = drives_of(run)
        if i == base_index or not base_drives or not drives:
            continue
        reason = guard.per_disk_reason(entry["withheld"])
        perf = entry["normalised"].get("throughput")
        if reason or perf is None:
            refused.append({"label": entry["label"], "reason": reason or "no throughput"})
            continue
        reduction = base_drives / drives
        interval = (entry.get("intervals") or {}).get("throughput")
        rows.append(
            {
                "label": entry["label"],
                "drives": drives,
                "baseline_drives": base_drives,
                "drive_reduction": reduction,
                "performance_factor": perf / 100.0,
                "per_disk_efficiency": reduction * perf / 100.0,
                # the throughput factor's interval, and the efficiency's (drive counts exact)
                "performance_interval": interval,
                "per_disk_interval": [reduction * v for v in interval] if interval else None,
            }
        )
    return rows, refused
