"""The pause watch: a gap between its wakes, or clocks drifting apart, beyond the tolerance."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from dbstor.results.model import Load, Point
from dbstor.runs.pauses import PauseWatch, mark_paused


class Clocks:
    """A monotonic clock and the other clocks' offsets from it, moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0
        self.boot, self.real = 0.0, 1e9

    def monotonic(self) -> float:
        return self.now

    def offsets(self) -> tuple[float, float]:
        return self.boot, self.real


def _watch(clocks: Clocks) -> PauseWatch:
    return PauseWatch(2.0, 0.25, clock=clocks.monotonic, offsets=clocks.offsets)


def test_regular_wakes_are_no_pause():
    clocks = Clocks()
    watch = _watch(clocks)
    for _ in range(40):
        clocks.now += 0.3  # a little late each time, as on a busy host
        watch.observe()
    assert watch.stop() is None


def test_a_wake_long_after_the_last_is_the_gap():
    clocks = Clocks()
    watch = _watch(clocks)
    clocks.now += 0.25
    watch.observe()
    clocks.now += 7.25  # stopped for 7 s
    watch.observe()
    assert watch.stop() == 7.0


def test_a_suspend_moves_boottime_away_from_monotonic():
    clocks = Clocks()
    watch = _watch(clocks)
    clocks.now += 0.25
    clocks.boot += 30.0  # monotonic stood still while suspended
    watch.observe()
    assert watch.stop() == 30.0


def test_a_wall_clock_step_is_a_jump_too():
    clocks = Clocks()
    watch = _watch(clocks)
    clocks.now += 0.25
    clocks.real -= 5.0
    watch.observe()
    assert watch.stop() == 5.0


def test_a_gap_within_the_tolerance_is_not_marked():
    clocks = Clocks()
    watch = _watch(clocks)
    clocks.now += 1.5
    watch.observe()
    assert watch.stop() is None


def test_mark_paused_makes_an_ok_point_interrupted_with_the_gap():
    point = Point(load=Load("iodepth", 4), duration_s=5)
    mark_paused(point, None)
    assert point.ok and point.paused_s is None
    mark_paused(point, 6.5)
    assert point.status == "interrupted" and point.paused_s == 6.5
    assert "6.5 s" in (point.error or "")
    failed = Point(load=Load("iodepth", 4), duration_s=5, status="failed", error="fio died")
    mark_paused(failed, 6.5)
    assert failed.status == "failed" and failed.error == "fio died"


def test_a_real_sigstop_of_the_watching_process_is_seen():
    """The real thread and clocks: a child watching for 3 s, stopped for 3 s of it."""
    code = (
        "import time; from dbstor.runs.pauses import PauseWatch\n"
        "w = PauseWatch().start(); print('watching', flush=True); time.sleep(4); print(w.stop())"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "watching\n"  # stopped while watching, not before
    os.kill(child.pid, signal.SIGSTOP)
    time.sleep(3.5)
    os.kill(child.pid, signal.SIGCONT)
    out, _ = child.communicate(timeout=30)
    assert 3.0 <= float(out) < 10, out
