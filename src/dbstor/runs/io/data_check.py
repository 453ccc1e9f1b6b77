"""The io run's test data measured: a from: source's ratios before the run, and what fio
really wrote after layout (intended vs achieved), with dbstor's efficiency scanner."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.results.store import recorded_paths
from dbstor.study.data import DataPattern, from_ratios

TOLERANCE = 0.1  # achieved and intended ratios further apart than this: warn
SAMPLE_RATE = 0.05
# fio writes the same kind of data all over its files, so the written data's check samples
# 4 MiB first, read by 4 threads at once (0.03-0.1 s here, where 5% of the files with its
# 128 MiB floor took 2-5 s before the first point), and reads the 5% only when that
# sample leaves the ratio unsure.
QUICK_SAMPLE_BYTES = 4 << 20
QUICK_READERS = 4
# The data's own compressibility: lz4 over 32 KiB groups stored to the byte (512-byte
# units), dedup over 4 KiB blocks. An array stores less when its allocation unit is
# coarse (8 KiB groups in 4 KiB blocks save 2:1 or nothing): dbstor efficiency --array.
MEASURE_AS = "custom:block=512,group=32K,dedup=4K"
MEASURED_AS = "lz4 over 32 KiB groups to the byte, dedup over 4 KiB blocks"


def source_paths(source: str) -> list[str]:
    """The files behind a from: source: a dbstor run folder's data paths, or the path."""
    results = Path(source) / "results.json"
    if results.is_file():
        files = [path for _, path in recorded_paths(results, roles=("data",))]
        present = [p for p in files if os.path.lexists(p)]
        if not present:
            raise UserError(
                f"--data from:{source}: the run's database files are gone; rerun it with "
                "--keep, or give the files' path"
            )
        return present
    if not os.path.lexists(source):
        raise UserError(f"--data from:{source}: no such file or directory")
    return [source]


def scan(paths: Sequence[str], read_all: bool, quick: bool = False) -> dict[str, Any]:
    """The data's compression and dedup ratios (MEASURED_AS), from 5% of the files (at
    least 128 MiB), or with `quick` from a 4 MiB sample and lz4 alone."""
    from dbstor.analysis.efficiency.estimate import estimate

    if not quick:
        return estimate(
            list(paths),
            array=MEASURE_AS,
            rate=SAMPLE_RATE,
            read_all=read_all,
            executor="thread",
            workers=1,
        )
    return estimate(
        list(paths),
        array=MEASURE_AS,
        rate=0.0,
        min_sample_bytes=QUICK_SAMPLE_BYTES,
        read_all=read_all,
        executor="thread",
        workers=QUICK_READERS,
        matrix=False,
    )


def unsure(figures: dict[str, Any]) -> bool:
    """Whether a ratio's 95% interval is wider than half the tolerance either side."""
    for name in ("compression", "dedup"):
        low, high = figures.get(f"{name}_ratio_ci95") or (None, None)
        ratio = figures.get(f"{name}_ratio")
        if ratio is None or low is None or high is None:
            continue
        if max(ratio - low, high - ratio) > TOLERANCE / 2:
            return True
    return False


def readable_source(source: str) -> list[str]:
    """The files behind a from: source, each checked readable, and the scanner's packages
    there: what would refuse the measurement, refused before it is announced."""
    from dbstor.analysis.efficiency.compressors import check_available

    paths = source_paths(source)
    for path in paths:
        try:
            os.close(os.open(path, os.O_RDONLY))
        except OSError as exc:
            raise UserError(f"--data from:{source}: cannot read {path} ({exc.strerror})") from None
    check_available()
    return paths


def resolve_data_pattern(data: DataPattern, paths: list[str] | None = None) -> DataPattern:
    """A from: source's ratios measured (its own compressibility and dedup, MEASURED_AS);
    other data as given. `paths`: the source's files, when readable_source gave them."""
    if data.kind != "from" or data.source is None:
        return data
    figures = scan(paths or source_paths(data.source), read_all=True)
    return from_ratios(data.source, figures["compression_ratio"], figures["dedup_ratio"])


def measure_written(files: Sequence[Path], data: DataPattern) -> dict[str, Any]:
    """What the laid-out test files hold: intended vs achieved compression and dedup ratio,
    and a warning when they differ by more than TOLERANCE."""
    intended = {
        "compression": data.compression,
        "dedup": round(1 / (1 - data.dedupe_pct / 100), 3),
    }
    paths, read_all = [str(f) for f in files], data.dedupe_pct > 0
    try:
        figures = scan(paths, read_all, quick=not read_all)
        if not read_all and unsure(figures):
            figures = scan(paths, read_all)
    except UserError as exc:  # e.g. lz4 missing: say so, the run goes on
        return {
            "intended": intended,
            "achieved": None,
            "measured_as": MEASURED_AS,
            "warning": f"the data written was not checked: {exc}",
        }
    achieved = {"compression": figures["compression_ratio"], "dedup": figures["dedup_ratio"]}
    off = [
        f"{name} {achieved[name]:.2f}:1 where {intended[name]:.2f}:1 was asked"
        for name in ("compression", "dedup")
        if achieved[name] is not None and abs(achieved[name] - intended[name]) > TOLERANCE
    ]
    warning = "the test files hold other data than asked: " + "; ".join(off) if off else None
    return {
        "intended": intended,
        "achieved": achieved,
        "measured_as": MEASURED_AS,
        "warning": warning,
    }
