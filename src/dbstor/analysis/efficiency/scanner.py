"""Scan files for zero blocks, duplicate blocks and compressibility.

By default every block is read once for its fingerprint (deduplication cannot be estimated
from a sample: a block's twin is almost never in the same 5%) and a stratified sample of
compression units is compressed. `full` compresses everything; `read_all=False` reads only
the sampled units (fastest, and the dedup ratio is then a lower bound).

Fingerprints are kept in memory up to a limit; past it only those whose low bits are zero
are kept (a fixed slice of the hash space), which estimates the dedup ratio from a content-
defined sample with its own confidence interval.
"""

from __future__ import annotations

import math
import os
import stat
import time
from collections.abc import Callable, Iterable
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field

from dbstor.analysis.efficiency.sampling import RatioSums, sample_counts, stratified_units
from dbstor.analysis.efficiency.worker import (
    CI_BUCKETS,
    HIST_BINS,
    Segment,
    SegResult,
    Settings,
    TaskResult,
    run_task,
)
from dbstor.testfiles import MANIFEST

TASK_BYTES = 16 * 1024 * 1024
INLINE_BYTES = 16 * 1024 * 1024  # below this, scanning in-process beats starting workers


@dataclass
class FileEntry:
    path: str
    role: str
    size: int
    mtime_ns: int
    kind: str = "file"  # file | device


@dataclass
class Skipped:
    path: str
    reason: str


@dataclass
class FileAcc:
    """One file's merged results."""

    entry: FileEntry
    units: int = 0
    units_planned: int = 0
    seg: SegResult = field(default_factory=lambda: SegResult(-1))


@dataclass
class ScanOutput:
    settings: Settings
    files: list[FileAcc]
    skipped: list[Skipped]
    fingerprints: dict[int, int]
    fp_level: int
    seconds: float
    workers: int
    fingerprint_name: str
    symlinks_skipped: int = 0


def list_files(paths: Iterable[tuple[str, str]]) -> tuple[list[FileEntry], list[Skipped], int]:
    """(role, path) pairs -> regular files and block devices under them, each once.

    Directories are walked without following symbolic links (a link named directly is
    followed). Missing paths are the caller's to reject; unreadable entries are skipped.
    """
    files: list[FileEntry] = []
    skipped: list[Skipped] = []
    seen: set[tuple[int, int]] = set()
    links = 0

    def add(path: str, role: str, st: os.stat_result) -> None:
        key = (st.st_dev, st.st_ino)
        if key in seen:
            return
        seen.add(key)
        if stat.S_ISREG(st.st_mode):
            files.append(FileEntry(path, role, st.st_size, st.st_mtime_ns))
        elif stat.S_ISBLK(st.st_mode):
            size = _device_size(path)
            if size is None:
                skipped.append(Skipped(path, "cannot read the device (permission denied?)"))
            else:
                files.append(FileEntry(path, role, size, st.st_mtime_ns, "device"))

    for role, top in paths:
        try:
            st = os.stat(top)
        except OSError as exc:
            skipped.append(Skipped(top, exc.strerror or str(exc)))
            continue
        if not stat.S_ISDIR(st.st_mode):
            add(top, role, st)
            continue

        def onerror(exc: OSError) -> None:
            skipped.append(Skipped(str(exc.filename), exc.strerror or str(exc)))

        for dirpath, dirnames, filenames in os.walk(top, onerror=onerror):
            dirnames.sort()
            for name in sorted(filenames) + [
                d for d in dirnames if os.path.islink(os.path.join(dirpath, d))
            ]:
                if name == MANIFEST:  # dbstor's record of the files it made, not data
                    continue
                full = os.path.join(dirpath, name)
                try:
                    lst = os.lstat(full)
                except OSError as exc:
                    skipped.append(Skipped(full, exc.strerror or str(exc)))
                    continue
                if stat.S_ISLNK(lst.st_mode):
                    links += 1
                    continue
                add(full, role, lst)
    readable = []
    for f in files:
        try:
            os.close(os.open(f.path, os.O_RDONLY))
            readable.append(f)
        except OSError as exc:
            skipped.append(Skipped(f.path, exc.strerror or str(exc)))
    return readable, skipped, links


def _device_size(path: str) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.lseek(fd, 0, os.SEEK_END)
    finally:
        os.close(fd)


