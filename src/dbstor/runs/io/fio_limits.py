"""The fio settings of a study that fio itself would refuse once a point starts, refused
before anything runs: a queue depth or a number of jobs beyond what fio and its I/O
engines take (in an iodepth series, or as the fixed iodepth of a jobs series), libaio's
contexts beyond the host's aio-max-nr, and an I/O larger than the test file it reads."""

from __future__ import annotations

from pathlib import Path

from dbstor.errors import UserError
from dbstor.study.model import LoadSeries, Study
from dbstor.study.profiles import Profile
from dbstor.testfiles import is_block_device
from dbstor.units import MAX_FIO_JOBS, MAX_IODEPTH, format_size

AIO_MAX_NR = Path("/proc/sys/fs/aio-max-nr")
MIB = 1024 * 1024


def check_fio_settings(study: Study) -> None:
    """Every fio profile of the study with its series: a UserError for the first setting
    fio would refuse mid-run."""
    try:
        for profile in study.profiles:
            _check_profile(study, profile)
    except UserError as exc:
        if study.source == "command line" or str(exc).startswith(study.source):
            raise
        raise UserError(f"{study.source}: {exc}") from None


def _check_profile(study: Study, profile: Profile) -> None:
    """One profile with its series: jobs, queue depth, libaio contexts, block sizes."""
    series = study.series_for(profile)
    check_queue_depths(series)
    depth, jobs = _most(series)
    if jobs > MAX_FIO_JOBS:
        raise UserError(
            f"{jobs:,} fio jobs (--numjobs, --jobs, [load] values or jobs) is more than fio "
            f"runs at once ({MAX_FIO_JOBS:,}): give at most that many jobs"
        )
    if profile.ioengine == "libaio" and depth * jobs > _aio_max_nr():
        raise UserError(
            f"profile {profile.name}: libaio with {jobs:,} jobs of queue depth {depth:,} "
            f"needs {depth * jobs:,} I/O contexts and this host allows {_aio_max_nr():,} "
            "(/proc/sys/fs/aio-max-nr): give fewer jobs or a smaller queue depth, or "
            'ioengine = "io_uring"'
        )
    _check_block_fits(study, profile)


def check_queue_depths(series: LoadSeries | None) -> None:
    """A queue depth fio's I/O engines cannot set up, refused before anything starts: the
    values of an iodepth series, or the queue depth each point of a jobs or rate series
    holds."""
    if series is None:
        return
    depth, _ = _most(series)
    if depth > MAX_IODEPTH:
        raise UserError(
            f"queue depth {depth:,} (--iodepth, [load] values or iodepth) is more than fio's "
            f"I/O engines take per job: give queue depths up to {MAX_IODEPTH:,}, e.g. "
            "--iodepth 1,4,16,64,256"
        )


def _most(series: LoadSeries) -> tuple[int, int]:
    """The largest queue depth and number of jobs any point of the series asks of fio."""
    values = max(series.values, default=1)
    depth = values if series.kind == "iodepth" else series.iodepth
    jobs = values if series.kind == "jobs" else series.jobs
    return depth, jobs


def _aio_max_nr() -> int:
    try:
        return int(AIO_MAX_NR.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return 65536  # the kernel's default


def _check_block_fits(study: Study, profile: Profile) -> None:
    sizes = [s for s, _ in profile.block_split] or [profile.block_size]
    for target in study.targets:
        paths = target.paths
        if not paths or (len(paths) == 1 and is_block_device(paths[0])):
            continue  # a device is used whole; an external server's target has no files
        count = len(paths) * profile.files
        per_file = max(MIB, study.file_size // count // MIB * MIB)  # as testfiles plans them
        if max(sizes) > per_file:
            raise UserError(
                f"profile {profile.name}: a block of {format_size(max(sizes))} is larger than "
                f"each test file on {target.label} ({format_size(per_file)}: size "
                f"{format_size(study.file_size)} over {count} files): give a larger size "
                "(--size, [study] size) or a smaller block_size"
            )
