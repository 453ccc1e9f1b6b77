"""The part of a scan that runs in a worker: read a file range, fingerprint, compress.

A task is a list of segments (a file range in whole units, with the units to compress).
Files are opened read-only (with O_NOATIME where allowed, so not even the access time
changes) and read with pread; nothing is ever written to them.
"""

from __future__ import annotations

import bisect
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dbstor.analysis.efficiency.arrays import ArrayModel
from dbstor.analysis.efficiency.compressors import make_compressor, make_fingerprint
from dbstor.analysis.efficiency.sampling import RatioSums

CHUNK = 4 * 1024 * 1024
HIST_BINS = 16
CI_BUCKETS = 64


@dataclass
class Settings:
    """What every task needs to know; the same for the whole scan."""

    model: ArrayModel
    compressors: tuple[str, ...]  # canonical names; the first is the headline compressor
    group_sizes: tuple[int, ...]  # compression group sizes measured
    head_group: int  # group size of the headline figure and the histogram
    unit: int  # sampling unit: the largest group size (a multiple of the dedup block)
    dedup_block: int
    read_all: bool  # read every block (exact zeros and dedup) or only the sampled units
    throttle_bps: float | None  # per worker
    executor: str = "process"


@dataclass
class Segment:
    file_idx: int
    path: str
    start_unit: int
    end_unit: int
    sampled: list[int] | None  # unit indices to compress; None = all
    size: int  # the file's size when it was listed
    mtime_ns: int


