"""One telemetry sample a second beside a load point, in a background thread.

Each tick reads /proc/stat and /proc/diskstats once and keeps the cumulative counters
with their timestamp. Per-interval samples (percentages and rates) are derived from
consecutive snapshots; a window summary is derived from the two snapshots that bound the
window, so it is exact rather than an average of per-second figures.

The counters are kept in typed arrays (eight bytes a number, about 0.15 KiB a second with
one device) and the samples made from them when asked for: held as dicts and objects they
took about 1.7 KiB a second, 6 MiB over an hour-long point (bench/bench_soak.py).
"""

from __future__ import annotations

import threading
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass, fields
from itertools import pairwise
from pathlib import Path
from typing import Any

from dbstor.results.model import SAMPLE_KEYS, CpuStats, DeviceStats
from dbstor.telemetry.cpu import PROC_STAT, CpuTimes, cpu_stats, parse_proc_stat
from dbstor.telemetry.disk import PROC_DISKSTATS, DiskCounters, device_stats, parse_diskstats

__all__ = ["SAMPLE_KEYS", "Sample", "Sampler", "Snapshot", "device_window", "summarise"]

_CPU_FIELDS = fields(CpuTimes)
_DISK_WIDTH = len(fields(DiskCounters))
END_SLACK_S = 0.3  # a snapshot this soon after a window's end stands for its end
_MIN_PARTIAL = 0.1  # a last partial interval shorter than this share of one is dropped


@dataclass(frozen=True)
class Snapshot:
    """Cumulative counters at `t` seconds after the sampler started."""

    t: float
    cpu: CpuTimes
    disks: dict[str, DiskCounters]  # the sampled devices, top device first


class Sample(dict[str, Any]):
    """One interval's figures under SAMPLE_KEYS; `before`/`after` keep the counter
    snapshots it came from so that summarise() can compute any window exactly."""

    __slots__ = ("after", "before")

    def __init__(self, before: Snapshot, after: Snapshot, values: dict[str, Any]) -> None:
        super().__init__(values)
        self.before = before
        self.after = after


def _read(path: str) -> Callable[[], str]:
    return lambda: Path(path).read_text()


