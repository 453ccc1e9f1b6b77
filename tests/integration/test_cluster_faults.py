"""Faults on a real loopback Ray cluster: Ctrl-C, a killed coordinator, a killed node, a host
with another dbstor. After each, no fio runs anywhere and no test file is left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cluster_harness import LoopbackCluster, can_run

DRIVER = str(Path(__file__).with_name("cluster_driver.py"))
HOSTS = ["h1", "h2", "h3"]  # h4 is only stalled, last: a long stall can end a node

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster():
    reason = can_run()
    if reason:
        pytest.skip(reason)
    with tempfile.TemporaryDirectory(prefix="dbstor-old-") as old:
        package = Path(old) / "dbstor"
        package.mkdir()
        (package / "__init__.py").write_text('__version__ = "0.0.1"\n')
        made = LoopbackCluster([*HOSTS, "h4", "old"], node_env={"old": {"PYTHONPATH": old}})
        try:
            made.start()
            yield made
        finally:
            made.stop()


@pytest.fixture
def target():
    with tempfile.TemporaryDirectory(prefix="dbstor-cluster-") as folder:
        yield Path(folder)


def start_driver(cluster, target, hosts, duration_s, **more) -> subprocess.Popen:
    spec = {"address": cluster.address, "hosts": hosts, "target": str(target)}
    spec.update(points=1, duration_s=duration_s, **more)
    return cluster.popen([sys.executable, DRIVER, json.dumps(spec)])


def fio_pids(cluster) -> list[int]:
    return [p for p in cluster.find("fio") if cluster.cmdline(p).split(" ")[0].endswith("fio")]


def default_signals() -> None:
    """A harness run under nohup passes SIGHUP on as ignored (dbstor keeps that choice)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def scratch_dirs(cluster) -> set[Path]:
    """The dbstor-fio-* scratch folders the cluster's fio processes run from now."""
    found = set()
    for pid in fio_pids(cluster):
        for word in cluster.cmdline(pid).split(" "):
            if "/dbstor-fio-" in word:
                found.add(Path(word.split("=", 1)[-1]).parent)
    return found


