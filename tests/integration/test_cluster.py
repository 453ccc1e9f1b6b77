"""dbstor on a real Ray cluster of three named hosts (h1, h2, h3) on loopback, with real fio."""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from blkio_throttle import Throttle, device_of
from cluster_harness import LoopbackCluster, can_run, is_loopback
from loopfs import mounted_loop_fs

from dbstor import __version__
from dbstor.cluster.clock import SKEW_FLOOR_S

DRIVER = str(Path(__file__).with_name("cluster_driver.py"))
HOSTS = ["h1", "h2", "h3"]

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def loopback_cluster():
    reason = can_run()
    if reason:
        pytest.skip(reason)
    cluster = LoopbackCluster(HOSTS)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def target():
    with tempfile.TemporaryDirectory(prefix="dbstor-cluster-") as folder:
        yield Path(folder)


def drive(cluster, **spec):
    return cluster.run([sys.executable, DRIVER, json.dumps({"address": cluster.address, **spec})])


def events(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def test_hosts_lists_every_named_host(loopback_cluster):
    proc = loopback_cluster.dbstor("hosts", "--cluster", loopback_cluster.address, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["name"] for r in rows] == HOSTS
    for row in rows:
        assert row["named_by"] == "resource"
        assert row["dbstor"] == __version__
        assert row["fio"].startswith("fio-")
        assert "sqlite" in row["engines"]
        assert row["address"] == "127.0.0.1"
        assert abs(row["clock_offset_ms"]) < 50  # one machine, one clock
        assert 0 <= row["clock_bound_ms"] < 50
        assert row["load_nice"] == os.getpriority(os.PRIO_PROCESS, 0)  # not Ray's 15


def test_points_start_together_on_every_host_and_leave_nothing(loopback_cluster, target):
    proc = drive(loopback_cluster, hosts=HOSTS, target=str(target), points=2, duration_s=1)
    assert proc.returncode == 0, proc.stderr
    got = events(proc)
    assert got[0]["event"] == "prepared" and sorted(got[0]["facts"]) == HOSTS
    points = [e for e in got if e["event"] == "point"]
    assert len(points) == 2
    for point in points:
        assert sorted(point["hosts"]) == HOSTS
        for host in point["hosts"].values():
            assert host["ops"] > 0
            assert host["bins_total"] == host["ops"]  # every read is in fio's bins
        starts = [h["started_at"] for h in point["hosts"].values()]
        assert point["skew_s"] == pytest.approx(max(starts) - min(starts))
        assert point["limit_s"] == 0.05
        assert point["skew_s"] < 0.05, point
        assert not point["flagged"]
    assert list(target.iterdir()) == []  # every host removed its test files


def test_every_socket_of_the_cluster_is_on_loopback(loopback_cluster, target):
    proc = drive(loopback_cluster, hosts=["h2"], target=str(target), points=1, duration_s=1)
    assert proc.returncode == 0, proc.stderr
    sockets = loopback_cluster.sockets()
    assert len(sockets) > 10  # the GCS, three raylets, their workers
    outside = [
        s for s in sockets if not is_loopback(s[1]) or (s[3] != "LISTEN" and not is_loopback(s[2]))
    ]
    assert outside == []


@pytest.mark.parametrize(
    ("hosts", "message"),
    [
        (["h1", "h9"], "host h9 is not in the Ray cluster (hosts seen: h1, h2, h3)"),
        (["h1", "h1"], "host h1 is named twice"),
    ],
)
def test_bad_hosts_are_one_line_and_start_nothing(loopback_cluster, target, hosts, message):
    args = ["hosts", "--cluster", loopback_cluster.address, "--hosts", ",".join(hosts)]
    proc = loopback_cluster.dbstor(*args)
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("dbstor: error:")]
    assert len(errors) == 1 and message in errors[0], proc.stderr
    assert loopback_cluster.find("HostActor") == []


def test_unreachable_cluster_is_one_line(loopback_cluster):
    proc = loopback_cluster.dbstor("hosts", "--cluster", "127.0.0.1:1")
    assert proc.returncode == 2
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in proc.stderr
    assert "ray start --head" in proc.stderr


