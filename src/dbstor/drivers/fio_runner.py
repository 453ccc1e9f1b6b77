"""Running fio: find it, run one job file, turn its failures into clear messages."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbstor import lifeline
from dbstor.drivers.fio_hist import collect_hist_logs
from dbstor.drivers.fio_output import FioRun, final_json_text, parse_fio_json, parse_iops_log
from dbstor.drivers.fio_status import StatusTail
from dbstor.errors import PointFailed, UserError
from dbstor.results.store import mount_point
from dbstor.safefs import link_refusal, make_dir, remove_file, write_file

FIO_MISSING = (
    "fio is not installed: install it (Debian/Ubuntu: 'apt-get install fio'; RHEL/Fedora: "
    "'dnf install fio'; macOS: 'brew install fio') or put it on PATH, then run again"
)


FULL_BELOW = 1 << 20  # free bytes under which a file system counts as full


class EngineUnavailable(Exception):
    """The fio I/O engine cannot run here (e.g. io_uring blocked); try another."""


@dataclass
class FioResult:
    run: FioRun
    read_iops_per_second: list[float]  # summed over jobs, one value per measured second
    write_iops_per_second: list[float]
    job_file: Path
    # the reads' latency histogram of every logged second (drivers/fio_hist.py)
    read_hist_per_second: list[dict[int, int]] = field(default_factory=list)


def fio_binary() -> str:
    path = shutil.which("fio")
    if path is None:
        raise UserError(FIO_MISSING)
    return path


def fio_version() -> str:
    return ask_fio_version()()


def ask_fio_version() -> Callable[[], str]:
    """Start `fio --version` now and return what reads its answer, so that fio's start
    overlaps other work (a run checks its target meanwhile)."""
    proc = subprocess.Popen(
        [fio_binary(), "--version"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )

    def answer() -> str:
        return proc.communicate()[0].strip()

    return answer


def _named_errors(text: str) -> str:
    """'job a: error 22' -> 'job a: error 22 (Invalid argument)'."""
    return re.sub(r"error (\d+)(?! \()", lambda m: f"error {m[1]} ({os.strerror(int(m[1]))})", text)


def _failure_text(returncode: int, stderr: str, output: Path) -> str:
    """What fio said about its failure: its stderr, else the errors in its JSON output, with
    how it ended (a signal, an exit status) when it said nothing."""
    text = stderr.strip()
    if not text:
        with contextlib.suppress(OSError, ValueError):
            text = "; ".join(parse_fio_json(output.read_text(encoding="utf-8")).errors)
    if returncode < 0:
        name = signal.Signals(-returncode).name if -returncode in signal.valid_signals() else ""
        end = f"fio was killed by signal {-returncode} {name}".strip()
        return f"{end}: {text}" if text else f"{end} (out of memory, or killed by someone)"
    return text or f"fio exited with status {returncode} and printed nothing"


def _classify_failure(stderr: str, where: str) -> Exception:
    stderr = _named_errors(stderr)
    text = stderr.lower()
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    last = "; ".join(lines[-3:])[-400:] if lines else "no message"
    if "no space left" in text or "enospc" in text:
        return UserError(
            f"the file system under {where} is full (fio: {last}): dbstor removes its test "
            "files and keeps the finished points; free space or choose a smaller --size"
        )
    if "read-only file system" in text or "erofs" in text:
        return UserError(f"{where} is on a read-only file system: choose a writable target")
    if "permission denied" in text or "eacces" in text:
        return UserError(f"permission denied writing under {where}: choose a target you can write")
    if "io_uring" in text or ("engine" in text and "load" in text):
        return EngineUnavailable(last)
    if "invalid argument" in text:
        last += " (fio or its I/O engine refused a setting, e.g. an --iodepth above its limit)"
    return PointFailed(f"fio failed: {last}")


def run_job(
    job_text: str,
    job_file: Path,
    where: str,
    timeout_s: float,
    on_status: Callable[[dict[str, Any]], None] | None = None,
    status_every_s: int = 1,
    clock: Callable[[], float] = time.monotonic,
) -> FioResult:
    """Run fio on a job file (kept beside the results) and parse its json+ output.

    With `on_status`, fio prints its json+ status every `status_every_s` seconds
    (--status-interval) and on_status(object) gets each as it lands (fio_status.py); the
    result is still fio's final object. `timeout_s` runs on `clock` (as pacing.py's, injected
    so a test can step it). On Ctrl-C (or any other interruption) fio's process group is
    stopped, then the interruption goes on up.
    """
    job_file = job_file.absolute()
    make_dir(job_file.parent, fix="choose another --out")
    write_file(job_file, job_text)  # never through a link, never over a foreign file
    output = job_file.with_suffix(".json")
    if os.path.islink(output):  # fio would write its output through it
        raise link_refusal(output)
    remove_file(output)  # an earlier try's, in dbstor's own folder beside its job file
    cmd = [fio_binary(), "--output-format=json+", f"--output={output}", str(job_file)]
    if on_status is not None:
        cmd.insert(-1, f"--status-interval={max(1, int(status_every_s))}")
    # fio runs in its own process group so that its job processes can be stopped together:
    # Ctrl-C is forwarded to the group, and whatever still runs after a grace period is killed.
    # What fio says goes to an unnamed file, not a pipe: a job process outliving a killed fio
    # would hold a pipe open until its runtime ends.
    with tempfile.TemporaryFile() as said:
        # fio runs in the job file's folder, so that log files named in the job land there.
        proc = subprocess.Popen(
            cmd,
            stdout=said,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=job_file.parent,
        )
        lifeline.watch_tree(proc.pid)  # fio and its job processes die with dbstor, even on kill -9
        try:
            _wait(proc, timeout_s, output, on_status, clock)
        except subprocess.TimeoutExpired:
            _stop_group(proc, signal.SIGKILL)
            raise PointFailed(
                f"fio did not finish within {timeout_s:.0f} s; the storage may be hung"
            ) from None
        except BaseException:
            _stop_group(proc, signal.SIGINT)
            raise
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # job processes of a fio that was killed
            lifeline.forget_tree(proc.pid)
        said.seek(0)
        stderr = said.read(1 << 20).decode(errors="replace")
    if proc.returncode != 0:
        raise _classify_failure(_failure_text(proc.returncode, stderr, output), where)
    try:
        text = output.read_text(encoding="utf-8")
        if on_status is not None:  # keep fio's final object only, as without statuses
            write_file(output, final_json_text(text), lambda _: True)  # fio's, just written
        run = parse_fio_json(text)
    except (OSError, ValueError) as exc:
        _remove_outputs(job_file)  # half-written: of no use to anyone
        if shutil.disk_usage(output.parent).free < FULL_BELOW:
            raise UserError(
                f"the file system at {mount_point(output.parent)} is full: fio could not write "
                f"its output {output.name}; the finished points are kept in "
                f"{job_file.parent.parent}; free space there and run again"
            ) from None
        raise PointFailed(f"could not read fio's output {output}: {exc}") from None
    if run.errors:
        raise _classify_failure(stderr + "\n" + "; ".join(run.errors), where)
    reads, writes = _collect_iops_logs(job_file)
    return FioResult(
        run=run,
        read_iops_per_second=reads,
        write_iops_per_second=writes,
        job_file=job_file,
        read_hist_per_second=collect_hist_logs(job_file),
    )


def _wait(
    proc: subprocess.Popen,
    timeout_s: float,
    output: Path,
    on_status: Callable[[dict[str, Any]], None] | None,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Wait for fio (TimeoutExpired after timeout_s on `clock`), passing on its interim
    statuses."""
    if on_status is None:
        proc.wait(timeout=timeout_s)
        return
    deadline = clock() + timeout_s
    tail = StatusTail(output)
    while True:
        try:
            proc.wait(timeout=min(0.5, max(0.0, deadline - clock())))
            return
        except subprocess.TimeoutExpired:
            if clock() >= deadline:
                raise
        status = tail.poll()
        if status is not None:
            on_status(status)


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


def _remove_outputs(job_file: Path) -> None:
    """Remove what fio wrote for a job (its JSON output, its iops and histogram logs); keep the job file."""
    for path in (
        job_file.with_suffix(".json"),
        *job_file.parent.glob(f"{job_file.stem}_iops.*.log"),
        *job_file.parent.glob(f"{job_file.stem}_clat_hist.*.log"),
    ):
        remove_file(path)


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
        remove_file(log)
    return totals[0], totals[1]
