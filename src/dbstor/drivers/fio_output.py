"""fio's json+ output -> per-direction totals and merged latency histograms."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram, merge_all


@dataclass
class DirectionTotals:
    """One direction (read or write) summed over all jobs of one fio run."""

    ios: int = 0
    io_bytes: int = 0
    iops: float = 0.0  # sum of per-job IOPS (each job's ios over its own runtime)
    bytes_per_s: float = 0.0
    histogram: LatencyHistogram = field(default_factory=LatencyHistogram)


@dataclass
class FioRun:
    version: str
    read: DirectionTotals
    write: DirectionTotals
    runtime_s: float  # the longest job's measured runtime
    jobs: int
    errors: list[str]
    client_cpu_pct: float  # fio's own user+system CPU, % of one core summed over jobs


def _direction(jobs: list[dict[str, Any]], key: str) -> DirectionTotals:
    totals = DirectionTotals()
    histograms = []
    for job in jobs:
        side = job.get(key) or {}
        ios = int(side.get("total_ios", 0))
        totals.ios += ios
        totals.io_bytes += int(side.get("io_bytes", 0))
        totals.iops += float(side.get("iops", 0.0))
        totals.bytes_per_s += float(side.get("bw_bytes", 0.0))
        clat = side.get("clat_ns") or {}
        if clat.get("N"):
            histograms.append(
                LatencyHistogram.from_fio(
                    clat.get("bins", {}), clat.get("mean", 0.0), clat["N"], clat.get("max", 0.0)
                )
            )
    totals.histogram = merge_all(histograms)
    return totals


def parse_fio_json(text: str) -> FioRun:
    """Parse fio --output-format=json+ (text before the first '{' is fio's chatter)."""
    start = text.find("{")
    if start < 0:
        raise ValueError("fio printed no JSON")
    data = json.loads(text[start:])
    jobs = data.get("jobs") or []
    if not jobs:
        raise ValueError("fio's JSON has no jobs")
    for job in jobs:
        for key in ("read", "write"):
            clat = (job.get(key) or {}).get("clat_ns") or {}
            if clat.get("N") and "bins" not in clat:
                raise ValueError(
                    "fio's JSON has no latency histogram: run fio with --output-format=json+"
                )
    errors = [
        f"job {job.get('jobname')}: error {job['error']}"
        for job in jobs
        if int(job.get("error", 0))
    ]
    return FioRun(
        version=str(data.get("fio version", "")),
        read=_direction(jobs, "read"),
        write=_direction(jobs, "write"),
        runtime_s=max(float(job.get("job_runtime", 0)) for job in jobs) / 1000.0,
        jobs=len(jobs),
        errors=errors,
        client_cpu_pct=sum(
            float(job.get("usr_cpu", 0)) + float(job.get("sys_cpu", 0)) for job in jobs
        ),
    )


def parse_iops_log(text: str) -> dict[int, list[float]]:
    """A fio iops log (log_avg_msec=1000) -> {direction (0 read, 1 write): IOPS per second}."""
    series: dict[int, list[float]] = {0: [], 1: []}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 3 and parts[2] in ("0", "1"):
            series[int(parts[2])].append(float(parts[1]))
    return series