def test_missing_target_names_the_host_and_starts_nothing(loopback_cluster, target):
    missing = target / "not-here"
    proc = drive(loopback_cluster, hosts=["h2", "h3"], target=str(missing))
    assert proc.returncode == 2
    assert f"host h2: target {missing} does not exist there" in proc.stderr
    assert events(proc) == []  # nothing prepared, nothing measured
    assert list(target.iterdir()) == []


def test_a_password_never_reaches_rays_logs(loopback_cluster, target):
    secret, canary = "pw-Zq7cluster-Secret-41", "canary-Zq7cluster-printed-41"
    proc = drive(
        loopback_cluster, hosts=["h1", "h3"], target=str(target), secret=secret, canary=canary
    )
    assert proc.returncode == 0, proc.stderr
    prepared = events(proc)[0]
    assert prepared["facts"]["h3"]["secrets_received"] == ["dsn_password"]
    files = loopback_cluster.session_logs()
    assert any(canary.encode() in f.read_bytes() for f in files)  # the search can find things
    leaks = [f for f in files if secret.encode() in f.read_bytes()]
    assert leaks == []
    assert secret not in proc.stdout + proc.stderr


def test_io_on_three_hosts_is_one_merged_curve(loopback_cluster, target, tmp_path):
    out = tmp_path / "results"
    proc = loopback_cluster.dbstor(
        *("io", "--cluster", loopback_cluster.address, "--hosts", "h1,h2,h3"),
        *("--target", str(target), "--iodepth", "1,4", "--duration", "2s", "--warmup", "0s"),
        *("--size", "16MiB", "--out", str(out), "--quiet"),
    )
    assert proc.returncode == 0, proc.stderr
    folder = next(out.iterdir())
    run = json.loads((folder / "results.json").read_text())
    assert run["status"] == "complete" and run["target"]["hosts"] == HOSTS
    for point in run["points"]:
        hosts = point["hosts"]
        assert [h["host"] for h in hosts] == HOSTS
        assert point["read_iops"] == pytest.approx(sum(h["read_iops"] for h in hosts))
        assert point["write_iops"] == pytest.approx(sum(h["write_iops"] for h in hosts))
        p99s = [h["read_lat_ms"]["p99"] for h in hosts]
        assert min(p99s) <= point["read_lat_ms"]["p99"] <= max(p99s)  # from summed bins
        skew_measured_and_flagged_when_late(point)
        assert sorted(h["start_offset_ms"] for h in hosts)[0] == 0
        # fio ran at the coordinator's niceness, as without Ray, not at Ray workers' 15
        assert {h["nice"] for h in hosts} == {os.getpriority(os.PRIO_PROCESS, 0)}
    samples = (folder / "samples.csv").read_text().splitlines()
    assert samples[0].split(",")[-1] == "host"
    assert {line.split(",")[-1] for line in samples[1:]} == set(HOSTS)
    assert list(target.iterdir()) == []  # every host removed its files and its own folder


