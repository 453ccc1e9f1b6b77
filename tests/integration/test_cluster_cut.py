"""A host cut off mid-point on a real Ray cluster: its own network namespace, its link dropped.

h1 (the head) and h2 share one namespace; h3 has a namespace of its own, joined to theirs by
a veth pair with two private addresses (cluster_harness.LinkedCluster). Mid-point the test
drops every packet on that link with nft, both ways and silently, as when a host's cable or
switch port goes: h3 keeps running and measuring but nothing it sends arrives and nothing
reaches it. The docs/cluster.md Faults row "a host hangs or is cut off" must hold.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cluster_harness import (
    CUT_IP,
    HEAD_IP,
    LinkedCluster,
    can_cut,
    can_run,
    in_link,
    ip_of,
    is_wildcard,
)

HOSTS = ["h1", "h2", "h3"]
POINT_S = 6
LATE_GRACE_S = 30  # session.LATE_GRACE_S: a host this late after the point's end is given up
CLEAN_UP_S = 15 + 30  # session.STOP_TIMEOUT_S + CLOSE_TIMEOUT_S at most, after giving up

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster():
    reason = can_run() or can_cut()
    if reason:
        pytest.skip(reason)
    made = LinkedCluster(HOSTS)
    try:
        made.start()
        yield made
    finally:
        made.stop()


@pytest.fixture
def target():
    with tempfile.TemporaryDirectory(prefix="dbstor-cluster-") as folder:
        yield Path(folder)


def fio_pids(cluster, pids) -> list[int]:
    return [p for p in pids if cluster.cmdline(p).split(" ")[0].endswith("fio")]


def wait_for(predicate, timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s")


def test_a_host_cut_off_mid_point_fails_it_naming_the_host(cluster, target, tmp_path):
    out = tmp_path / "results"
    run = cluster.popen(
        [
            sys.executable,
            *("-m", "dbstor", "io", "--cluster", cluster.address, "--hosts", ",".join(HOSTS)),
            *("--target", str(target), "--iodepth", "1,2", "--duration", f"{POINT_S}s"),
            *("--warmup", "0s", "--size", "16MiB", "--out", str(out), "--quiet"),
        ]
    )
    cut_folder = target / "dbstor-host-h3"

    def finished_points() -> int:
        found = list(out.glob("*/results.json"))
        return len(json.loads(found[0].read_text())["points"]) if found else 0

    def measuring(pids) -> bool:
        return any("point-" in cluster.cmdline(p) for p in fio_pids(cluster, pids))

    wait_for(lambda: finished_points() == 1, 180)
    # every socket of the cluster, the coordinator's too, stays on loopback or the link; Ray
    # listens on the wildcard address with a non-loopback node address, which in these
    # namespaces means only loopback and the link: they have no other address
    assert set(cluster.addresses()) == {"127.0.0.1", "::1", HEAD_IP, CUT_IP}
    sockets = cluster.sockets()
    assert len(sockets) > 10

    def inside(local: str, remote: str, state: str) -> bool:
        if state == "LISTEN":
            return in_link(local) or is_wildcard(local)
        return in_link(local) and in_link(remote)

    outside = [s for s in sockets if not inside(*s[1:])]
    assert outside == []
    assert {str(ip_of(s[2])) for s in sockets} >= {HEAD_IP, CUT_IP}

    wait_for(lambda: measuring(cluster.pids_of_cut_host()), 30)  # the second point on h3
    wait_for(lambda: len(fio_pids(cluster, cluster.pids())) >= 3, 30)
    agent = [p for p in cluster.pids_of_cut_host() if "HostActor" in cluster.cmdline(p)]
    assert len(agent) == 1, agent
    cluster.cut()
    cut_at = time.monotonic()
    try:
        # cut off, h3 still measures; its lease runs out and it stops and cleans up by itself
        took = wait_for(
            lambda: not fio_pids(cluster, cluster.pids_of_cut_host()) and not cut_folder.exists(),
            40,
        )
        print(f"h3 stopped its load and removed its files {took:.1f} s after its link was cut")
        took = wait_for(lambda: not any(cluster.cmdline(p) for p in agent), 20)
        print(f"and its agent (pid {agent[0]}) exited {took:.1f} s later")
        code = run.wait(timeout=POINT_S + LATE_GRACE_S + CLEAN_UP_S + 30)
        ended = time.monotonic() - cut_at
    finally:
        cluster.mend()
    stderr = run.stderr.read()
    print(f"the run ended {ended:.1f} s after the cut (the point had at most {POINT_S} s left)")
    assert code == 1, stderr
    assert ended <= POINT_S + LATE_GRACE_S + CLEAN_UP_S
    assert "a load point failed: host h3:" in stderr, stderr
    print(next(line for line in stderr.splitlines() if "a load point failed" in line))
    results = json.loads(next(out.glob("*/results.json")).read_text())
    assert [p["status"] for p in results["points"]] == ["ok", "failed"]
    assert "host h3" in results["points"][1]["error"]
    assert results["status"] == "failed"
    assert sorted(h["host"] for h in results["points"][0]["hosts"]) == HOSTS
    # the other hosts were stopped and cleaned up by the coordinator before it exited
    assert fio_pids(cluster, cluster.pids()) == []
    assert list(target.iterdir()) == []
    # with the link back, nothing comes back to life on h3
    time.sleep(3)
    assert fio_pids(cluster, cluster.pids()) == []
    assert list(target.iterdir()) == []
