"""Before an io run creates anything: every job it will give fio, read back by fio itself.

Each target x profile's jobs (the layout job and a point job at the series' highest load)
are built as they will be run and parsed by `fio --parse-only`. The run is refused in one
line when a value cannot be written so that fio reads it as meant (drivers/fio_text.py),
when fio refuses a setting (a distribution it rejects, say), or when fio would open a
file or take an option dbstor did not write.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dbstor.drivers.fio_job import PointSpec, build_layout_job, build_point_job
from dbstor.drivers.fio_parse import parse_job
from dbstor.drivers.fio_text import fio_path
from dbstor.errors import UserError
from dbstor.study.model import LoadSeries, Study, Target
from dbstor.study.profiles import Profile
from dbstor.testfiles import is_block_device, planned_file_names

READ_BACKS_AT_ONCE = 4


def _options_written(job_text: str) -> set[str]:
    return {
        line.partition("=")[0]
        for line in job_text.splitlines()
        if "=" in line and not line.startswith("[")
    }


def _highest(series: LoadSeries, kind: str, default: int) -> int:
    return max(series.values) if series.kind == kind and series.values else default


def check_job(job_text: str, files: tuple[Path, ...], what: str) -> None:
    """UserError unless fio takes job_text and reads from it exactly these files and the
    options written in it."""
    parsed = parse_job(job_text)
    if parsed.refusal is not None:
        raise UserError(f"fio refuses the job for {what}: {parsed.refusal}; fix that setting")
    wanted = [str(f) for f in files]
    if list(dict.fromkeys(parsed.files)) != wanted or set(parsed.options) != _options_written(
        job_text
    ):
        raise UserError(
            f"fio would read the job for {what} differently from what dbstor wrote (files "
            f"{list(parsed.files)[:4]}, options {sorted(set(parsed.options))[:20]}): rename the "
            "target or profile with plain characters"
        )


def check_fio_jobs(study: Study, local: bool = True) -> None:
    """Every io run's jobs, before any folder or file exists (see the module's doc). Runs
    measured on other hosts (local False) are read back here only when this host has fio."""
    jobs: list[tuple[str, tuple[Path, ...], str]] = []
    for target in (t for t in study.targets if t.paths and not t.clients):
        for path in target.paths:  # named as the user gave it, before any file name
            fio_path(path, f"target {target.label}: the path")
        for profile in study.profiles:
            check_slo_metric(study, profile)
            jobs += _target_profile_jobs(study, target, profile)
    if not (local or shutil.which("fio") is not None):
        return
    with ThreadPoolExecutor(max_workers=READ_BACKS_AT_ONCE) as pool:  # fio starts in ~0.2 s
        list(pool.map(lambda job: check_job(*job), jobs))  # the first refusal, in order


def check_slo_metric(study: Study, profile: Profile) -> None:
    """The SLO's latency is one this profile measures: a transaction latency (a database
    run's) or the latency of a direction it never issues would leave the knee unknown.
    A study with databases too was checked at load (study/coherence.py: a metric one kind
    of run cannot measure is refused); a direction its profile never issues is not."""
    if study.databases:
        return
    metric = study.slo_for(profile).metric
    direction = metric.split("_", 1)[0]
    never = (direction == "txn") or (
        (direction == "write" and profile.read_pct >= 100)
        or (direction == "read" and profile.read_pct <= 0)
    )
    if never:
        does = "a database run's" if direction == "txn" else f"no {direction}s in {profile.name}"
        raise UserError(
            f"SLO metric {metric}: {does}, so the knee could never be found; give a "
            "read_lat_* or write_lat_* metric the profile measures (--slo-metric, slo.metric)"
        )


def _target_profile_jobs(
    study: Study, target: Target, profile: Profile
) -> list[tuple[str, tuple[Path, ...], str]]:
    """The layout job and a point job at the series' highest load, built as they will be
    run (building refuses what fio cannot take), with the files each must name."""
    what = f"target {target.label}, profile {profile.name}"
    device = len(target.paths) == 1 and is_block_device(target.paths[0])
    files = (
        target.paths if device else planned_file_names(target.paths, profile.name, profile.files)
    )
    data = tuple(study.data.fio_options().items())
    size = 1024 * 1024  # the sizes are dbstor's numbers; only their form matters here
    series = study.series_for(profile)
    jobs = _highest(series, "jobs", series.jobs)
    rate = _highest(series, "rate", 0)
    spec = PointSpec(
        profile=profile,
        files=files,
        file_size=0 if device else size * max(1, jobs),
        iodepth=_highest(series, "iodepth", series.iodepth),
        jobs=jobs,
        duration_s=study.duration_s,
        warmup_s=study.warmup_s,
        rate_iops=rate or None,
        iops_log=Path("point-01"),
        data_options=data,
    )
    layout = build_layout_job(files, size, True, data)
    return [(layout, files, what), (build_point_job(spec), files, what)]
