"""kill -9 of dbstor mid-point: nothing it started keeps running (managed PostgreSQL and
MariaDB with their children, fio and its jobs, forked client processes), the socket and
instance directories it made are gone (and the managed PostgreSQL's /dev/shm segments), the run folder reads as interrupted, and a re-run on
the same target works."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from needs import usable
from proc_tree import alive, cmdline, descendants, watch

from dbstor.results.store import load_run

pytestmark = pytest.mark.integration

BOUND_S = 30  # everything must be gone within this after the kill


def _cgroups_of(pid: int) -> list[Path]:
    """The memory cgroup directories dbstor made for this process (cgroup v1 or v2)."""
    found = []
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        hierarchy, controllers, path = line.split(":", 2)
        if "dbstor-" not in path:
            continue
        for mount in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
            if (hierarchy == "0" or "memory" in controllers.split(",")) and Path(
                mount + path
            ).is_dir():
                found.append(Path(mount + path))
                break
    assert found, Path(f"/proc/{pid}/cgroup").read_text()
    return found


def _shm_segments(pids) -> set[Path]:
    """The /dev/shm/PostgreSQL.* segments these processes map (dynamic shared memory)."""
    found = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
        except OSError:
            continue
        for line in maps.splitlines():
            name = line.split(maxsplit=5)[-1]
            if name.startswith("/dev/shm/PostgreSQL."):
                found.add(Path(name.removesuffix(" (deleted)")))
    return found


def _wait_for(proc, what: str, found, timeout: float = 240) -> dict[int, str]:
    """Poll dbstor's process tree until found(tree) holds; return the tree."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tree = descendants(proc.pid)
        if found(tree):
            return tree
        if proc.poll() is not None:
            pytest.fail(f"dbstor ended before {what}: {proc.communicate()[1]}")
        time.sleep(0.2)
    pytest.fail(f"no {what} after {timeout} s")


