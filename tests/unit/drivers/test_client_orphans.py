"""A client process whose parent dies without a word (kill -9, an OOM kill) ends by itself:
it closes its copies of the parent's pipe ends, so its next read is an end of file rather
than a wait for ever (before, a Ctrl-C landing while the clients forked left one behind)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

PARENT = """
import os, signal, sys
from pathlib import Path
from dbstor.drivers.processes import Hooks, UserLoad, run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.blocks import BlocksWorkload

class DieOnJoin:  # joined first thing in the child: note its pid, then kill the parent
    def join(self):
        Path(sys.argv[1]).write_text(str(os.getpid()))
        os.kill(os.getppid(), signal.SIGKILL)
    def tighten(self):
        pass

engine = SQLiteEngine(EngineSettings(paths={"data": [Path(sys.argv[2])]}))
engine.start()
workload = BlocksWorkload(50)
workload.create(engine, lambda line: None)
run_in_processes(UserLoad.of([Instance(engine, workload)], 1, 0.0, 1.0), 2, Hooks(group=DieOnJoin()))
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_client_whose_parent_is_killed_exits_by_itself(tmp_path):
    pid_file = tmp_path / "child.pid"
    parent = subprocess.run(
        [sys.executable, "-c", PARENT, str(pid_file), str(tmp_path)],
        capture_output=True,
        timeout=60,
    )
    assert parent.returncode == -9, parent.stderr  # killed by its own child, as planned
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _alive(child)
    if alive:
        os.kill(child, 9)
    assert not alive, "the client process waited for ever on a parent that is gone"