@dataclass
class SegResult:
    """What one segment of one file gave."""

    file_idx: int
    bytes_read: int = 0
    bytes_covered: int = 0
    blocks: int = 0
    zero_blocks: int = 0
    zero_bytes: int = 0
    nonzero_bytes: int = 0
    nzg: dict[int, int] = field(default_factory=dict)  # nonzero group bytes per group size
    units_sampled: int = 0
    bytes_compressed: int = 0
    zero_sums: RatioSums = field(default_factory=RatioSums)  # x unit bytes, y zero bytes
    nzg_sums: dict[int, RatioSums] = field(default_factory=dict)  # x unit bytes, y nzg bytes
    comp: dict[tuple[int, str], RatioSums] = field(default_factory=dict)  # x uncompressed, y stored
    hist: list[int] = field(default_factory=lambda: [0] * HIST_BINS)
    stored_hist: dict[int, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class TaskResult:
    segments: list[SegResult]
    fingerprints: dict[int, int]
    level: int
    seconds: float


class TokenBucket:
    """Bytes-per-second limit on reads: reads borrow tokens and sleep off any debt."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self, n: int) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= n
        if self.tokens < 0:
            time.sleep(-self.tokens / self.rate)


_local = threading.local()


def _tools(settings: Settings) -> tuple[dict[str, Callable[[bytes], int]], Callable[[bytes], int]]:
    cache = getattr(_local, "tools", None)
    if cache is None or cache[0] != settings.compressors:
        comps = {name: make_compressor(name) for name in settings.compressors}
        cache = (settings.compressors, comps, make_fingerprint()[1])
        _local.tools = cache
    return cache[1], cache[2]


def _bucket(settings: Settings) -> TokenBucket | None:
    if not settings.throttle_bps:
        return None
    bucket = getattr(_local, "bucket", None)
    if bucket is None or bucket.rate != settings.throttle_bps:
        bucket = TokenBucket(settings.throttle_bps, max(settings.throttle_bps * 0.05, CHUNK))
        _local.bucket = bucket
    return bucket


def _open(path: str) -> int:
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    noatime = getattr(os, "O_NOATIME", 0)
    if noatime:
        try:
            return os.open(path, flags | noatime)
        except PermissionError:
            pass  # O_NOATIME needs ownership; fall back to a plain read-only open
    return os.open(path, flags)


def run_task(settings: Settings, segments: list[Segment], level: int) -> TaskResult:
    """Scan the segments; keep fingerprints whose low `level` bits are zero."""
    started = time.perf_counter()
    comps, fingerprint = _tools(settings)
    bucket = _bucket(settings)
    fps: dict[int, int] = {}
    mask = (1 << level) - 1
    results = [
        scan_segment(settings, seg, comps, fingerprint, fps, mask, bucket) for seg in segments
    ]
    return TaskResult(results, fps, level, time.perf_counter() - started)


def scan_segment(
    settings: Settings,
    seg: Segment,
    comps: dict[str, Callable[[bytes], int]],
    fingerprint: Callable[[bytes], int],
    fps: dict[int, int],
    mask: int,
    bucket: TokenBucket | None,
) -> SegResult:
    """Read one segment of a file (all of it, or its sampled units) and scan what was read;
    a file that cannot be opened or read, or that changed meanwhile, gives a note, not an
    exception."""
    res = SegResult(seg.file_idx)
    unit = settings.unit
    try:
        fd = _open(seg.path)
    except OSError as exc:
        res.notes.append(f"could not open: {exc.strerror or exc}")
        return res
    try:
        before = os.fstat(fd)
        if settings.read_all:
            ranges = _chunks(seg.start_unit, seg.end_unit, max(1, CHUNK // unit))
        else:
            ranges = _runs(
                seg.sampled if seg.sampled is not None else range(seg.start_unit, seg.end_unit)
            )
        for first, last in ranges:
            offset = first * unit
            want = (last - first) * unit
            if bucket:
                bucket.take(want)
            try:
                buf = os.pread(fd, want, offset)
            except OSError as exc:
                res.notes.append(
                    f"read error at byte {offset}: {exc.strerror or exc}; rest skipped"
                )
                break
            res.bytes_read += len(buf)
            if buf:
                _scan_buffer(settings, seg, res, buf, first, comps, fingerprint, fps, mask)
            if len(buf) < want and offset + len(buf) < seg.size:
                res.notes.append("file shrank while it was read")
                break
        after = os.fstat(fd)
        moved = (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns)
        if stat.S_ISREG(before.st_mode) and (
            moved or before.st_size != seg.size or before.st_mtime_ns != seg.mtime_ns
        ):
            res.notes.append("file changed while it was read; figures mix old and new contents")
    finally:
        os.close(fd)
    return res


def _chunks(start: int, end: int, step: int) -> list[tuple[int, int]]:
    return [(u, min(u + step, end)) for u in range(start, end, step)]


def _runs(units: list[int] | range, limit: int = 64) -> list[tuple[int, int]]:
    """Sorted unit indices -> (first, last+1) runs of adjacent units, at most `limit` long."""
    runs: list[tuple[int, int]] = []
    for u in units:
        if runs and runs[-1][1] == u and u - runs[-1][0] < limit:
            runs[-1] = (runs[-1][0], u + 1)
        else:
            runs.append((u, u + 1))
    return runs


def _scan_buffer(
    settings: Settings,
    seg: Segment,
    res: SegResult,
    buf: bytes,
    first_unit: int,
    comps: dict[str, Callable[[bytes], int]],
    fingerprint: Callable[[bytes], int],
    fps: dict[int, int],
    mask: int,
) -> None:
    bs = settings.dedup_block
    n = len(buf)
    res.bytes_covered += n
    zero = bytes(bs)
    zeros = 0
    zero_tail = 0
    blocks = 0
    get = fps.get
    for off in range(0, n - bs + 1, bs):
        blk = buf[off : off + bs]
        blocks += 1
        if blk == zero:
            zeros += 1
            continue
        h = fingerprint(blk)
        if not h & mask:
            fps[h] = get(h, 0) + 1
    tail = n % bs
    if tail:
        blocks += 1
        blk = buf[n - tail :]
        if blk.count(0) == tail:
            zeros += 1
            zero_tail = tail
        else:
            h = fingerprint(blk)
            if not h & mask:
                fps[h] = get(h, 0) + 1
    zero_bytes = (zeros - (1 if zero_tail else 0)) * bs + zero_tail
    res.blocks += blocks
    res.zero_blocks += zeros
    res.zero_bytes += zero_bytes
    res.nonzero_bytes += n - zero_bytes
    for g in settings.group_sizes:
        res.nzg[g] = res.nzg.get(g, 0) + _nonzero_group_bytes(buf, g)
    unit = settings.unit
    n_units = -(-n // unit)
    if seg.sampled is None or not settings.read_all:
        picks = range(first_unit, first_unit + n_units)
    else:
        lo = bisect.bisect_left(seg.sampled, first_unit)
        hi = bisect.bisect_left(seg.sampled, first_unit + n_units)
        picks = seg.sampled[lo:hi]
    for u in picks:
        a = (u - first_unit) * unit
        _compress_unit(settings, res, buf[a : a + unit], comps)


def _nonzero_group_bytes(buf: bytes, g: int) -> int:
    zero = bytes(g)
    total = 0
    for off in range(0, len(buf), g):
        grp = buf[off : off + g]
        if grp != zero[: len(grp)]:
            total += len(grp)
    return total


def _compress_unit(
    settings: Settings, res: SegResult, data: bytes, comps: dict[str, Callable[[bytes], int]]
) -> None:
    model = settings.model
    head = (settings.head_group, settings.compressors[0])
    length = len(data)
    res.units_sampled += 1
    if not settings.read_all:
        bs = settings.dedup_block
        zero = bytes(bs)
        zb = sum(
            len(data[o : o + bs])
            for o in range(0, length, bs)
            if data[o : o + bs] == zero[: min(bs, length - o)]
        )
        res.zero_sums.add(length, zb)
    for g in settings.group_sizes:
        zero_g = bytes(g)
        nz = whole = 0
        stored = dict.fromkeys(settings.compressors, 0)
        for off in range(0, length, g):
            grp = data[off : off + g]
            if grp == zero_g[: len(grp)]:
                continue  # an all-zero group is removed before compression
            nz += len(grp)
            whole += model.uncompressed_size(len(grp), g)
            for name, comp in comps.items():
                c = comp(grp)
                res.bytes_compressed += len(grp)
                s = model.stored_size(c, len(grp), g)
                stored[name] += s
                if (g, name) == head:
                    b = min(HIST_BINS - 1, c * HIST_BINS // g)
                    res.hist[b] += 1
                    res.stored_hist[s] = res.stored_hist.get(s, 0) + 1
        if not settings.read_all:
            res.nzg_sums.setdefault(g, RatioSums()).add(length, nz)
        for name in settings.compressors:
            res.comp.setdefault((g, name), RatioSums()).add(whole, stored[name])
