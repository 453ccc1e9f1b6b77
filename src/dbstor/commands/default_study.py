"""The main job: the default study `dbstor run` runs with no study file and no --engine."""

from __future__ import annotations

from pathlib import Path

from dbstor.study.model import DEFAULT_ENGINE, DatabaseSpec, LoadSeries, Study, Target
from dbstor.study.profiles import BUILTIN_PROFILES

DEFAULT_DATA_DIR = Path("dbstor-data")
# a point may run its warm-up and two 5 s windows (and the settle between) to get steady:
# the whole default study stays within 2 minutes on a quiet machine
DEFAULT_STEADY_LIMIT_S = 14.0
DEFAULT_DATABASE_MEMORY = 48 * 1024**2  # the ~80 MB brokerage database gets 60% of its size


def default_study(data_dir: Path = DEFAULT_DATA_DIR) -> Study:
    """The main job: brokerage on embedded SQLite and the io-oltp fio sweep on ./dbstor-data,
    short points, one report with the database's operating points on the storage's curve.
    The database gets 48 MiB of memory (SQLite's caches and the page cache of its files, a
    cgroup around the client processes), well under its size, so that its reads reach the
    storage instead of the host's memory; where the host allows no cgroup, the run says so
    and goes on uncapped."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return Study(
        name="default study: brokerage on SQLite and io-oltp on ./dbstor-data",
        targets=(Target(label="dbstor-data", paths=(data_dir.absolute(),)),),
        profiles=(BUILTIN_PROFILES["io-oltp"],),
        databases=(
            DatabaseSpec(
                engine=DEFAULT_ENGINE,
                workload="brokerage",
                scale=1000,
                series=LoadSeries(kind="users", values=(1, 2, 4, 8)),
                memory_limit_bytes=DEFAULT_DATABASE_MEMORY,
            ),
        ),
        duration_s=5.0,
        warmup_s=2.0,
        max_duration_s=DEFAULT_STEADY_LIMIT_S,
        file_size=512 * 1024**2,
        source="built-in default",
    )