def plan(
    files: list[FileEntry], settings: Settings, rate: float, min_units: int, seed: int
) -> tuple[list[list[Segment]], list[int], list[int]]:
    """Tasks (lists of segments), units per file, units to compress per file."""
    unit = settings.unit
    units = [-(-f.size // unit) for f in files]
    counts = sample_counts(units, rate, min_units)
    tasks: list[list[Segment]] = []
    current: list[Segment] = []
    current_bytes = 0
    seg_units = max(1, TASK_BYTES // unit)
    for idx, f in enumerate(files):
        n_units, n_sample = units[idx], counts[idx]
        sampled = None if n_sample >= n_units else stratified_units(n_units, n_sample, seed)
        if settings.read_all:
            pieces = [(a, min(a + seg_units, n_units)) for a in range(0, n_units, seg_units)]
        else:
            pieces = _sample_pieces(sampled, n_units, seg_units)
        for a, b in pieces:
            sub = None if sampled is None else _slice(sampled, a, b)
            cost = (b - a) * unit if settings.read_all or sub is None else len(sub) * unit
            current.append(Segment(idx, f.path, a, b, sub, f.size, f.mtime_ns))
            current_bytes += cost
            if current_bytes >= TASK_BYTES:
                tasks.append(current)
                current, current_bytes = [], 0
    if current:
        tasks.append(current)
    return tasks, units, counts


def _sample_pieces(sampled: list[int] | None, n_units: int, per: int) -> list[tuple[int, int]]:
    if sampled is None:
        return [(a, min(a + per, n_units)) for a in range(0, n_units, per)]
    pieces = []
    for i in range(0, len(sampled), per):
        part = sampled[i : i + per]
        end = sampled[i + per] if i + per < len(sampled) else n_units
        pieces.append((part[0] if i else 0, end))
    return pieces or [(0, n_units)]


def _slice(sampled: list[int], a: int, b: int) -> list[int]:
    import bisect

    return sampled[bisect.bisect_left(sampled, a) : bisect.bisect_left(sampled, b)]


def execute(
    files: list[FileEntry],
    skipped: list[Skipped],
    settings: Settings,
    *,
    rate: float,
    min_units: int,
    seed: int,
    workers: int,
    max_fingerprints: int,
    progress: Callable[[int, int], None] | None = None,
) -> ScanOutput:
    """Run the scan over the listed files and merge what the workers found."""
    from dbstor.analysis.efficiency.compressors import make_fingerprint

    started = time.perf_counter()
    tasks, units, counts = plan(files, settings, rate, min_units, seed)
    accs = [FileAcc(f, units[i], counts[i], SegResult(i)) for i, f in enumerate(files)]
    total = sum(_task_cost(t, settings) for t in tasks)
    fps: dict[int, int] = {}
    level = 0
    done = 0

    def merge(result: TaskResult) -> None:
        nonlocal level, done
        for seg in result.segments:
            _merge_seg(accs[seg.file_idx].seg, seg)
            done += seg.bytes_read
        level = _merge_fps(fps, result.fingerprints, level, max_fingerprints)
        if progress:
            progress(done, total)

    if workers <= 1 or total < INLINE_BYTES or len(tasks) == 1:
        workers = 1
        for task in tasks:
            merge(run_task(settings, task, level))
    else:
        pool: Executor
        if settings.executor == "thread":
            pool = ThreadPoolExecutor(workers)
        else:
            pool = ProcessPoolExecutor(workers)
        with pool:
            pending: set[Future[TaskResult]] = set()
            queue = list(reversed(tasks))
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    pending.add(pool.submit(run_task, settings, queue.pop(), level))
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    merge(fut.result())
    return ScanOutput(
        settings=settings,
        files=accs,
        skipped=skipped,
        fingerprints=fps,
        fp_level=level,
        seconds=time.perf_counter() - started,
        workers=workers,
        fingerprint_name=make_fingerprint()[0],
    )


def _task_cost(task: list[Segment], settings: Settings) -> int:
    unit = settings.unit
    cost = 0
    for s in task:
        if settings.read_all or s.sampled is None:
            cost += min((s.end_unit - s.start_unit) * unit, max(s.size - s.start_unit * unit, 0))
        else:
            cost += len(s.sampled) * unit
    return cost


def _merge_fps(into: dict[int, int], new: dict[int, int], level: int, cap: int) -> int:
    mask = (1 << level) - 1
    get = into.get
    for h, c in new.items():
        if not h & mask:
            into[h] = get(h, 0) + c
    while len(into) > cap:
        level += 1
        mask = (1 << level) - 1
        for h in [h for h in into if h & mask]:
            del into[h]
    return level


def _merge_seg(into: SegResult, seg: SegResult) -> None:
    into.bytes_read += seg.bytes_read
    into.bytes_covered += seg.bytes_covered
    into.blocks += seg.blocks
    into.zero_blocks += seg.zero_blocks
    into.zero_bytes += seg.zero_bytes
    into.nonzero_bytes += seg.nonzero_bytes
    into.units_sampled += seg.units_sampled
    into.bytes_compressed += seg.bytes_compressed
    for g, v in seg.nzg.items():
        into.nzg[g] = into.nzg.get(g, 0) + v
    into.zero_sums.merge(seg.zero_sums)
    for g, sums in seg.nzg_sums.items():
        into.nzg_sums.setdefault(g, RatioSums()).merge(sums)
    for key, sums in seg.comp.items():
        into.comp.setdefault(key, RatioSums()).merge(sums)
    for i in range(HIST_BINS):
        into.hist[i] += seg.hist[i]
    for s, c in seg.stored_hist.items():
        into.stored_hist[s] = into.stored_hist.get(s, 0) + c
    for note in seg.notes:
        if note not in into.notes:
            into.notes.append(note)


def dedup_estimate(fps: dict[int, int], level: int) -> tuple[float | None, float, int, int]:
    """(dedup ratio, standard error, blocks counted, distinct) from the kept fingerprints.

    Exact (error 0) when nothing was dropped (level 0). Otherwise the kept slice of the
    hash space is split into buckets by other hash bits, and the error of the ratio of
    sums is taken from the spread between buckets.
    """
    distinct = len(fps)
    counted = sum(fps.values())
    if not distinct:
        return None, 0.0, 0, 0
    ratio = counted / distinct
    if level == 0:
        return ratio, 0.0, counted, distinct
    n = [0] * CI_BUCKETS
    u = [0] * CI_BUCKETS
    for h, c in fps.items():
        b = (h >> 56) % CI_BUCKETS
        n[b] += c
        u[b] += 1
    k = CI_BUCKETS
    mean_u = distinct / k
    ss = sum((n[i] - ratio * u[i]) ** 2 for i in range(k)) / (k - 1)
    return ratio, math.sqrt(ss / k) / mean_u, counted, distinct
