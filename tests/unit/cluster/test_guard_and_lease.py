"""The guard removes what a dead agent started; the lease ends an agent whose coordinator is gone.

Real processes: an agent process that starts a guard and a long `sleep` in its own session.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbstor.cluster.agent import HostAgent

AGENT = """
import subprocess, sys, time
from pathlib import Path
from dbstor.cluster.guard import GuardClient
guard = GuardClient()
made = Path(sys.argv[1]) / "made"
made.mkdir()
guard.register(made)
load = subprocess.Popen(["sleep", "300"], start_new_session=True)
seen = Path(sys.argv[1]) / "seen"
guard.acknowledge(seen)  # created once the guard has noted the load
print(load.pid, guard.pid, flush=True)
if sys.argv[2] == "clean":
    while not seen.exists():
        time.sleep(0.05)
    guard.close()
    load.kill()
    sys.exit(0)
time.sleep(300)
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def _wait(predicate, timeout: float = 15.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_a_killed_agent_leaves_no_process_and_no_file(tmp_path):
    agent = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(tmp_path), "die"], stdout=subprocess.PIPE, text=True
    )
    load = int(agent.stdout.readline().split()[0])
    assert _wait(lambda: (tmp_path / "seen").exists())  # the guard has noted the load
    agent.send_signal(signal.SIGKILL)
    agent.wait()
    assert _wait(lambda: _gone(load))
    assert _wait(lambda: not (tmp_path / "made").exists())


def test_a_clean_end_leaves_the_files_to_the_worker(tmp_path):
    agent = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(tmp_path), "clean"], stdout=subprocess.PIPE, text=True
    )
    guard = int(agent.stdout.readline().split()[1])
    assert agent.wait(timeout=30) == 0
    assert _wait(lambda: _gone(guard))  # the guard has ended, on the clean end's quit
    assert (tmp_path / "made").exists()  # the guard did not remove it: the worker's cleanup does


def test_without_heartbeats_the_agent_stops_its_load_and_exits():
    exits: list[int] = []
    agent = HostAgent("h1", lease_s=0.5, exit_process=exits.append)
    load = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        assert _wait(lambda: exits == [3])
        assert load.wait(timeout=10) is not None  # stopped by the agent
    finally:
        if load.poll() is None:
            load.kill()
        agent.close()


LEASED = """
import sys, threading, time
from pathlib import Path
from dbstor.cluster.agent import HostAgent
from dbstor.lifeline import scratch_dir
def hold():
    with scratch_dir("dbstor-fio-") as path:  # as a point's fio job files, mid-point
        print(path, flush=True)
        time.sleep(300)
threading.Thread(target=hold, daemon=True).start()
agent = HostAgent("h1", lease_s=float(sys.argv[1]))
agent.guard_watching(Path(sys.argv[2]))  # created once the guard has noted the watcher
time.sleep(300)
"""


def test_an_agent_whose_lease_ends_mid_point_leaves_no_scratch_folder(tmp_path):
    """The agent stops its load and exits with the point's scratch folder still open: the
    lifeline watcher (spared by the agent and by the guard) removes it."""
    agent = subprocess.Popen(
        [sys.executable, "-c", LEASED, "1.0", str(tmp_path / "seen")],
        stdout=subprocess.PIPE,
        text=True,
    )
    scratch = Path(agent.stdout.readline().strip())
    assert scratch.is_dir()
    assert agent.wait(timeout=30) == 3
    assert _wait(lambda: not scratch.exists())


def test_a_killed_agent_leaves_no_scratch_folder(tmp_path):
    agent = subprocess.Popen(
        [sys.executable, "-c", LEASED, "300", str(tmp_path / "seen")],
        stdout=subprocess.PIPE,
        text=True,
    )
    scratch = Path(agent.stdout.readline().strip())
    assert _wait(lambda: (tmp_path / "seen").exists())  # the guard has noted the watcher
    agent.send_signal(signal.SIGKILL)
    agent.wait()
    assert _wait(lambda: not scratch.exists())


def test_heartbeats_keep_the_agent():
    """On the agent's clock, stepped by the test: beats 1.4 s apart keep a 1.5 s lease
    however long they go on; 1.6 s without one ends it."""
    exits: list[int] = []
    now = [1000.0]
    agent = HostAgent("h1", lease_s=1.5, exit_process=exits.append, now=lambda: now[0])
    try:
        for _ in range(8):
            agent.beat()
            now[0] += 1.4
            assert not agent.lease_over()
        assert exits == []
        now[0] += 0.2
        assert agent.lease_over()
        agent.beat()  # before the lease's own thread acts on it
    finally:
        agent.close()


@pytest.mark.parametrize("command", [["engines", "--json"], ["io", "--help"]])
def test_without_cluster_ray_is_never_imported(command):
    code = (
        "import sys\n"
        "from dbstor.cli import main\n"
        "try:\n"
        f"    main({command!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('RAY', 'ray' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "RAY False"
