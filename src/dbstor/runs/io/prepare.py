"""Preparing an io run's target on the host that measures it: decide the test files (and
check that dbstor may use them and that they fit), lay them out in full, and precondition
them when asked. What it did comes back as plain data, with the fio job files it ran."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dbstor.drivers.fio_job import build_layout_job
from dbstor.drivers.fio_runner import run_job
from dbstor.lifeline import scratch_dir
from dbstor.runs.io.data_check import measure_written
from dbstor.runs.io.point import IoPoint, profile_from_dict, run_fio
from dbstor.study.data import DataPattern
from dbstor.study.profiles import Profile
from dbstor.telemetry.disk import devices_for_path
from dbstor.testfiles import (
    Safety,
    TestFiles,
    check_free_space,
    create_files,
    plan_files,
    record_created,
    reusable,
    write_zero_blocks,
)
from dbstor.units import format_size

PRECONDITION_ROUNDS = 10
PRECONDITION_ROUND_S = 30  # or the point duration, when shorter


@dataclass
class Prepared:
    """The target ready for points: its files and devices, notes for the run, job files."""

    files: TestFiles
    devices: list[str]
    notes: list[str] = field(default_factory=list)
    jobs: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name: (job, output)
    written: dict[str, Any] | None = None  # the data in the files: intended vs achieved
    timings: dict[str, float] = field(default_factory=dict)  # layout_s, data_check_s, ...

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [str(f) for f in self.files.files],
            "file_size": self.files.file_size,
            "is_device": self.files.is_device,
            "direct": self.files.direct,
            "reused": self.files.reused,
            "devices": list(self.devices),
            "notes": list(self.notes),
            "jobs": {name: list(pair) for name, pair in self.jobs.items()},
            "written": self.written,
            "timings": dict(self.timings),
        }


def plan_target(setup: dict[str, Any], safety: Safety) -> Prepared:
    """The test files for this run, checked (ownership, free space) but not yet written."""
    profile = profile_from_dict(setup["profile"])
    paths = tuple(Path(p) for p in setup["paths"])
    files = plan_files(paths, profile.name, profile.files, int(setup["file_size"]), safety)
    check_free_space(files)
    prepared = Prepared(files=files, devices=devices_for_path(files.files[0]))
    if not files.direct:
        prepared.notes.append(
            "direct I/O is not supported on this file system (e.g. tmpfs): fio ran buffered, "
            "so these are page-cache speeds, not the storage's"
        )
    if not prepared.devices:
        prepared.notes.append(
            "no block device found under the target: device statistics are missing"
        )
    return prepared


def lay_out(prepared: Prepared, where: str, data: DataPattern, say: Callable[[str], None]) -> None:
    """Write every test file in full (reads of never-written blocks cost nothing) with the
    data asked for, unless an earlier run kept them; then measure what the files hold."""
    files = prepared.files
    if files.is_device:
        return
    started = time.monotonic()
    if reusable(files):
        files.reused = True
        prepared.notes.append("test files kept by an earlier run were reused")
    else:
        _write_files(prepared, where, data, say)
        zero_pct = (data.source_figures or {}).get("zero_block_pct") or 0.0
        if zero_pct > 0:  # fio writes no zero blocks: the source's share, written by dbstor
            zeroed = write_zero_blocks(files, zero_pct)
            prepared.notes.append(
                f"{zeroed:,} blocks of 8 KiB zeroed after layout: the source's "
                f"{zero_pct:.1f}% zero blocks (write points overwrite some of them)"
            )
    checked = time.monotonic()
    prepared.written = measure_written(files.files, data)
    prepared.timings["layout_s"] = round(checked - started, 3)
    prepared.timings["data_check_s"] = round(time.monotonic() - checked, 3)
    if prepared.written["warning"]:
        prepared.notes.append(prepared.written["warning"])


def _write_files(
    prepared: Prepared, where: str, data: DataPattern, say: Callable[[str], None]
) -> None:
    files = prepared.files
    total = files.file_size * len(files.files)
    say(f"laying out {format_size(total)} of test files in {len(files.files)} file(s)")
    create_files(files)  # never through a link, recorded as dbstor's before any write
    started = time.monotonic()
    options = tuple(data.fio_options().items())
    job = build_layout_job(files.files, files.file_size, files.direct, options)
    try:
        with scratch_dir("dbstor-fio-") as scratch:
            job_file = scratch / "layout.fio"
            run_job(job, job_file, where, timeout_s=3600)
            prepared.jobs["layout"] = (job, job_file.with_suffix(".json").read_text("utf-8"))
    finally:
        record_created(files)  # fio may have made the files anew: claim them again
    prepared.notes.append(
        f"laid out {format_size(total)} of test files in {time.monotonic() - started:.1f} s (not counted in any point)"
    )


def precondition(
    prepared: Prepared, profile: Profile, duration_s: float, where: str, say: Callable[[str], None]
) -> str | None:
    """SNIA PTS-style: random 8K writes over the whole file until the IOPS are steady
    (five rounds within 20% of their mean). Returns the note when io_uring was refused
    and libaio ran instead."""
    seconds = max(2, min(PRECONDITION_ROUND_S, round(duration_s)))
    say(
        f"preconditioning: random 8K writes until IOPS are steady (at most {PRECONDITION_ROUNDS} rounds of {seconds} s)"
    )
    writer = replace(
        profile,
        name="precondition",
        pattern="random",
        read_pct=0.0,
        block_size=8192,
        block_split=(),
        fdatasync=0,
    )
    files = prepared.files
    history: list[float] = []
    fallback_note = None
    for round_no in range(PRECONDITION_ROUNDS):
        point = IoPoint(
            name=f"precondition-{round_no + 1}",
            profile=writer,
            files=tuple(str(f) for f in files.files),
            file_size=files.file_size,
            iodepth=32,
            jobs=1,
            duration_s=seconds,
            warmup_s=0,
            direct=files.direct,
            where=where,
        )
        ran = run_fio(point, seconds + 120)
        prepared.jobs[point.name] = (ran.job_text, ran.output)
        fallback_note = fallback_note or ran.fallback_note
        history.append(ran.result.run.write.iops)
        window = history[-5:]
        if len(window) == 5 and (max(window) - min(window)) <= 0.2 * (sum(window) / 5):
            break
    prepared.notes.append(
        f"preconditioned in {len(history)} rounds; write IOPS per round: "
        + ", ".join(f"{v:,.0f}" for v in history)
    )
    return fallback_note
