"""One io load point measured from a plain description, on whichever host runs it.

`IoPoint` says what fio runs (profile, files, queue depth, jobs, rate, duration, warm-up)
and when to start; `measure_io_point` runs fio there with /proc telemetry beside it and
returns an `IoOutcome`: fio's totals and json+ latency bins (mergeable), its per-second
IOPS, the host's samples and its CPU and device figures over the measured window, and the
job file that was run. Both convert to and from plain dicts, so the point can be measured
on another host. Nothing here knows the results folder, the terminal or the report.
"""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from dbstor.drivers.fio_job import PointSpec, build_point_job
from dbstor.drivers.fio_output import FioRun, json_objects
from dbstor.drivers.fio_runner import EngineUnavailable, run_job
from dbstor.drivers.fio_status import status_figures
from dbstor.errors import PointFailed
from dbstor.events.schedule import point_events
from dbstor.lifeline import boot_id, scratch_dir
from dbstor.results.model import CpuStats, DeviceStats
from dbstor.runs.measuring import sample_rows, wait_until
from dbstor.study.profiles import Profile
from dbstor.telemetry.sampler import Sampler

FALLBACK_ENGINE = "libaio"
Running = Callable[[dict[str, Any]], None]  # gets fio's running figures while it runs
# fio's statuses grow its scratch output (about 35 KB a job each, json+): once a second up
# to a 5-minute point, less often beyond, so that a long point's output stays bounded.
MAX_STATUSES = 300


def profile_to_dict(profile: Profile) -> dict[str, Any]:
    return asdict(profile)


def profile_from_dict(data: dict[str, Any]) -> Profile:
    data = dict(data)
    data["block_split"] = tuple(tuple(pair) for pair in data.get("block_split", ()))
    data["default_series"] = tuple(data.get("default_series", ()))
    return Profile(**data)


@dataclass(frozen=True)
class IoPoint:
    """What one fio run at one load point does, as plain data."""

    name: str  # the job's name, e.g. point-03 or point-03-r2
    profile: Profile
    files: tuple[str, ...]
    file_size: int  # bytes per file; 0 for a block device
    iodepth: int
    jobs: int
    duration_s: float
    warmup_s: float
    direct: bool = True
    rate_iops: float | None = None  # open loop: total IOPS across all jobs
    ioengine: str | None = None  # overrides the profile's engine
    devices: tuple[str, ...] = ()  # /proc/diskstats names to sample, top device first
    where: str = ""  # the target as the user named it, for messages
    data_options: tuple[tuple[str, str], ...] = ()  # fio's options for the data written
    start_at: float | None = None  # epoch seconds on the measuring host: start then
    live: bool = False  # fio prints its status once a second, for live figures
    events: tuple[dict[str, Any], ...] = ()  # study/events.py EventSpec dicts
    event_paths: tuple[str, ...] = ()  # the target's data paths, where events act
    max_s: float | None = None  # held until steady by fio's steadystate, up to this long

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["profile"] = profile_to_dict(self.profile)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IoPoint:
        data = dict(data)
        data["profile"] = profile_from_dict(data["profile"])
        data["files"] = tuple(data["files"])
        data["devices"] = tuple(data.get("devices", ()))
        data["data_options"] = tuple(tuple(pair) for pair in data.get("data_options", ()))
        data["events"] = tuple(data.get("events", ()))
        data["event_paths"] = tuple(data.get("event_paths", ()))
        return cls(**data)

    def spec(self, log_name: str | None) -> PointSpec:
        return PointSpec(
            profile=self.profile,
            files=tuple(Path(f) for f in self.files),
            file_size=self.file_size,
            iodepth=self.iodepth,
            jobs=self.jobs,
            duration_s=self.duration_s,
            warmup_s=self.warmup_s,
            direct=self.direct,
            rate_iops=self.rate_iops,
            ioengine=self.ioengine,
            iops_log=Path(log_name) if log_name else None,
            data_options=self.data_options,
            steady_max_s=self.max_s,
        )


