"""Build fio job files for one load point (and for laying out the test files).

Job files, not command-line flags: each point's job file is kept in the run folder so a
user can rerun exactly what dbstor ran with plain fio.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dbstor.analysis.trust import STEADY_MAX_DRIFT_PCT
from dbstor.drivers.fio_text import fio_paths, job_line
from dbstor.study.profiles import Profile


@dataclass(frozen=True)
class PointSpec:
    """What one fio run at one load point does."""

    profile: Profile
    files: tuple[Path, ...]
    file_size: int  # bytes per file; 0 for a block device (use it whole)
    iodepth: int
    jobs: int
    duration_s: float
    warmup_s: float
    direct: bool = True
    rate_iops: float | None = None  # open loop: total IOPS across all jobs
    ioengine: str | None = None  # overrides the profile's engine (e.g. fallback to libaio)
    iops_log: Path | None = None
    data_options: tuple[tuple[str, str], ...] = ()  # what writes write (study/data.py)
    steady_max_s: float | None = None  # fio's steadystate: until steady, up to this long


def _block_sizes(profile: Profile) -> str:
    if not profile.block_split:
        return job_line("bs", profile.block_size)
    parts = [f"{size}/{pct:g}" for size, pct in profile.block_split]
    return job_line("bssplit", ":".join(parts))


def runtime_s(spec: PointSpec) -> int:
    """fio's runtime (after its ramp): the measured window, or, held until steady, the
    longest the point may run less its warm-up."""
    window = max(1, round(spec.duration_s))
    if not steady_options(spec):
        return window
    return max(window, round(spec.steady_max_s - max(0.0, spec.warmup_s)))


def steady_options(spec: PointSpec) -> list[tuple[str, object]]:
    """fio's own steady-state test over a window of the point's duration (`ss_dur`), from
    the end of the warm-up (`ramp_time`; `ss_ramp` 0): the least-squares slope of IOPS per
    second within STEADY_MAX_DRIFT_PCT / (seconds - 1) % of their mean, which is dbstor's
    drift limit (analysis/trust.py) across the window. fio ends the job once it holds."""
    window = max(1, round(spec.duration_s))
    if spec.steady_max_s is None or window < 3:
        return []
    limit = STEADY_MAX_DRIFT_PCT / (window - 1)
    return [("steadystate", f"iops_slope:{limit:.4g}%"), ("ss_dur", f"{window}s"), ("ss_ramp", 0)]


def build_point_job(spec: PointSpec) -> str:
    """The fio job file for one load point."""
    profile = spec.profile
    engine = spec.ioengine or profile.ioengine
    options: list[tuple[str, object]] = [
        ("ioengine", engine),
        ("direct", int(spec.direct)),
        ("rw", profile.rw),
    ]
    tail: list[tuple[str, object]] = [
        ("allow_file_create", 0),  # files are laid out beforehand; never create others
        ("time_based", 1),
        ("runtime", f"{runtime_s(spec)}s"),
        ("numjobs", spec.jobs),
        ("group_reporting", 0),  # per-job histograms; dbstor merges them itself
        ("randrepeat", 0),
        ("norandommap", 1),
    ]
    if spec.warmup_s >= 1:
        tail.append(("ramp_time", f"{round(spec.warmup_s)}s"))
    tail += steady_options(spec)
    if spec.file_size:
        tail.append(("filesize", spec.file_size))
    if engine not in ("psync", "sync"):
        tail.append(("iodepth", spec.iodepth))
    if 0 < profile.read_pct < 100:
        tail.append(("rwmixread", f"{profile.read_pct:g}"))
    if profile.pattern == "random" and profile.distribution != "uniform":
        tail.append(("random_distribution", profile.distribution))
    if len(spec.files) > 1:
        tail.append(("file_service_type", "random"))
    if profile.fdatasync:
        tail.append(("fdatasync", profile.fdatasync))
    if profile.pattern == "sequential" and spec.jobs > 1 and spec.file_size:
        # Each job streams through its own slice instead of all chasing the same offsets.
        slice_size = spec.file_size // spec.jobs // 4096 * 4096
        tail += [("size", slice_size * len(spec.files)), ("offset_increment", slice_size)]
    if spec.rate_iops:
        per_job = spec.rate_iops / spec.jobs
        reads = per_job * profile.read_pct / 100
        writes = per_job - reads
        tail += [
            ("rate_iops", f"{max(1, round(reads))},{max(1, round(writes))}"),
            ("rate_process", "poisson"),
        ]
    if spec.iops_log is not None:
        tail += [("write_iops_log", spec.iops_log), ("log_avg_msec", 1000)]
        # each second's latency histogram: the interval of a tail percentile (fio_hist.py)
        tail += [("write_hist_log", spec.iops_log), ("log_hist_msec", 1000)]
    tail += [*spec.data_options, *profile.extra.items()]
    lines = [
        "[global]",
        *(job_line(key, value) for key, value in options),
        _block_sizes(profile),
        f"filename={fio_paths(spec.files, 'test file')}",
        *(job_line(key, value) for key, value in tail),
    ]
    return "\n".join([*lines, "", "[point]", ""])


def build_layout_job(
    files: tuple[Path, ...],
    file_size: int,
    direct: bool,
    data_options: tuple[tuple[str, str], ...] = (),
) -> str:
    """A fio job that writes every test file in full: with incompressible data, or with the
    data options given (compression and dedup, study/data.py).

    Reads of never-written blocks cost the storage nothing (file systems and arrays return
    zeros without I/O), so the files are filled before any point is measured.
    """
    data = dict(data_options) or {"refill_buffers": "1"}
    options = {"ioengine": "libaio", "direct": int(direct), "rw": "write", "bs": "1m"}
    options |= {"iodepth": 8, **data, "filesize": file_size}
    return (
        "[global]\n"
        + "".join(job_line(key, value) + "\n" for key, value in options.items())
        + "\n"
        + "".join(
            f"[layout{i}]\nfilename={fio_paths((f,), 'test file')}\n\n" for i, f in enumerate(files)
        )
    )