class Sampler:
    """Samples host CPU and the given block devices every `interval` seconds.

    `devices` are /proc/diskstats names, top device first (see devices_for_path); the
    dev_* figures and the summary use the first one. `clock` stamps the snapshots;
    `read_stat` and `read_diskstats` return the text of /proc/stat and /proc/diskstats
    (injectable for tests). A read failure in the thread stops sampling and is kept in
    `error`; stop() still returns the samples taken before it.
    """

    def __init__(
        self,
        devices: Sequence[str] = (),
        interval: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        read_stat: Callable[[], str] | None = None,
        read_diskstats: Callable[[], str] | None = None,
    ) -> None:
        if interval <= 0:
            raise ValueError(f"interval must be positive, got {interval}")
        self.devices = list(dict.fromkeys(devices))
        self.interval = interval
        self._clock = clock
        self._read_stat = read_stat or _read(PROC_STAT)
        self._read_diskstats = read_diskstats or _read(PROC_DISKSTATS)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = 0.0
        self._first: Snapshot | None = None  # the baseline; then one snapshot a tick:
        self._times = array("d")
        self._counters = array("q")  # its CPU times, then each device's counters
        self._last: Snapshot | None = None
        self._stopped = False
        self.error: Exception | None = None

    # --- lifecycle ---------------------------------------------------------------

    def start(self) -> None:
        """Take the baseline snapshot now (raising if it cannot) and start the thread."""
        if self._thread is not None:
            raise RuntimeError("Sampler already started")
        self._t0 = self._clock()
        self._last = self._first = self._snapshot(self._t0)
        self._thread = threading.Thread(target=self._run, name="dbstor-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> list[Sample]:
        """Stop the thread, add the last partial interval, return all samples.

        Safe to call twice and before start().
        """
        if self._thread is None or self._stopped:
            return self.samples
        self._stopped = True
        self._stop.set()
        self._thread.join(timeout=max(5.0, 2 * self.interval))
        if self.error is None and not self._thread.is_alive():
            try:
                self._tick(final=True)
            except Exception as exc:  # keep what we have; the caller sees .error
                self.error = exc
        return self.samples

    # --- reading while running ---------------------------------------------------

    @property
    def samples(self) -> list[Sample]:
        """The samples so far, made afresh (safe while running)."""
        with self._lock:
            first, times, counters = (
                self._first,
                array("d", self._times),
                array("q", self._counters),
            )
        if first is None:
            return []
        width = len(counters) // len(times) if times else 0
        snaps = [first] + [
            self._unpack(t, counters[i * width : (i + 1) * width]) for i, t in enumerate(times)
        ]
        return [make_sample(a, b) for a, b in pairwise(snaps)]

    def latest(self) -> Sample | None:
        """The most recent sample, or None before the first interval ends."""
        with self._lock:
            if not self._times:
                return None
            width = len(self._counters) // len(self._times)
            n = len(self._times)
            after = self._unpack(self._times[-1], self._counters[(n - 1) * width :])
            if n == 1:
                before = self._first
            else:
                before = self._unpack(
                    self._times[-2], self._counters[(n - 2) * width : (n - 1) * width]
                )
        assert before is not None
        return make_sample(before, after)

    def _unpack(self, t: float, numbers: Sequence[int]) -> Snapshot:
        cpu_width = len(_CPU_FIELDS)
        disks = {
            name: DiskCounters(
                *numbers[cpu_width + k * _DISK_WIDTH : cpu_width + (k + 1) * _DISK_WIDTH]
            )
            for k, name in enumerate(self.devices)
        }
        return Snapshot(t, CpuTimes(*numbers[:cpu_width]), disks)

    def summarise(
        self,
        samples: Sequence[Sample] | None = None,
        start_s: float | None = None,
        end_s: float | None = None,
        interpolate: bool = False,
    ) -> tuple[CpuStats, DeviceStats | None]:
        """summarise() over `samples` (this sampler's own when None)."""
        return summarise(self.samples if samples is None else samples, start_s, end_s, interpolate)

    # --- the thread --------------------------------------------------------------

    def _run(self) -> None:
        # The schedule runs on real time; the injected clock only stamps snapshots.
        due = time.monotonic() + self.interval
        while not self._stop.wait(max(0.0, due - time.monotonic())):
            try:
                self._tick(final=False)
            except Exception as exc:  # never die silently: record and stop sampling
                self.error = exc
                return
            due += self.interval
            now = time.monotonic()
            if due <= now:  # fell behind (host stalled): skip ahead, do not burst
                due = now + self.interval

    def _snapshot(self, now: float | None = None) -> Snapshot:
        t = (self._clock() if now is None else now) - self._t0
        cpu = parse_proc_stat(self._read_stat())
        disks: dict[str, DiskCounters] = {}
        if self.devices:
            table = parse_diskstats(self._read_diskstats())
            for name in self.devices:
                if name not in table:
                    raise LookupError(f"device {name!r} is not in /proc/diskstats")
                disks[name] = table[name]
        return Snapshot(t, cpu, disks)

    def _tick(self, final: bool) -> None:
        snap = self._snapshot()
        before = self._last
        assert before is not None
        if final and snap.t - before.t < _MIN_PARTIAL * self.interval:
            return
        numbers = list(astuple(snap.cpu))
        for name in self.devices:
            numbers += astuple(snap.disks[name])
        with self._lock:
            self._times.append(snap.t)
            self._counters.extend(numbers)
            self._last = snap


def make_sample(before: Snapshot, after: Snapshot) -> Sample:
    """The per-interval figures between two snapshots (dev_* None without devices)."""
    cpu = cpu_stats(before.cpu, after.cpu)
    dev = _device(before, after)
    values = {
        "t_s": round(after.t, 3),
        "cpu_util_pct": cpu.util_pct,
        "cpu_user_pct": cpu.user_pct,
        "cpu_system_pct": cpu.system_pct,
        "cpu_iowait_pct": cpu.iowait_pct,
        "dev_read_iops": dev.read_iops if dev else None,
        "dev_write_iops": dev.write_iops if dev else None,
        "dev_read_mbps": dev.read_mbps if dev else None,
        "dev_write_mbps": dev.write_mbps if dev else None,
        "dev_read_await_ms": dev.read_await_ms if dev else None,
        "dev_write_await_ms": dev.write_await_ms if dev else None,
        "dev_util_pct": dev.util_pct if dev else None,
    }
    return Sample(before, after, values)


def _device(before: Snapshot, after: Snapshot) -> DeviceStats | None:
    if not after.disks:
        return None
    top = next(iter(after.disks))
    return device_stats(before.disks, after.disks, after.t - before.t, top)


def summarise(
    samples: Sequence[Sample],
    start_s: float | None = None,
    end_s: float | None = None,
    interpolate: bool = False,
) -> tuple[CpuStats, DeviceStats | None]:
    """CPU and top-device figures over [start_s, end_s] seconds since the sampler started.

    Uses the counter snapshots nearest to start_s and end_s (the first and last when
    None), so the result is exact over the actual span between them; with `interpolate`,
    the counters at start_s and end_s themselves, each interpolated between the snapshots
    around it, or at end_s a snapshot read within END_SLACK_S after it (a window that is
    exactly the measured work's, so its rates compare with the work's own). All figures are None when the span is empty. Raises ValueError for samples without counters (rows
    read back from CSV or JSON).
    """
    if not samples:
        return CpuStats(), None
    if not all(isinstance(s, Sample) for s in samples):
        raise ValueError("summarise() needs the samples from a Sampler, not copied rows")
    snaps: dict[int, Snapshot] = {}
    for s in samples:
        snaps.setdefault(id(s.before), s.before)
        snaps.setdefault(id(s.after), s.after)
    ordered = sorted(snaps.values(), key=lambda snap: snap.t)
    first = ordered[0] if start_s is None else _nearest(ordered, start_s)
    last = ordered[-1] if end_s is None else _nearest(ordered, end_s)
    if interpolate and start_s is not None and end_s is not None:
        first, last = _at(ordered, start_s), _at(ordered, end_s)
        just_after = next((snap for snap in ordered if snap.t >= end_s), None)
        if just_after is not None and just_after.t - end_s <= END_SLACK_S:
            # read just after the work ended (the sampler's stop): its counters are the
            # work's end; interpolating across an interval it was idle in would not be
            last = Snapshot(end_s, just_after.cpu, just_after.disks)
    if last.t <= first.t:
        top = next(iter(first.disks), None)
        return CpuStats(), DeviceStats(name=top) if top else None
    return cpu_stats(first.cpu, last.cpu), _device(first, last)


def device_window(
    samples: Sequence[Sample], start_s: float | None = None, end_s: float | None = None
) -> dict[str, DeviceStats]:
    """Every sampled device's figures over the same window as summarise()'s top device
    (the snapshots nearest start_s and end_s): name -> DeviceStats, empty without samples
    or devices."""
    if not samples or not all(isinstance(s, Sample) for s in samples):
        return {}
    ordered = sorted(
        {id(x): x for s in samples for x in (s.before, s.after)}.values(), key=lambda snap: snap.t
    )
    first = ordered[0] if start_s is None else _nearest(ordered, start_s)
    last = ordered[-1] if end_s is None else _nearest(ordered, end_s)
    seconds = last.t - first.t
    return {
        name: device_stats(first.disks, last.disks, seconds, name)
        for name in last.disks
        if name in first.disks
    }


def _at(ordered: list[Snapshot], t: float) -> Snapshot:
    """The counters at `t`, linear between the snapshots around it (the nearest snapshot
    outside the sampled span): over one interval the I/O is taken as even."""
    after = next((i for i, snap in enumerate(ordered) if snap.t >= t), None)
    if after is None or after == 0:
        return _nearest(ordered, t)
    a, b = ordered[after - 1], ordered[after]
    f = (t - a.t) / (b.t - a.t)

    def mix(x: Any, y: Any) -> Any:
        values = {k.name: getattr(x, k.name) for k in fields(x)}
        return type(x)(**{k: v + (getattr(y, k) - v) * f for k, v in values.items()})

    disks = {name: mix(a.disks[name], b.disks[name]) for name in a.disks if name in b.disks}
    return Snapshot(t, mix(a.cpu, b.cpu), disks)


def _nearest(ordered: list[Snapshot], t: float) -> Snapshot:
    """The snapshot closest to t (the later one on a tie)."""
    return min(reversed(ordered), key=lambda snap: abs(snap.t - t))
