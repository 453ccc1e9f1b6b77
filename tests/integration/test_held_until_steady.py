"""Points held until steady, and factors with their interval, against the real thing: a
managed PostgreSQL running brokerage on an ext4 loop device beside a neighbour reading the
same device (a rate-limited fio reader), compared run against run with `dbstor compare`.

The causes are certain however busy the host is (this 2-core machine's load moves from 2
to 30 while other work runs): a cgroup v1 blkio throttle (tests/integration/blkio_throttle.py)
holds the server's reads and writes on the device to a limit well below what it asks for,
so its transactions per second follow the limit, not the host's CPU. Held fixed, the point
is steady and two runs at one limit are alike, while a run at half the limit finishes
clearly fewer transactions; lowered every second, as a neighbour taking ever more of an
array's IOPS would, the point's throughput keeps falling and it cannot get steady within
its maximum, and says so."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from blkio_throttle import Throttle, device_of
from device_io import reading
from loopfs import mounted_loop_fs
from needs import usable
from prom_servers import free_port

from dbstor.telemetry.disk import devices_for_path

pytestmark = pytest.mark.integration

POINT = (
    "--engine", "postgres", "--workload", "brokerage", "--scale", "200", "--users", "2",
    "--duration", "4", "--warmup", "1", "--buffer", "8MiB", "--memory-limit", "80MiB",
)  # fmt: skip


@contextmanager
def beside(cmd: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """A neighbour process in its own session, stopped at the end: SIGTERM first, which fio
    passes on to its jobs (each in a session of its own: a SIGKILL of the first process's
    group alone left them reading for the rest of their 15 minutes), then its group killed."""
    proc = subprocess.Popen(
        cmd, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    try:
        yield proc
    finally:
        jobs = [
            int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        ]
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        for job in jobs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(job, signal.SIGKILL)


@pytest.fixture(scope="module")
def device() -> Iterator[Path]:
    """An ext4 file system on its own loop device, reachable by the server's account
    (pytest's own temporary directories are private to root)."""
    usable("postgres")
    root = Path(tempfile.mkdtemp(prefix="dbstor-steady-"))
    root.chmod(0o711)
    try:
        with mounted_loop_fs(root, "400M") as fs:
            fs.path.chmod(0o755)
            yield fs.path
    finally:
        shutil.rmtree(root, ignore_errors=True)


def fio_reader(device: Path) -> list[str]:
    """40 direct 4K reads a second of a file on the same file system: foreign device I/O,
    a small share of the device's beside the server's (over half would withhold every
    factor: analysis/trust.py `untrustworthy`)."""
    return [
        "fio", "--name=neighbour", f"--filename={device / 'neighbour.dat'}", "--size=32m",
        "--rw=randread", "--bs=4k", "--direct=1", "--ioengine=psync", "--rate_iops=40",
        "--time_based", "--runtime=900",
    ]  # fmt: skip


NICE = -10  # a shared 2-core host's load reaches 40: at nice 0 the server got 1% of its CPU


def throttled_run(
    dbstor, device: Path, out: Path, name: str, limit_at: Callable[[float], int], *extra: str
) -> tuple[Path, str]:
    """`dbstor run` of the point at nice NICE with its server's device I/O held to
    limit_at(seconds since the point began) reads and writes a second, from the moment the
    point is live (the database is loaded at full speed); the run folder and what the
    terminal said."""
    target = device / name
    target.mkdir(exist_ok=True)
    port = free_port()
    live = threading.Event()

    def server() -> list[int]:
        return server_pids(target) if live.is_set() else []

    # the rule in the group dbstor makes around the server for each window (telemetry/own.py)
    with Throttle(device_of(device), move=False) as throttle, throttle.ramp(server, limit_at, 0.1):
        proc = dbstor.start(
            "run", *POINT, "--target", target, *extra,
            "--metrics-port", str(port), "--out", out,
        )  # fmt: skip
        # before it starts anything: dbstor, its users and the server it starts run ahead
        # of the host's other work, so that the limit, not the CPU left to them, sets the pace
        os.setpriority(os.PRIO_PROCESS, proc.pid, NICE)
        deadline = time.monotonic() + 180
        while proc.poll() is None and not live_point(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        live.set()
        stdout, stderr = proc.communicate(timeout=240)
    assert proc.returncode == 0, stderr
    return dbstor.only_run_folder(out), stdout + stderr


HELD_S = 300  # the server's reads (and writes) a second: about a third of what it asks here


@pytest.fixture(scope="module")
def beside_a_reader(dbstor_class, device: Path, tmp_path_factory) -> dict[str, Path]:
    """Three runs beside the reader, each point measured once over 6 s (its interval comes
    from its own seconds): two alike, with the server held to HELD_S I/Os a second, and one
    held to a third of it (a real, large difference in transactions per second). Held to
    a limit well below what it asks, the server's pace is the limit's, not the host's:
    runs alike stay alike however the host's load moves between them."""
    base = tmp_path_factory.mktemp("steady-runs")
    dbstor = dbstor_class(base)
    folders = {}
    with beside(fio_reader(device)):
        # the reader has laid out its file and is reading
        assert reading(devices_for_path(device)[0]), "the neighbour never read"
        for name, held in (("busy", HELD_S), ("slower", HELD_S // 3), ("again", HELD_S)):
            folders[name], _ = throttled_run(
                dbstor, device, base / name, name, lambda t, held=held: held,
                "--duration", "12", "--max-duration", "40s",
            )  # fmt: skip
    return folders


def compare(dbstor_class, base: Path, *folders: Path) -> dict:
    proc = dbstor_class(base)("compare", *folders, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_point_beside_a_reader_gets_steady_and_states_its_factor_with_an_interval(
    dbstor_class, beside_a_reader, tmp_path
):
    points = {
        name: json.loads((folder / "results.json").read_text())["points"][0]
        for name, folder in beside_a_reader.items()
    }
    for point in points.values():
        trust = point["trust"]
        assert trust["steady"] is True, trust["notes"]  # held until the test held
        assert trust["rounds"] >= 1 and trust["ran_s"] <= 40 and trust["max_s"] == 40
        assert point["foreign_io_share"] > 0  # the reader's I/O was on the same device
        assert point["uncertainty"]["tps"]["se"] > 0
    data = compare(dbstor_class, tmp_path, beside_a_reader["busy"], beside_a_reader["slower"])
    factor = data["factors"][0]
    # the server's I/Os a second, which the throttle sets: stated, its interval leaving out 1
    low, high = factor["intervals"]["iops"]
    assert low <= high < 1
    match = re.search(r"IOPS x([\d.]+) \(([\d.]+)-([\d.]+)\)", factor["text"])
    assert match, factor["text"]
    assert float(match[2]) < float(match[1]) < float(match[3])
    assert float(match[1]) < 0.6, factor["text"]  # a third of the I/Os a second
    # transactions: 10-40 a second through a bursty throttle, whose seconds can spread so
    # wide that the interval includes 1 (CI saw x0.16, 0.0015-16.8): stated below 1, or
    # withheld with the figure and the interval that includes 1 in words, never bare
    if "tps" in factor["intervals"]:
        assert factor["intervals"]["tps"][1] < 1
        assert re.search(r"transactions x[\d.]+ \([\d.]+-[\d.]+\)", factor["text"])
    else:
        withheld = r"transactions not computed: x[\d.]+ with an interval of [\d.]+-[\d.]+, which includes 1"
        assert re.search(withheld, factor["text"]), factor["text"]


def test_two_runs_alike_withhold_their_factor_and_show_the_interval_that_includes_1(
    dbstor_class, beside_a_reader, tmp_path
):
    data = compare(dbstor_class, tmp_path, beside_a_reader["busy"], beside_a_reader["again"])
    (run,) = [r for r in data["runs"] if r["label"] != data["baseline"]]
    low, high = run["intervals"]["tps"]
    if low <= 1 <= high:  # as runs alike usually do: withheld, the interval in words
        assert run["normalised"]["tps"] is None
        withheld = run["withheld"]["tps"]
        assert "with an interval of" in withheld and "includes 1" in withheld
        assert "transactions not computed: x" in data["factors"][0]["text"]
    else:  # the runs' pace moved apart past their spread (seen: x0.48-0.92): stated
        assert low <= high and run["normalised"]["tps"] is not None, (low, high)
        assert "transactions not computed" not in data["factors"][0]["text"]


def live_point(port: int) -> bool:
    """Whether dbstor's live figures say a point is being measured."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1) as reply:
            text = reply.read().decode()
    except OSError:
        return False
    return any(line.startswith("dbstor_point 1") for line in text.splitlines())


def server_pids(target: Path) -> list[int]:
    """The managed PostgreSQL's processes under the target: the postmaster and its children."""
    pidfiles = list(target.glob("dbstor-pg-*/data/postmaster.pid"))
    if not pidfiles:
        return []
    postmaster = int(pidfiles[0].read_text().split()[0])
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            children.append(int(stat.parent.name))
    return [postmaster, *children]


def user_backends(target: Path) -> set[int]:
    """The server's processes serving a client (the users' connections), not its own."""
    users = set()
    for pid in server_pids(target)[1:]:
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if "[local]" in title or "127.0.0.1" in title:
            users.add(pid)
    return users


class FallingEachRound:
    """The server's I/Os a second, round by round of a point held until steady: HIGH (about
    what eight users ask here) through the round's warm-up (the point's own in the first
    round; the 1 s settle after), then lowered every second by (HIGH - LOW) / 11 to LOW in
    the last second of the round's 12 s window, as a neighbour whose demand keeps growing
    would take ever more of an array's IOPS. Each window's transactions fall from what the
    CPU allows to a small part of it: a fall several times their second-to-second noise
    (brokerage's mixed transactions are lumpy second by second; and in the first round
    the warming cache needs fewer reads a transaction as it goes, which a gentler fall
    would cancel). A round begins when the users connect anew (runs/database/steady.py:
    they reconnect)."""

    HIGH, LOW = 4000, 300

    def __init__(self, target: Path, warmup_s: float) -> None:
        self.target, self.warmup_s = target, warmup_s
        self.seen: set[int] = set()  # every connection's server process seen so far
        self.round, self.began = 0, 0.0

    def __call__(self, _seconds: float) -> int:
        users = user_backends(self.target)
        fresh = users - self.seen  # dbstor's own connection (its counters) stays throughout
        if len(fresh) >= max(2, len(users) // 2):  # the users connected anew
            self.round, self.began = self.round + 1, time.monotonic()
        self.seen |= users
        into = time.monotonic() - self.began - (self.warmup_s if self.round == 1 else 1.0)
        if self.round == 0 or into < 0:
            return self.HIGH
        return max(self.LOW, self.HIGH - (self.HIGH - self.LOW) // 11 * int(into))


def test_a_point_that_cannot_get_steady_within_its_maximum_says_so(dbstor, device, tmp_path):
    (device / "falling").mkdir()
    falling = FallingEachRound(device / "falling", warmup_s=3)
    with beside(fio_reader(device)):
        folder, said = throttled_run(
            dbstor, device, tmp_path / "out", "falling", falling, "--users", "8",
            "--duration", "12", "--warmup", "3", "--max-duration", "34s",
        )  # fmt: skip
    point = dbstor.results(folder)["points"][0]
    trust = point["trust"]
    assert trust["steady"] is False, (trust, point["tps"])
    # 3 s warm-up and 12 s, then a 1 s settle and 12 s: a third round would pass 34 s
    assert trust["rounds"] == 2 and trust["max_s"] == 34 and trust["ran_s"] <= 34.5
    notes = " ".join(trust["notes"])
    assert "not steady: over the measured window, transactions per second trended down" in notes
    assert "not steady within its maximum of 34 s (2 rounds" in notes
    assert "not steady within 34 s (2 rounds" in said  # the terminal says so