def wait_for(predicate, timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s")


def wait_measuring(cluster, driver, hosts: int) -> None:
    assert json.loads(driver.stdout.readline())["event"] == "prepared"
    wait_for(lambda: len(fio_pids(cluster)) >= hosts, 60)


def test_a_host_with_another_dbstor_is_one_line(cluster):
    proc = cluster.dbstor("hosts", "--cluster", cluster.address, "--hosts", "h1,old")
    assert proc.returncode == 2
    assert "host old runs dbstor 0.0.1, this host 0.1.0: install dbstor 0.1.0 on old" in (
        proc.stderr
    )
    assert cluster.find("HostActor") == []


def test_ctrl_c_stops_every_host(cluster, target):
    driver = start_driver(cluster, target, HOSTS, duration_s=60)
    wait_measuring(cluster, driver, 3)
    driver.send_signal(signal.SIGINT)
    assert driver.wait(timeout=60) == 130, driver.stderr.read()
    assert fio_pids(cluster) == []
    assert list(target.iterdir()) == []


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_ctrl_c_on_an_io_run_stops_every_host_and_keeps_the_folder(
    cluster, target, tmp_path, sig, status
):
    """Ctrl-C, and SIGTERM and SIGHUP the same way, with their own exit statuses."""
    out = tmp_path / "results"
    run = cluster.popen(
        [
            sys.executable,
            *("-m", "dbstor", "io", "--cluster", cluster.address, "--hosts", "h1,h2"),
            *("--target", str(target), "--iodepth", "1", "--duration", "60s"),
            *("--warmup", "0s", "--size", "16MiB", "--out", str(out), "--quiet"),
        ],
        preexec_fn=default_signals,
    )
    # the run's measurement under way (preflight's fio --parse-only runs fio too)
    wait_for(lambda: any(out.glob("*/results.json")) and len(fio_pids(cluster)) >= 2, 120)
    run.send_signal(sig)
    assert run.wait(timeout=60) == status, run.stderr.read()
    assert "interrupted" in run.stderr.read()
    assert json.loads(next(out.glob("*/results.json")).read_text())["status"] == "interrupted"
    wait_for(lambda: fio_pids(cluster) == [], 10)  # every host's fio, stopped by its agent
    wait_for(lambda: not list(target.iterdir()), 30)  # each host's agent removes its own


def test_a_killed_coordinator_leaves_no_load_within_30_s(cluster, target):
    driver = start_driver(cluster, target, ["h1", "h2"], duration_s=120)
    wait_measuring(cluster, driver, 2)
    driver.kill()
    driver.wait()
    took = wait_for(lambda: not fio_pids(cluster) and not list(target.iterdir()), 30)
    print(f"load stopped and files removed {took:.1f} s after the coordinator was killed")
    wait_for(lambda: cluster.find("HostActor") == [], 30)


def test_a_hung_coordinator_leaves_no_load_within_30_s(cluster, target):
    """Ray keeps the actors of a driver that is stopped, not dead: the lease ends them."""
    driver = start_driver(cluster, target, ["h1", "h2"], duration_s=120)
    wait_measuring(cluster, driver, 2)
    driver.send_signal(signal.SIGSTOP)
    try:
        took = wait_for(lambda: not fio_pids(cluster) and not list(target.iterdir()), 30)
        print(f"load stopped and files removed {took:.1f} s after the coordinator hung")
    finally:
        driver.kill()
        driver.send_signal(signal.SIGCONT)
        driver.wait()


def node_processes(cluster, name: str) -> list[int]:
    """A node's raylet and the worker processes it started."""
    raylet = cluster.raylet_of(name)
    children = [p for p in cluster.pids() if _ppid(p) == raylet]
    return [raylet, *children]


def _ppid(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(text[text.rindex(")") + 2 :].split()[1])


def test_a_stalled_node_fails_the_point_naming_it(cluster, target):
    driver = start_driver(cluster, target, HOSTS, duration_s=3, late_grace_s=8)
    wait_measuring(cluster, driver, 3)
    stalled = node_processes(cluster, "h2")
    for pid in stalled:
        os.kill(pid, signal.SIGSTOP)
    try:
        assert driver.wait(timeout=90) == 1
    finally:
        for pid in stalled:
            os.kill(pid, signal.SIGCONT)
    stderr = driver.stderr.read()
    assert "a load point failed: host h2: did not finish the point in time" in stderr, stderr
    took = wait_for(lambda: not fio_pids(cluster) and not list(target.iterdir()), 30)
    print(f"the stalled host cleaned up {took:.1f} s after it was let go")


def test_a_node_killed_mid_point_fails_the_point_naming_it(cluster, target):
    driver = start_driver(cluster, target, HOSTS, duration_s=60)
    wait_measuring(cluster, driver, 3)
    os.kill(cluster.raylet_of("h3"), signal.SIGKILL)
    assert driver.wait(timeout=90) == 1
    stderr = driver.stderr.read()
    assert "a load point failed: host h3: died or was cut off mid-point" in stderr, stderr
    took = wait_for(lambda: not fio_pids(cluster) and not list(target.iterdir()), 30)
    print(f"every host's load stopped and files removed {took:.1f} s after the driver ended")


def test_an_io_run_keeps_finished_points_when_a_node_dies(cluster, target, tmp_path):
    out = tmp_path / "results"
    run = cluster.popen(
        [
            sys.executable,
            *("-m", "dbstor", "io", "--cluster", cluster.address, "--hosts", "h1,h2"),
            *("--target", str(target), "--iodepth", "1,2", "--duration", "6s"),
            *("--warmup", "0s", "--size", "16MiB", "--out", str(out), "--quiet"),
        ]
    )

    def finished_points() -> int:
        found = list(out.glob("*/results.json"))
        return len(json.loads(found[0].read_text())["points"]) if found else 0

    wait_for(lambda: finished_points() == 1, 120)
    wait_for(lambda: len(fio_pids(cluster)) >= 2, 30)  # the second point is running
    scratch = scratch_dirs(cluster)
    assert len(scratch) >= 2, scratch  # each host's fio runs from its own scratch folder
    os.kill(cluster.raylet_of("h2"), signal.SIGKILL)
    assert run.wait(timeout=120) == 1
    stderr = run.stderr.read()
    assert "a load point failed: host h2: died or was cut off mid-point" in stderr, stderr
    results = json.loads(next(out.glob("*/results.json")).read_text())
    assert [p["status"] for p in results["points"]] == ["ok", "failed"]
    assert "host h2" in results["points"][1]["error"]
    assert results["status"] == "failed"
    wait_for(lambda: not fio_pids(cluster) and not list(target.iterdir()), 30)
    # the dead host's scratch folder too: Ray kills a dying worker's children, so the
    # lifeline watcher that removes it must not be one of them (lifeline.py, detached)
    wait_for(lambda: not [d for d in scratch if d.exists()], 30)


def test_an_io_run_with_a_stalled_host_ends_naming_it_and_does_not_hang(cluster, target, tmp_path):
    out = tmp_path / "results"
    run = cluster.popen(
        [
            sys.executable,
            *("-m", "dbstor", "io", "--cluster", cluster.address, "--hosts", "h1,h4"),
            *("--target", str(target), "--iodepth", "1", "--duration", "3s"),
            *("--warmup", "0s", "--size", "16MiB", "--out", str(out), "--quiet"),
        ]
    )
    wait_for(
        lambda: len([p for p in fio_pids(cluster) if "point-" in cluster.cmdline(p)]) >= 2, 120
    )
    stalled = node_processes(cluster, "h4")
    for pid in stalled:
        os.kill(pid, signal.SIGSTOP)
    try:
        code = run.wait(timeout=150)  # the point's end + 30 s, then a bounded clean-up
    finally:
        for pid in stalled:
            os.kill(pid, signal.SIGCONT)
    stderr = run.stderr.read()
    assert code == 1, stderr
    assert "host h4: did not finish the point in time" in stderr, stderr
    results = json.loads(next(out.glob("*/results.json")).read_text())
    assert [p["status"] for p in results["points"]] == ["failed"]
    wait_for(lambda: not fio_pids(cluster) and not list(target.iterdir()), 60)