@dataclass
class IoOutcome:
    """What one fio run at one point measured on one host, as plain data."""

    fio: FioRun
    read_iops_per_second: list[float]  # fio's own, summed over jobs, measured seconds
    write_iops_per_second: list[float]
    samples: list[dict[str, Any]]  # the host's telemetry, one row a second
    cpu: CpuStats
    device: DeviceStats | None
    job_text: str  # the job file that ran (rerunnable with plain fio)
    output_text: str  # fio's json+ output
    ioengine: str
    started_at: float  # epoch seconds on the measuring host when fio was started
    wall_s: float
    host: str = field(default_factory=socket.gethostname)
    boot_id: str = field(default_factory=boot_id)  # one machine's hosts share one device
    notes: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # events/schedule.py records
    # the reads' latency histogram of each measured second, fio's own (drivers/fio_hist.py)
    read_hist_per_second: list[dict[int, int]] = field(default_factory=list)
    # held until steady by rounds (an io point on several hosts, cluster/io.py): windows run,
    # seconds the point ran, its maximum, and the warm-up before the last (measured) window
    rounds: int | None = None
    ran_s: float | None = None
    max_s: float | None = None
    window_warmup_s: float | None = None

    @property
    def iops(self) -> float:
        return self.fio.read.iops + self.fio.write.iops

    def iops_per_second(self) -> list[float]:
        """fio's reads and writes of each measured second, added."""
        reads, writes = self.read_iops_per_second, self.write_iops_per_second
        return [a + b for a, b in zip(reads, writes, strict=False)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "io",
            "fio": self.fio.to_dict(),
            "read_iops_per_second": list(self.read_iops_per_second),
            "write_iops_per_second": list(self.write_iops_per_second),
            "read_hist_per_second": [
                {str(k): v for k, v in bins.items()} for bins in self.read_hist_per_second
            ],
            "samples": [dict(s) for s in self.samples],
            "cpu": asdict(self.cpu),
            "device": asdict(self.device) if self.device else None,
            "job_text": self.job_text,
            "output_text": self.output_text,
            "ioengine": self.ioengine,
            "started_at": self.started_at,
            "wall_s": self.wall_s,
            "host": self.host,
            "boot_id": self.boot_id,
            "notes": list(self.notes),
            "events": list(self.events),
            "rounds": self.rounds,
            "ran_s": self.ran_s,
            "max_s": self.max_s,
            "window_warmup_s": self.window_warmup_s,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IoOutcome:
        return cls(
            fio=FioRun.from_dict(data["fio"]),
            read_iops_per_second=list(data["read_iops_per_second"]),
            write_iops_per_second=list(data["write_iops_per_second"]),
            read_hist_per_second=[
                {int(k): int(v) for k, v in bins.items()}
                for bins in data.get("read_hist_per_second") or []
            ],
            samples=list(data["samples"]),
            cpu=CpuStats(**data["cpu"]),
            device=DeviceStats(**data["device"]) if data.get("device") else None,
            job_text=data["job_text"],
            output_text=data["output_text"],
            ioengine=data["ioengine"],
            started_at=float(data["started_at"]),
            wall_s=float(data["wall_s"]),
            host=data.get("host", ""),
            boot_id=data.get("boot_id", ""),
            notes=list(data.get("notes", [])),
            events=list(data.get("events", [])),
            rounds=data.get("rounds"),
            ran_s=data.get("ran_s"),
            max_s=data.get("max_s"),
            window_warmup_s=data.get("window_warmup_s"),
        )


class FioRan(NamedTuple):
    """One fio run: its parsed result, the job file, fio's output, the engine that ran, and
    the note when io_uring was refused and libaio ran instead."""

    result: Any
    job_text: str
    output: str
    engine: str
    fallback_note: str | None = None


def run_fio(point: IoPoint, timeout_s: float, on_running: Running | None = None) -> FioRan:
    """Run the point's job once in a scratch folder; when io_uring cannot run here, the
    same job runs again on libaio. With point.live and `on_running`, fio's running
    figures (fio_status.status_figures) go to on_running once a second."""
    engine = point.ioengine or point.profile.ioengine
    try:
        return FioRan(*_run_in_scratch(point, timeout_s, on_running), engine)
    except EngineUnavailable as exc:
        if engine != "io_uring":
            raise PointFailed(f"fio's I/O engine is unavailable: {exc}") from None
        ran = _run_in_scratch(replace(point, ioengine=FALLBACK_ENGINE), timeout_s, on_running)
        note = f"io_uring is unavailable here ({exc}); fell back to libaio"
        return FioRan(*ran, FALLBACK_ENGINE, note)


def _run_in_scratch(
    point: IoPoint, timeout_s: float, on_running: Running | None
) -> tuple[Any, str, str]:
    on_status = None
    if point.live and on_running is not None:

        def on_status(status: dict[str, Any]) -> None:
            figures = status_figures(status, point.warmup_s)
            if figures is not None:
                on_running(figures)

    with scratch_dir("dbstor-fio-") as scratch:
        job_file = scratch / f"{point.name}.fio"
        job_text = build_point_job(point.spec(point.name))
        every = math.ceil((point.duration_s + point.warmup_s) / MAX_STATUSES)
        result = run_job(job_text, job_file, point.where, timeout_s, on_status, every)
        output = job_file.with_suffix(".json").read_text(encoding="utf-8")
    return result, job_text, output


def measure_io_point(
    point: IoPoint, sampler: Sampler | None = None, on_running: Running | None = None
) -> IoOutcome:
    """Measure one point on this host: telemetry starts, fio runs (from point.start_at),
    telemetry stops. Raises UserError for what the user must fix and PointFailed when the
    point could not be measured. `on_running(figures)`: see run_fio."""
    sampler = sampler or Sampler(point.devices)
    wait_until(point.start_at)
    events = point_events(
        point.events, point.event_paths, point.devices, point.duration_s, point.name
    )
    sampler.start()
    started_at, started = time.time(), time.monotonic()
    events.start(started + point.warmup_s)
    try:
        longest = max(point.duration_s + point.warmup_s, point.max_s or 0.0)
        ran = run_fio(point, longest + 120, on_running)
    finally:
        happened = events.stop()
        samples = sampler.stop()
    ended, wall = time.time(), time.monotonic() - started
    # the device's rates over fio's own measured window (after its ramp, before its exit),
    # so that fio's figures and the device's compare like with like (foreign I/O)
    end_s = wall - max(0.0, ended - fio_end(ran.output, ended))
    start_s = end_s - ran.result.run.runtime_s
    if ran.result.run.runtime_s > 0 and start_s > 0:
        cpu, device = sampler.summarise(samples, start_s, end_s, interpolate=True)
        shift_events(happened, start_s - point.warmup_s)
    else:
        cpu, device = sampler.summarise(samples, start_s=point.warmup_s)
    result = ran.result
    return IoOutcome(
        fio=result.run,
        read_iops_per_second=result.read_iops_per_second,
        write_iops_per_second=result.write_iops_per_second,
        read_hist_per_second=result.read_hist_per_second,
        samples=sample_rows(samples),
        cpu=cpu,
        device=device,
        job_text=ran.job_text,
        output_text=ran.output,
        ioengine=ran.engine,
        started_at=started_at,
        wall_s=wall,
        notes=[ran.fallback_note] if ran.fallback_note else [],
        events=happened,
    )


def shift_events(records: list[dict[str, Any]], shift_s: float) -> None:
    """Event times into fio's own measured window, which began shift_s after the planned
    one (fio's start-up), so that they line up with fio's per-second IOPS."""
    for record in records:
        record["window_shift_s"] = round(shift_s, 3)
        for key in ("started_s", "ended_s"):
            if record.get(key) is not None:
                record[key] = round(record[key] - shift_s, 3)


def fio_end(output: str, fallback: float) -> float:
    """The epoch time fio wrote its result (`timestamp_ms`, the end of its measured
    window); `fallback` when its output does not say."""
    try:
        objects = json_objects(output)
        stamp = objects[-1].get("timestamp_ms") if objects else None
    except (ValueError, AttributeError):
        return fallback
    return stamp / 1000.0 if isinstance(stamp, int | float) and stamp > 0 else fallback
