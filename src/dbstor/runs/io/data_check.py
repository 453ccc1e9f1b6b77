"""The io run's test data measured: a from: source's ratios before the run, and what fio
really wrote after layout (intended vs achieved), with dbstor's efficiency scanner."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.results.store import recorded_paths
from dbstor.study.data import DataPattern, from_ratios

TOLERANCE = 0.1  # achieved and intended ratios further apart than this: warn
ZERO_TOLERANCE_PCT = 1.0  # zero-block shares further apart than this many points: warn
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


def source_paths(source: str, given_as: str = "--data") -> list[str]:
    """The files behind a from: source: a dbstor run folder's data paths, or the path.
    `given_as`: the flag or the study file's key that named it, for messages."""
    results = Path(source) / "results.json"
    if results.is_file():
        files = [path for _, path in recorded_paths(results, roles=("data",))]
        present = [p for p in files if os.path.lexists(p)]
        if not present:
            raise UserError(
                f"{given_as} from:{source}: the run's database files are gone; rerun it with "
                "--keep, or give the files' path"
            )
        return present
    if not os.path.lexists(source):
        raise UserError(f"{given_as} from:{source}: no such file or directory")
    return [source]


def scan(
    paths: Sequence[str], read_all: bool, array: str = MEASURE_AS, quick: bool = False
) -> dict[str, Any]:
    """The data's compression and dedup ratios under `array`'s model (MEASURE_AS: the data's
    own), from 5% of the files (at least 128 MiB), or with `quick` from a 4 MiB sample."""
    from dbstor.analysis.efficiency.estimate import estimate

    if not quick:
        return estimate(
            list(paths),
            array=array,
            rate=SAMPLE_RATE,
            read_all=read_all,
            executor="thread",
            workers=1,
        )
    return estimate(
        list(paths),
        array=array,
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


def readable_source(source: str, given_as: str = "--data") -> list[str]:
    """The files behind a from: source, each checked readable, and the scanner's packages
    there: what would refuse the measurement, refused before it is announced."""
    from dbstor.analysis.efficiency.compressors import check_available

    paths = source_paths(source, given_as)
    for path in paths:
        try:
            os.close(os.open(path, os.O_RDONLY))
        except OSError as exc:
            raise UserError(
                f"{given_as} from:{source}: cannot read {path} ({exc.strerror})"
            ) from None
    if not any(_holds_bytes(path) for path in paths):
        raise _no_data(given_as, source, len(paths))
    check_available()
    return paths


def _holds_bytes(path: str) -> bool:
    """Whether a file, or any file under a folder, holds at least one byte."""
    if not os.path.isdir(path):
        return os.path.getsize(path) > 0
    for folder, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                if os.path.getsize(os.path.join(folder, name)) > 0:
                    return True
    return False


def _no_data(given_as: str, source: str, count: int) -> UserError:
    """A from: source with nothing to measure: 1:1 from nothing would read as measured."""
    return UserError(
        f"{given_as} from:{source}: its files hold no data (0 bytes in {count} path(s)): "
        "give the database's files, or a run folder whose files were kept (--keep)"
    )


def resolve_data_pattern(data: DataPattern, paths: list[str] | None = None) -> DataPattern:
    """A from: source's ratios measured (its own compressibility and dedup, MEASURED_AS);
    other data as given. `paths`: the source's files, when readable_source gave them."""
    if data.kind != "from" or data.source is None:
        return data
    from dbstor.analysis.efficiency.arrays import DEFAULT_ARRAY

    files = paths or source_paths(data.source, data.given_as)
    figures = scan(files, read_all=True)
    if not figures.get("bytes_scanned"):  # emptied since readable_source looked
        raise _no_data(data.given_as, data.source, len(files))
    stored = scan(files, read_all=False, array=DEFAULT_ARRAY)  # to set the files beside
    pattern = from_ratios(
        data.source,
        figures["compression_ratio"],
        figures["dedup_ratio"],
        figures.get("zero_block_pct"),
        data.given_as,
    )
    assert pattern.source_figures is not None
    pattern.source_figures["array_compression"] = stored["compression_ratio"]
    pattern.source_figures["array_dedup"] = stored["dedup_ratio"]
    return pattern


def measure_written(
    files: Sequence[Path], data: DataPattern, array: str | None = None
) -> dict[str, Any]:
    """What the laid-out test files hold: intended vs achieved compression and dedup ratio
    (the data's own, MEASURED_AS), what the array model stores them at (`array`, default
    the one dbstor efficiency uses by default), a from: source's block classes against the
    files', and a warning when any of them differs by more than TOLERANCE."""
    from dbstor.analysis.efficiency.arrays import DEFAULT_ARRAY

    array = array or DEFAULT_ARRAY
    intended = {
        "compression": data.compression,
        "dedup": round(1 / (1 - data.dedupe_pct / 100), 3),
    }
    if data.source_figures:  # from: the source's own figures, zero blocks included
        intended = {k: data.source_figures.get(k, v) for k, v in intended.items()}
    paths, read_all = [str(f) for f in files], data.dedupe_pct > 0
    try:
        figures = scan(paths, read_all, quick=not read_all)
        if not read_all and unsure(figures):
            figures = scan(paths, read_all)
        stored = scan(paths, read_all, array=array, quick=not read_all)
        if not read_all and unsure(stored):
            stored = scan(paths, read_all, array=array)
    except UserError as exc:  # e.g. lz4 missing: say so, the run goes on
        return {
            "intended": intended,
            "achieved": None,
            "measured_as": MEASURED_AS,
            "warning": f"the data written was not checked: {exc}",
        }
    achieved = {"compression": figures["compression_ratio"], "dedup": figures["dedup_ratio"]}
    on_array = {
        "array": array,
        "compression": stored["compression_ratio"],
        "dedup": stored["dedup_ratio"],
        "total": stored.get("total_ratio"),
    }
    source = data.source_figures or {}
    # under the array model, the files are set beside what was asked, or (from:) beside
    # the source as the same model stores it
    on_array_wanted = {
        "compression": source.get("array_compression", intended["compression"]),
        "dedup": source.get("array_dedup", intended["dedup"]),
    }
    off = [
        f"under the {array} array model (dbstor efficiency's default) {name} "
        f"{on_array[name]:.2f}:1 where {on_array_wanted[name]:.2f}:1"
        + (" stores the source" if source else " was asked")
        for name in ("compression", "dedup")
        if on_array[name] is not None and abs(on_array[name] - on_array_wanted[name]) > TOLERANCE
    ]
    classes = block_classes(data.source_figures, figures)
    if classes:  # from: each class of the source against the files'
        off = [
            f"{c['class']} {c['written']} where the source has {c['source']} ({c['why']})"
            for c in classes
            if not c["reproduced"]
        ] + off
    else:
        off = [
            f"{name} {achieved[name]:.2f}:1 where {intended[name]:.2f}:1 was asked"
            for name in ("compression", "dedup")
            if achieved[name] is not None and abs(achieved[name] - intended[name]) > TOLERANCE
        ] + off
    warning = "the test files hold other data than asked: " + "; ".join(off) if off else None
    out = {
        "intended": intended,
        "achieved": achieved,
        "measured_as": MEASURED_AS,
        "on_array": on_array,
        "warning": warning,
    }
    if classes:
        out["classes"] = classes
    return out


def block_classes(source: dict[str, float] | None, written: dict[str, Any]) -> list[dict[str, Any]]:
    """A from: source's block classes against the test files': the share of zero blocks,
    the compression of the non-zero blocks, the dedup; each reproduced or not, and why."""
    if not source:
        return []
    out = []
    zero_src, zero_written = source.get("zero_block_pct"), written.get("zero_block_pct")
    if zero_src is not None and zero_written is not None:
        same = abs(zero_src - zero_written) <= ZERO_TOLERANCE_PCT
        out.append(
            {
                "class": "zero blocks",
                "source": f"{zero_src:.1f}%",
                "written": f"{zero_written:.1f}%",
                "reproduced": same,
                "why": "" if same else "fio's buffer options write no share of zero blocks",
            }
        )
    for key, name in (("compression", "compression of the non-zero blocks"), ("dedup", "dedup")):
        want = source.get(key)
        got = written.get("compression_ratio" if key == "compression" else "dedup_ratio")
        if want is None or got is None:
            continue
        same = abs(want - got) <= TOLERANCE
        why = (
            "fio repeats bytes within each 4 KiB chunk, which compresses otherwise than the "
            "source's pages"
            if key == "compression"
            else "fio's dedupe_percentage reaches its share of duplicate blocks only roughly"
        )
        out.append(
            {
                "class": name,
                "source": f"{want:.2f}:1",
                "written": f"{got:.2f}:1",
                "reproduced": same,
                "why": "" if same else why,
            }
        )
    return out
