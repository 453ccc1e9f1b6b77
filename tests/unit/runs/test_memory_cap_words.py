"""The words of a point killed by dbstor's memory cap: what the run needed, extrapolated
from the memory the earlier points' processes held, and the flag to raise."""

from __future__ import annotations

from dbstor.results.model import Load
from dbstor.runs.database.memory_cap import load_words, needed_bytes, oom_message

MIB = 1 << 20


def test_needed_is_a_line_through_the_last_two_points():
    assert needed_bytes([(8, 100 * MIB), (32, 148 * MIB)], 128) == 340 * MIB
    assert needed_bytes([(8, 100 * MIB)], 16) == 200 * MIB  # one point: scaled by users
    assert needed_bytes([], 16) is None


def test_a_server_killed_by_the_cap_names_the_cap_the_load_and_what_it_needed():
    oom = {"limit": 256 * MIB, "oom_kills": 1}
    line = oom_message(oom, load_words(Load("users", 128, 128), 128), 340 * MIB)
    assert line.startswith("killed by the 256.0 MiB memory cap at 128 users (1 OOM kill in its")
    assert "the run needed about 340.0 MiB" in line
    assert line.endswith("raise --memory-limit, e.g. --memory-limit 1024MiB")
    below = oom_message(oom, "128 users", 200 * MIB)
    assert "needed more than 256.0 MiB (its processes and shared memory held about 200.0" in below


def test_an_embedded_engines_cap_is_the_share_the_user_gave():
    oom = {"limit": 40 * MIB, "given": 16 * MIB, "oom_kills": 2}
    line = oom_message(oom, "8 users", None)
    assert line.startswith(
        "killed by the 16.0 MiB memory cap (the client processes' own memory + 16.0 MiB for "
        "the database = 40.0 MiB) at 8 users (2 OOM kills in its cgroup)"
    )
    assert line.endswith("e.g. --memory-limit 32MiB")
