"""A host's load runs at the coordinator's niceness, not at Ray's worker niceness (15)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from dbstor.cluster.agent import match_nice
from dbstor.cluster.runs import nice_warnings

CHILD_NICE = [sys.executable, "-c", "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"]


def in_a_thread_at_nice_15(work):
    """Run work() in a thread started at nice 15, as a Ray worker's threads are."""
    got = {}

    def body():
        os.setpriority(os.PRIO_PROCESS, 0, 15)
        got["value"] = work()

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    return got["value"]


def child_nice() -> int:
    return int(subprocess.run(CHILD_NICE, capture_output=True, text=True, check=True).stdout)


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering niceness needs root")
def test_processes_started_after_matching_run_at_the_coordinators_niceness():
    def work():
        before = child_nice()
        now = match_nice(0)
        return before, now, child_nice()

    before, now, after = in_a_thread_at_nice_15(work)
    assert (before, now, after) == (15, 0, 0)
    assert os.getpriority(os.PRIO_PROCESS, 0) == 0  # only the calling thread was changed


def test_without_a_wanted_niceness_nothing_changes():
    assert in_a_thread_at_nice_15(lambda: (match_nice(None), child_nice())) == (15, 15)


def test_a_host_left_at_a_higher_niceness_gets_one_line_with_the_fix():
    facts = {"h1": {"load_nice": 0}, "h2": {"load_nice": 15}, "h3": {}}
    (line,) = nice_warnings(facts, 0)
    assert line.startswith("host h2: its load runs at nice 15, not 0 as here")
    assert "RAY_worker_niceness=0" in line
    assert nice_warnings(facts, 15) == []