def _kill_and_wait(proc, seen: dict[int, str], dirs: list[Path]) -> float:
    """SIGKILL dbstor alone (not its group); wait until nothing it started is left and its
    directories are gone; return how long that took."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    killed = time.monotonic()
    while time.monotonic() - killed < BOUND_S:
        left = {p: cmdline(p) for p, s in seen.items() if alive(p, s)}
        there = [d for d in dirs if os.path.lexists(d)]
        if not left and not there:
            return time.monotonic() - killed
        time.sleep(0.1)
    pytest.fail(f"{BOUND_S} s after kill -9: still running {left}, still there {there}")


def _interrupted(dbstor, out: Path) -> None:
    folder = dbstor.only_run_folder(out)
    raw = dbstor.results(folder)
    assert raw["status"] == "running" and raw["owner"]["pid"]  # as the killed dbstor left it
    run = load_run(folder)
    assert run.status == "interrupted", run.status
    assert any("killed or crashed" in note for note in run.notes), run.notes
    done = dbstor("report", folder)
    assert done.returncode == 0, done.stderr
    assert "interrupted" in (folder / "report.html").read_text(encoding="utf-8")


def test_kill9_of_a_postgres_run_leaves_no_server_client_or_socket(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    args = ("run", "--engine", "postgres", "--target", target, "--client-processes", "2")
    args += ("--users", "4", "--duration", "120", "--warmup", "0", "--scale", "50")
    args += ("--memory-limit", "2GiB")  # a cgroup too
    proc = dbstor.start(*args, "--out", "out")
    me = cmdline(proc.pid)
    _wait_for(proc, "client processes", lambda t: sum(cmdline(p) == me for p in t) >= 3)
    pidfile = next(target.glob("dbstor-pg-*/data/postmaster.pid"))
    lines = pidfile.read_text().splitlines()
    postmaster, sockdir = int(lines[0]), Path(lines[4])
    seen = watch([proc.pid, postmaster], 2.5)
    clients = [p for p in seen if p != proc.pid and cmdline(p) == cmdline(proc.pid)]
    backends = [p for p in seen if "postgres" in cmdline(p)]
    assert clients and len(backends) > 1, {p: cmdline(p) for p in seen}
    instance = pidfile.parent.parent
    cgroups = _cgroups_of(postmaster)
    segments = _shm_segments(seen)
    assert segments, "the server maps no /dev/shm/PostgreSQL.* segment"
    foreign = Path(f"/dev/shm/PostgreSQL.{os.getpid()}")  # not the server's: must stay
    foreign.write_bytes(b"someone else's")
    try:
        took = _kill_and_wait(proc, seen, [sockdir, instance, *cgroups, *segments])
        assert foreign.read_bytes() == b"someone else's"
    finally:
        foreign.unlink()
    print(
        f"postgres, {len(backends)} server and {len(clients)} client processes gone {took:.1f} s after kill -9"
    )
    _interrupted(dbstor, tmp_path / "out")
    again = dbstor(*args[:5], "--users", "2", "--duration", "1", "--scale", "50", "--out", "o2")
    print(f"cgroups gone: {[str(c) for c in cgroups]}")
    assert again.returncode == 0, again.stderr
    assert list(target.iterdir()) == []


def test_kill9_of_a_mariadb_run_leaves_no_server_or_socket(dbstor, tmp_path, server_dir):
    usable("mariadb")
    target = server_dir / "lun"
    target.mkdir()
    args = ("run", "--engine", "mariadb", "--target", target, "--client-processes", "2")
    args += ("--users", "2", "--duration", "120", "--warmup", "0", "--scale", "50")
    proc = dbstor.start(*args, "--out", "out")
    _wait_for(proc, "a MariaDB server", lambda t: any("mariadbd" in cmdline(p) for p in t))
    me = cmdline(proc.pid)  # the client processes are forked when the point starts
    _wait_for(proc, "client processes", lambda t: sum(cmdline(p) == me for p in t) >= 3)
    seen = watch([proc.pid], 1.5)
    servers = [p for p in seen if "mariadbd" in cmdline(p) or "mysqld" in cmdline(p)]
    assert servers, {p: cmdline(p) for p in seen}
    sockets = [
        Path(a.split("=", 1)[1]).parent
        for a in cmdline(servers[0]).split()
        if a.startswith("--socket=")
    ]
    cnf = next(
        a.split("=", 1)[1] for a in cmdline(servers[0]).split() if a.startswith("--defaults-file=")
    )
    sockdirs = [
        Path(line.split("=", 1)[1]).parent
        for line in Path(cnf).read_text().splitlines()
        if line.startswith("socket=")
    ]
    instance = next(p for p in target.iterdir() if p.is_dir())
    took = _kill_and_wait(proc, seen, [*sockets, *sockdirs, instance])
    print(f"mariadb gone {took:.1f} s after kill -9")
    _interrupted(dbstor, tmp_path / "out")


@pytest.mark.skip_without_fio
def test_kill9_of_an_fio_run_leaves_no_fio_and_a_rerun_works(dbstor, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    args = ("io", "--target", target, "--size", "16MiB", "--warmup", "0", "--jobs", "2")
    proc = dbstor.start(*args, "--iodepth", "4", "--duration", "120", "--out", "out")
    _wait_for(proc, "fio on a load point", lambda t: any("point-01.fio" in cmdline(p) for p in t))
    seen = watch([proc.pid], 1.5)
    fios = [p for p in seen if "fio" in cmdline(p).split(" ")[0]]
    assert len(fios) >= 2, {p: cmdline(p) for p in seen}  # fio and its job processes
    took = _kill_and_wait(proc, seen, [])
    print(f"{len(fios)} fio processes gone {took:.1f} s after kill -9")
    _interrupted(dbstor, tmp_path / "out")
    again = dbstor(*args, "--iodepth", "1", "--duration", "1", "--out", "out2")
    assert again.returncode == 0, again.stderr
    assert dbstor.leftovers(target) == []
