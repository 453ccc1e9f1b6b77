"""Running fio: find it, run one job file, turn its failures into clear messages."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from dbstor.drivers.fio_output import FioRun, parse_fio_json, parse_iops_log
from dbstor.errors import PointFailed, UserError

FIO_MISSING = (
    "fio is not installed: install it (Debian/Ubuntu: 'apt-get install fio'; RHEL/Fedora: "
    "'dnf install fio'; macOS: 'brew install fio') or put it on PATH, then run again"
)


class EngineUnavailable(Exception):
    """The fio I/O engine cannot run here (e.g. io_uring blocked); try another."""


@dataclass
class FioResult:
    run: FioRun
    read_iops_per_second: list[float]  # summed over jobs, one value per measured second
    write_iops_per_second: list[float]
    job_file: Path


def fio_binary() -> str:
    path = shutil.which("fio")
    if path is None:
        raise UserError(FIO_MISSING)
    return path


def fio_version() -> str:
    out = subprocess.run([fio_binary(), "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def _classify_failure(stderr: str, where: str) -> Exception:
    text = stderr.lower()
    last = next((ln.strip() for ln in reversed(stderr.splitlines()) if ln.strip()), "no message")
    if "no space left" in text or "enospc" in text:
        return UserError(
            f"the file system under {where} is full: free space or choose a smaller --size"
        )
    if "read-only file system" in text or "erofs" in text:
        return UserError(f"{where} is on a read-only file system: choose a writable target")
    if "permission denied" in text or "eacces" in text:
        return UserError(f"permission denied writing under {where}: choose a target you can write")
    if "io_uring" in text or ("engine" in text and "load" in text):
        return EngineUnavailable(last)
    return PointFailed(f"fio failed: {last}")


def run_job(job_text: str, job_file: Path, where: str, timeout_s: float) -> FioResult:
    """Run fio on a job file (kept beside the results) and parse its json+ output.

    On Ctrl-C (or any other interruption) fio's process group is stopped, then the
    interruption goes on up.
    """
    job_file = job_file.absolute()
    job_file.parent.mkdir(parents=True, exist_ok=True)
    job_file.write_text(job_text, encoding="utf-8")
    output = job_file.with_suffix(".json")
    cmd = [fio_binary(), "--output-format=json+", f"--output={output}", str(job_file)]
    # fio runs in its own process group so that its job processes can be stopped together:
    # Ctrl-C is forwarded to the group, and whatever still runs after a grace period is killed.
    # fio runs in the job file's folder, so that log files named in the job land there.
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=job_file.parent,
    )
    try:
        _, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _stop_group(proc, signal.SIGKILL)
        raise PointFailed(
            f"fio did not finish within {timeout_s:.0f} s; the storage may be hung"
        ) from None
    except BaseException:
        _stop_group(proc, signal.SIGINT)
        raise
    if proc.returncode != 0:
        raise _classify_failure(stderr, where)
    try:
        run = parse_fio_json(output.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PointFailed(f"could not read fio's output {output}: {exc}") from None
    if run.errors:
        raise _classify_failure(stderr + "\n" + "; ".join(run.errors), where)
    reads, writes = _collect_iops_logs(job_file)
    return FioResult(
        run=run, read_iops_per_second=reads, write_iops_per_second=writes, job_file=job_file
    )


def _stop_group(proc: subprocess.Popen, sig: signal.Signals, grace_s: float = 5.0) -> None:
    """Signal fio's whole process group; SIGKILL it if it has not exited within grace_s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
    try:
        proc.communicate(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def _collect_iops_logs(job_file: Path) -> tuple[list[float], list[float]]:
    """Sum fio's per-job iops logs (<stem>_iops.N.log) per second and direction; remove them."""
    totals: dict[int, list[float]] = {0: [], 1: []}
    for log in sorted(job_file.parent.glob(f"{job_file.stem}_iops.*.log")):
        series = parse_iops_log(log.read_text(encoding="utf-8"))
        for direction, values in series.items():
            column = totals[direction]
            for i, value in enumerate(values):
                if i >= len(column):
                    column.append(0.0)
                column[i] += value
        log.unlink()
    return totals[0], totals[1]
