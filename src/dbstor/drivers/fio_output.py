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

    def to_dict(self) -> dict[str, Any]:
        return {
            "ios": self.ios,
            "io_bytes": self.io_bytes,
            "iops": self.iops,
            "bytes_per_s": self.bytes_per_s,
            "histogram": self.histogram.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DirectionTotals:
        return cls(
            ios=int(data["ios"]),
            io_bytes=int(data["io_bytes"]),
            iops=float(data["iops"]),
            bytes_per_s=float(data["bytes_per_s"]),
            histogram=LatencyHistogram.from_dict(data["histogram"]),
        )


@dataclass
class FioRun:
    version: str
    read: DirectionTotals
    write: DirectionTotals
    runtime_s: float  # the longest job's measured runtime
    jobs: int
    errors: list[str]
    client_cpu_pct: float  # fio's own user+system CPU, % of one core summed over jobs
    # fio's steadystate verdict (held until steady): attained by every job, the criterion
    # it tested, the window in seconds, the worst job's slope in % of its mean per second
    steadystate: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "read": self.read.to_dict(),
            "write": self.write.to_dict(),
            "runtime_s": self.runtime_s,
            "jobs": self.jobs,
            "errors": list(self.errors),
            "client_cpu_pct": self.client_cpu_pct,
            "steadystate": self.steadystate,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FioRun:
        return cls(
            version=str(data["version"]),
            read=DirectionTotals.from_dict(data["read"]),
            write=DirectionTotals.from_dict(data["write"]),
            runtime_s=float(data["runtime_s"]),
            jobs=int(data["jobs"]),
            errors=list(data["errors"]),
            client_cpu_pct=float(data["client_cpu_pct"]),
            steadystate=data.get("steadystate"),
        )


def merge_directions(parts: list[DirectionTotals]) -> DirectionTotals:
    """One direction's totals over several fio runs at once (hosts): counts, rates and
    histogram bins added."""
    return DirectionTotals(
        ios=sum(p.ios for p in parts),
        io_bytes=sum(p.io_bytes for p in parts),
        iops=sum(p.iops for p in parts),
        bytes_per_s=sum(p.bytes_per_s for p in parts),
        histogram=merge_all(p.histogram for p in parts),
    )


def merge_fio_runs(parts: list[FioRun]) -> FioRun:
    """Several fio runs measured over the same window (one per host) as one: every
    direction summed, the longest runtime, all jobs and errors."""
    return FioRun(
        version=parts[0].version,
        read=merge_directions([p.read for p in parts]),
        write=merge_directions([p.write for p in parts]),
        runtime_s=max(p.runtime_s for p in parts),
        jobs=sum(p.jobs for p in parts),
        errors=[e for p in parts for e in p.errors],
        client_cpu_pct=sum(p.client_cpu_pct for p in parts),
    )


def _direction(jobs: list[dict[str, Any]], key: str) -> DirectionTotals:
    """One direction summed over fio's jobs: the same merge as across hosts."""
    return merge_directions([_job_direction(job.get(key) or {}) for job in jobs])


def _job_direction(side: dict[str, Any]) -> DirectionTotals:
    clat = side.get("clat_ns") or {}
    histogram = (
        LatencyHistogram.from_fio(
            clat.get("bins", {}), clat.get("mean", 0.0), clat["N"], clat.get("max", 0.0)
        )
        if clat.get("N")
        else LatencyHistogram()
    )
    return DirectionTotals(
        ios=int(side.get("total_ios", 0)),
        io_bytes=int(side.get("io_bytes", 0)),
        iops=float(side.get("iops", 0.0)),
        bytes_per_s=float(side.get("bw_bytes", 0.0)),
        histogram=histogram,
    )


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every whole JSON object in fio's output, in order: with --status-interval fio writes
    one per interval before its final one. Text outside them is fio's chatter; an object
    still being written at the end is left out."""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    pos = text.find("{")
    while pos >= 0:
        try:
            data, end = decoder.raw_decode(text, pos)
        except ValueError:
            break
        if isinstance(data, dict):
            out.append(data)
        pos = text.find("{", end)
    return out


def final_json_text(text: str) -> str:
    """fio's final JSON object as text (the interim status objects before it dropped)."""
    objects = json_objects(text)
    if len(objects) <= 1:
        return text
    return json.dumps(objects[-1], indent=2)


def parse_fio_json(text: str) -> FioRun:
    """Parse fio --output-format=json+ (text before the first '{' is fio's chatter); with
    interim status objects before it, the last (fio's final result) counts."""
    start = text.find("{")
    if start < 0:
        raise ValueError("fio printed no JSON")
    objects = json_objects(text)
    data = objects[-1] if len(objects) > 1 else json.loads(text[start:])
    return parse_fio_data(data)


def parse_fio_data(data: dict[str, Any]) -> FioRun:
    """One decoded fio json+ object (the final result or an interim status)."""
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
        steadystate=steady_verdict(jobs),
    )


def steady_verdict(jobs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """fio's steadystate over its jobs: attained only when every job attained it; the
    criterion value (slope in % of the mean, per second) of the job furthest from it."""
    states = [job["steadystate"] for job in jobs if isinstance(job.get("steadystate"), dict)]
    if not states:
        return None
    windows = [
        [float(v) for v in (s.get("data") or {}).get("iops") or []] for s in states
    ]  # each job's IOPS over the window fio judged, one a second
    slopes = []
    for state in states:
        try:
            slopes.append(float(str(state.get("criterion", "")).rstrip("%")))
        except ValueError:
            continue
    return {
        "attained": all(int(s.get("attained", 0)) == 1 for s in states),
        "test": str(states[0].get("ss", "")),
        "window_s": int(states[0].get("duration", 0) or 0),
        "slope_pct_per_s": max(slopes, key=abs) if slopes else None,
        "iops": [sum(second) for second in zip(*windows, strict=False)] if all(windows) else None,
    }


def parse_iops_log(text: str) -> dict[int, list[float]]:
    """A fio iops log (log_avg_msec=1000) -> {direction (0 read, 1 write): IOPS per second}."""
    series: dict[int, list[float]] = {0: [], 1: []}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 3 and parts[2] in ("0", "1"):
            series[int(parts[2])].append(float(parts[1]))
    return series