def test_instances_spread_over_hosts_in_order(loopback_cluster, target, tmp_path):
    """TR-4403's ramp: instance 1 on h1, instance 2 on h2; one merged result per point."""
    out = tmp_path / "results"
    proc = loopback_cluster.dbstor(
        *("run", "--cluster", loopback_cluster.address, "--hosts", "h1,h2"),
        *("--engine", "sqlite", "--target", str(target), "--instances", "1,2", "--users", "2"),
        *("--duration", "2s", "--warmup", "0s", "--scale", "1", "--out", str(out), "--quiet"),
    )
    assert proc.returncode == 0, proc.stderr
    run = json.loads(next(out.glob("*/results.json")).read_text())
    assert run["status"] == "complete" and run["target"]["hosts"] == ["h1", "h2"]
    one, two = run["points"]
    assert [h["host"] for h in one["hosts"]] == ["h1"]
    assert [h["host"] for h in two["hosts"]] == ["h1", "h2"]
    # each host's own device under the target, named host:device (not the coordinator's)
    assert {d.split(":")[0] for d in run["target"]["device"].split(",")} == {"h1", "h2"}
    # every role measured on every host (here data alone), named host:device, and its
    # device counted once per machine, as the point's device is
    roles = run["target"]["roles"]
    assert {d.split(":")[0] for d in roles["data"]["devices"]} == {"h1", "h2"}
    assert two["roles"]["data"]["write_iops"] is not None
    assert two["roles"]["data"]["write_iops"] == pytest.approx(two["device"]["write_iops"])
    for point in (one, two):
        assert point["tps"] == pytest.approx(sum(h["tps"] for h in point["hosts"]))
        for q in ("p50", "p99"):  # p99 is None below 100 transactions: a loaded machine
            parts = [h["txn_lat_ms"][q] for h in point["hosts"]]
            if point["txn_lat_ms"][q] is not None and None not in parts:
                assert min(parts) <= point["txn_lat_ms"][q] <= max(parts)  # summed histograms
        assert point["txn_lat_ms"]["p50"] is not None
    for point in (one, two):
        skew_measured_and_flagged_when_late(point)
        # held until the hosts' merged throughput is steady, as a one-host point is: it
        # stopped steady, or when another round of 1 s settle + 2 s would pass its maximum
        trust = point["trust"]
        assert trust["max_s"] and trust["rounds"] >= 1 and trust["ran_s"] is not None
        assert trust["steady"] is not False or trust["ran_s"] + 1 + 2 > trust["max_s"]
    # both hosts are this machine (one boot id): its disk is counted once, not twice, and
    # the hosts' own processes' I/O is set against it
    assert len(two["device"]["name"].split(",")) == 1
    assert two["own_io"]["source"].startswith("cgroup v1")
    assert list(target.iterdir()) == []  # both hosts' databases removed


def skew_measured_and_flagged_when_late(point: dict) -> None:
    """The hosts' start skew is measured, and a point whose hosts started further apart
    than the limit (50 ms for these short points: SKEW_FLOOR_S) says so in its notes. How
    far apart they start depends on how busy this 2-core machine is, not on the code."""
    skew, limit = point["start_skew_ms"], SKEW_FLOOR_S * 1000
    assert skew is not None and skew >= 0
    late = [n for n in point["trust"]["notes"] if n.startswith("hosts started ")]
    if skew > limit:
        assert late == [f"hosts started {skew:.0f} ms apart (limit {limit:.0f} ms)"], point["trust"]
    else:
        assert late == []


def fio_pids(cluster) -> list[int]:
    return [p for p in cluster.find("fio") if cluster.cmdline(p).split(" ")[0].endswith("fio")]


def test_a_second_cluster_run_on_a_hosts_target_is_refused_naming_the_first(
    loopback_cluster, target, tmp_path
):
    """Each host locks its target for the run: a second cluster run on h2's target is one
    line naming the first (pid, host, start); the first goes on; another target still runs."""
    first = loopback_cluster.popen(
        [
            sys.executable,
            *("-m", "dbstor", "io", "--cluster", loopback_cluster.address, "--hosts", "h1,h2"),
            *("--target", str(target), "--iodepth", "1", "--duration", "120s"),
            *("--warmup", "0s", "--size", "16MiB", "--out", str(tmp_path / "a"), "--quiet"),
        ]
    )
    try:
        deadline = time.monotonic() + 180
        while len(fio_pids(loopback_cluster)) < 2:  # both hosts measure (locks taken before)
            assert first.poll() is None, first.stderr.read()
            assert time.monotonic() < deadline, "the first run never measured"
            time.sleep(0.2)
        second = loopback_cluster.dbstor(
            *("io", "--cluster", loopback_cluster.address, "--hosts", "h2"),
            *("--target", str(target), "--iodepth", "1", "--duration", "1s", "--warmup", "0s"),
            *("--size", "16MiB", "--out", str(tmp_path / "b"), "--quiet"),
        )
        assert second.returncode == 2, second.stderr
        lines = [line for line in second.stderr.splitlines() if "dbstor" in line]
        assert len(lines) == 1, second.stderr  # Ray's own warnings aside
        # the first run named by its coordinator (this pid: nsenter runs it in place), then
        # the agent on h2 that holds the lock
        assert f"another dbstor run (pid {first.pid} on " in lines[0], lines[0]
        assert "started 20" in lines[0] and "; its agent pid " in lines[0]
        assert f"host h2's target {target}" in lines[0]
        assert first.poll() is None  # the first run goes on
        with tempfile.TemporaryDirectory(prefix="dbstor-cluster-") as other:
            third = loopback_cluster.dbstor(
                *("io", "--cluster", loopback_cluster.address, "--hosts", "h2"),
                *("--target", other, "--iodepth", "1", "--duration", "1s", "--warmup", "0s"),
                *("--size", "16MiB", "--out", str(tmp_path / "c"), "--quiet"),
            )
            assert third.returncode == 0, third.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=120)
    assert list((tmp_path / "b").glob("*/results.json")) == []  # refused before anything


