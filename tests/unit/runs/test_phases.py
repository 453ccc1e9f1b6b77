"""A run's phase timings: phases add up, a phase measured elsewhere is set once, and the
process's age comes from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from dbstor.runs.phases import Phases, process_age_s


def test_phases_add_up_with_an_injected_clock():
    now = [100.0]
    phases = Phases(clock=lambda: now[0])
    with phases.phase("load_s"):
        now[0] += 12.5
    with phases.phase("load_s"):
        now[0] += 12.25
    phases.add("series_overhead_s", 0.1234)
    phases.set("launch_to_run_s", 0.4567)
    phases.set("left_out_s", None)
    assert phases.timings == {"load_s": 24.75, "series_overhead_s": 0.123, "launch_to_run_s": 0.457}


def test_a_phase_that_raises_is_still_counted():
    now = [0.0]
    phases = Phases(clock=lambda: now[0])
    try:
        with phases.phase("layout_s"):
            now[0] += 2.0
            raise RuntimeError("disk full")
    except RuntimeError:
        pass
    assert phases.timings == {"layout_s": 2.0}


def test_process_age_is_the_time_since_the_process_started():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.5)
        age = process_age_s(child.pid)
        assert age is not None and 0.4 <= age < 30
    finally:
        child.kill()
        child.wait()
    own = process_age_s()
    assert own is not None and own > 0
    assert process_age_s(os.getpid()) >= own
