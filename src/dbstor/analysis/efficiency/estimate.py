"""One call from paths to the efficiency figures: estimate(...) -> result dictionary."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.analysis.efficiency import result as result_mod
from dbstor.analysis.efficiency.arrays import DEFAULT_ARRAY, ArrayModel, resolve_array
from dbstor.analysis.efficiency.compressors import (
    COMPRESSORS,
    DEFAULT_ZSTD_LEVEL,
    check_available,
    parse_compressor,
)
from dbstor.analysis.efficiency.sampling import DEFAULT_MIN_UNITS, DEFAULT_RATE
from dbstor.analysis.efficiency.scanner import execute, list_files
from dbstor.analysis.efficiency.worker import Settings
from dbstor.errors import UserError

KIB = 1024
MATRIX_GROUPS = (8 * KIB, 32 * KIB)
DEFAULT_SEED = 4403
DEFAULT_MAX_FINGERPRINTS = 1_000_000


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def make_settings(
    model: ArrayModel,
    compressor: str,
    *,
    matrix: bool = True,
    dedup_block: int | None = None,
    read_all: bool = True,
    throttle_bps: float | None = None,
    workers: int = 1,
    executor: str = "process",
) -> Settings:
    """Settings for a scan: group sizes measured, sampling unit, compressors."""
    head = parse_compressor(compressor)
    others = [parse_compressor(c) for c in COMPRESSORS]
    others = [
        c if not c.startswith("zstd") or not head.startswith("zstd") else head for c in others
    ]
    compressors = tuple(dict.fromkeys([head, *(others if matrix else [])]))
    head_group = model.group or MATRIX_GROUPS[0]
    groups = set(MATRIX_GROUPS) | {head_group} if matrix else {head_group}
    dblock = dedup_block or model.dedup_block
    unit = math.lcm(dblock, *groups)
    if unit > 4 * 1024 * KIB:
        raise UserError(
            f"block and group sizes give a {unit} byte sampling unit; keep them powers of two"
        )
    per_worker = throttle_bps / max(1, workers) if throttle_bps else None
    return Settings(
        model=model,
        compressors=compressors,
        group_sizes=tuple(sorted(groups)),
        head_group=head_group,
        unit=unit,
        dedup_block=dblock,
        read_all=read_all,
        throttle_bps=per_worker,
        executor=executor,
    )


def estimate(
    paths: Sequence[str | tuple[str, str]],
    *,
    array: str | ArrayModel = DEFAULT_ARRAY,
    compressor: str = "lz4",
    full: bool = False,
    rate: float = DEFAULT_RATE,
    min_units: int | None = None,
    min_sample_bytes: int = DEFAULT_MIN_UNITS * 32 * KIB,
    seed: int = DEFAULT_SEED,
    dedup_block: int | None = None,
    read_all: bool = True,
    throttle_mbps: float | None = None,
    workers: int | None = None,
    max_fingerprints: int = DEFAULT_MAX_FINGERPRINTS,
    matrix: bool = True,
    executor: str = "process",
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Scan files or directories (optionally as (role, path)) and return the figures.

    At least min_sample_bytes (or min_units sampling units) are compressed in all.

    Raises UserError for a missing path, a bad array or compressor, missing lz4/zstandard,
    or when nothing at all could be read.
    """
    check_available()
    model = array if isinstance(array, ArrayModel) else _array(array)
    try:
        parse_compressor(compressor)
    except ValueError as exc:
        raise UserError(f"--compressor: {exc}") from None
    pairs = [p if isinstance(p, tuple) else ("data", p) for p in paths]
    for _, p in pairs:
        if not os.path.lexists(p):
            raise UserError(f"{p}: no such file or directory; give files or folders that exist")
    n_workers = workers or default_workers()
    settings = make_settings(
        model,
        compressor,
        matrix=matrix,
        dedup_block=dedup_block,
        read_all=read_all,
        throttle_bps=throttle_mbps * 1e6 if throttle_mbps else None,
        workers=n_workers,
        executor=executor,
    )
    files, skipped, _links = list_files(pairs)
    if not files and skipped:
        first = skipped[0]
        raise UserError(
            f"none of the given files could be read ({first.path}: {first.reason}); "
            "run as a user who can read them"
        )
    out = execute(
        files,
        skipped,
        settings,
        rate=1.0 if full else rate,
        min_units=min_units if min_units is not None else -(-min_sample_bytes // settings.unit),
        seed=seed,
        workers=n_workers,
        max_fingerprints=max_fingerprints,
        progress=progress,
    )
    mode = "full" if full or rate >= 1.0 else "sampled"
    res = result_mod.build(out, paths=[p for _, p in pairs], mode=mode, rate=rate, seed=seed)
    if _links:
        res["notes"].append(f"{_links} symbolic link(s) inside folders were not followed")
    if (
        settings.compressors[0].startswith("zstd")
        and settings.compressors[0] != f"zstd:{DEFAULT_ZSTD_LEVEL}"
    ):
        res["notes"].append(f"zstd level {settings.compressors[0].split(':')[1]}")
    return res


def _array(spec: str) -> ArrayModel:
    try:
        return resolve_array(spec)
    except ValueError as exc:
        raise UserError(f"--array: {exc}") from None