def test_an_io_point_on_two_hosts_is_held_by_rounds_of_one_window_on_their_merged_iops(
    loopback_cluster, tmp_path
):
    """A cluster io point held until steady runs rounds of its window, every host's fio
    started together each round, judged on the hosts' merged IOPS. Certain causes, whatever
    the host's load: a cgroup v1 blkio throttle on the hosts' fio. Point 1's stays at 400
    reads a second (steady); point 2's falls from 1000 by 50 every second, so each 6 s
    window drifts down by a third or more, far beyond the seconds' noise: it runs rounds
    until one more would pass its 18 s maximum, then keeps its flag and says how far it
    was."""
    root = tmp_path / "fs"
    root.mkdir()
    with mounted_loop_fs(root, "200M") as fs:

        def fio_of(point: str) -> Callable[[], list[int]]:
            return lambda: [
                p
                for p in fio_pids(loopback_cluster)
                if f"/{point}.fio" in loopback_cluster.cmdline(p)
            ]

        with (
            Throttle(device_of(fs.path)) as fixed,
            Throttle(device_of(fs.path)) as falling,
            fixed.ramp(fio_of("point-01"), lambda t: 400),
            falling.ramp(fio_of("point-02"), lambda t: max(60, 1000 - 50 * t)),
        ):
            proc = loopback_cluster.dbstor(
                *("io", "--cluster", loopback_cluster.address, "--hosts", "h1,h2"),
                *("--target", str(fs.path), "--iodepth", "2,4", "--duration", "6s"),
                *("--warmup", "1s", "--steady", "auto", "--max-duration", "18s"),
                *("--size", "16MiB", "--out", str(tmp_path / "out")),
            )
        assert proc.returncode == 0, proc.stderr
        run = json.loads(next((tmp_path / "out").glob("*/results.json")).read_text())
        steady, drifting = run["points"]
        assert steady["trust"]["steady"] is True, steady["trust"]
        assert steady["trust"]["rounds"] >= 1 and steady["trust"]["max_s"] == 18
        assert steady["read_iops"] == pytest.approx(400, rel=0.2)  # reads held to 400
        trust = drifting["trust"]
        assert trust["steady"] is False and trust["slope_pct"] < -10, trust
        # 1 s warm-up + 6 s, then 1 s settle + 6 s; a third round would pass 18 s
        assert trust["rounds"] == 2 and trust["max_s"] == 18 and trust["ran_s"] <= 18.5
        notes = " ".join(trust["notes"])
        assert "not steady: over the measured window, IOPS trended down" in notes
        assert "not steady within its maximum of 18 s (2 rounds" in notes
        assert "not steady within 18 s (2 rounds" in proc.stdout + proc.stderr  # the terminal
        for point in (steady, drifting):  # every host measured the last round's window
            assert [h["host"] for h in point["hosts"]] == ["h1", "h2"]
            assert all(h["iops"] > 0 for h in point["hosts"])
            skew_measured_and_flagged_when_late(point)
        assert [p for p in fs.path.iterdir() if p.name != "lost+found"] == []
