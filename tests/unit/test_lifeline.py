"""The lifeline watcher with real processes: what a process registered is killed and removed
when that process is SIGKILLed, what it forgot is left alone, a forked child does not keep the
watcher waiting, and a results folder whose writer is gone reads as interrupted."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from dbstor import lifeline
from dbstor.results.store import load_run, save_run

GOLDEN_RUN = Path(__file__).parents[1] / "golden" / "sqlite-brokerage" / "results.json"

OWNER = textwrap.dedent(
    """
    import os, subprocess, sys, time
    from pathlib import Path
    from dbstor import lifeline
    kept, gone = Path(sys.argv[1]), Path(sys.argv[2])
    a = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"], start_new_session=True)
    b = subprocess.Popen(["sleep", "300"])
    lifeline.watch_tree(a.pid)
    lifeline.watch_tree(b.pid)
    lifeline.forget_tree(b.pid)
    gone.mkdir(); kept.mkdir()
    held = lifeline.scratch_dir()
    scratch = held.__enter__()
    lifeline.watch_dir(gone)
    lifeline.watch_dir(kept)
    lifeline.forget_dir(kept)
    if os.fork() == 0:  # a child that outlives its parent must not hold the watcher's pipe
        time.sleep(300)
        os._exit(0)
    print(a.pid, b.pid, lifeline.watcher_pid(), scratch, flush=True)
    time.sleep(300)
    """
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _children_of(pid: int) -> list[int]:
    out = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def test_sigkill_of_the_owner_kills_its_trees_and_removes_its_dirs(tmp_path):
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    src = str(Path(lifeline.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": src}
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(kept), str(gone)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    b, forked = 0, []
    try:
        line = owner.stdout.readline().split()
        a, b, watcher, scratch = int(line[0]), int(line[1]), int(line[2]), Path(line[3])
        assert scratch.is_dir()
        grandchildren = _children_of(a)
        forked = [p for p in _children_of(owner.pid) if p not in (a, b, watcher)]
        assert grandchildren and forked
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (_alive(a) or gone.exists() or _alive(watcher)):
            time.sleep(0.05)
        assert not _alive(a) and not any(_alive(p) for p in grandchildren)
        assert not gone.exists() and not scratch.exists() and not _alive(watcher)
        assert _alive(b) and kept.is_dir(), "forgotten things are left alone"
    finally:
        for pid in (b, *forked):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_directory_replaced_since_is_not_removed(tmp_path):
    path = tmp_path / "d"
    path.mkdir()
    info = os.lstat(path)
    path.rmdir()
    path.mkdir()  # someone else's now, same name
    (path / "theirs").write_text("x")
    lifeline.remove_dirs({str(path): (info.st_dev, info.st_ino + 10**9)})
    assert (path / "theirs").exists()
    link = tmp_path / "link"
    link.symlink_to(path)
    lifeline.remove_dirs({str(link): (os.lstat(link).st_dev, os.lstat(link).st_ino)})
    assert link.is_symlink() and (path / "theirs").exists()


def test_owner_facts_tell_a_live_writer_from_a_dead_one():
    assert lifeline.owner_gone(lifeline.owner_facts()) is False
    dead = subprocess.Popen(["true"])
    facts = {**lifeline.owner_facts(), "pid": dead.pid, "start_time": lifeline.start_time(dead.pid)}
    dead.wait()
    assert lifeline.owner_gone(facts) is True
    assert lifeline.owner_gone({**lifeline.owner_facts(), "boot_id": "another-boot"}) is True
    assert lifeline.owner_gone({**facts, "host": socket.gethostname() + "-other"}) is None
    assert lifeline.owner_gone({"pid": "x"}) is None and lifeline.owner_gone(None) is None


def test_a_running_folder_whose_writer_is_gone_reads_as_interrupted(tmp_path):
    data = json.loads(GOLDEN_RUN.read_text(encoding="utf-8"))
    data["status"] = "running"
    from dbstor.results.model import run_from_dict

    run = run_from_dict(data)
    save_run(tmp_path, run)  # records this process as the writer
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert written["owner"]["pid"] == os.getpid()
    assert load_run(tmp_path).status == "running"  # its writer still runs
    dead = subprocess.Popen(["true"])
    written["owner"].update(pid=dead.pid, start_time=lifeline.start_time(dead.pid))
    dead.wait()
    (tmp_path / "results.json").write_text(json.dumps(written), encoding="utf-8")
    again = load_run(tmp_path)
    assert again.status == "interrupted" and "killed or crashed" in again.notes[-1]
    written["owner"]["host"] = "elsewhere"  # another host: cannot tell, stays as written
    (tmp_path / "results.json").write_text(json.dumps(written), encoding="utf-8")
    assert load_run(tmp_path).status == "running"


def _record(path: Path) -> tuple[int, int, int, int]:
    info = os.lstat(path)
    return os.major(info.st_dev), os.minor(info.st_dev), info.st_ino, info.st_uid


def test_only_the_recorded_segment_is_removed_never_a_replacement_or_a_link(tmp_path):
    kept, replaced, linked = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for path in (kept, replaced, linked):
        path.write_bytes(b"segment")
    recorded = {str(p): _record(p) for p in (kept, replaced, linked)}
    (tmp_path / "new").write_bytes(b"someone else's, made since")
    os.replace(tmp_path / "new", replaced)
    (tmp_path / "victim").write_bytes(b"victim")
    linked.unlink()
    linked.symlink_to(tmp_path / "victim")
    lifeline.remove_segments(recorded)
    assert not kept.exists()
    assert replaced.read_bytes() == b"someone else's, made since"
    assert linked.is_symlink() and (tmp_path / "victim").read_bytes() == b"victim"


def test_a_mapped_segment_of_a_watched_tree_is_removed_when_its_owner_is_killed(tmp_path):
    """A real server process maps a /dev/shm file (as PostgreSQL's dynamic shared memory
    does); its owner registers it with the prefix and is SIGKILLed; another /dev/shm file
    of the same prefix stays."""
    prefix = f"dbstor-test-{os.getpid()}."
    mapped, other = Path(f"/dev/shm/{prefix}1"), Path(f"/dev/shm/{prefix}2")
    other.write_bytes(b"x" * 4096)
    server = (
        "import mmap, os, sys, time\n"
        f"fd = os.open({str(mapped)!r}, os.O_CREAT | os.O_RDWR, 0o600)\n"
        "os.ftruncate(fd, 4096); held = mmap.mmap(fd, 4096); print(flush=True); time.sleep(300)"
    )
    code = textwrap.dedent(
        f"""
        import subprocess, sys, time
        from dbstor import lifeline
        server = subprocess.Popen([sys.executable, "-c", {server!r}], stdout=subprocess.PIPE)
        server.stdout.readline()
        lifeline.watch_tree(server.pid, {prefix!r})
        print(lifeline.watcher_pid(), flush=True)
        time.sleep(300)
        """
    )
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        watcher = int(owner.stdout.readline())
        assert mapped.exists()
        owner.kill()
        owner.wait(10)
        deadline = time.monotonic() + 20
        while _alive(watcher) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not mapped.exists()
        assert other.exists()
    finally:
        owner.kill()
        for path in (mapped, other):
            path.unlink(missing_ok=True)
