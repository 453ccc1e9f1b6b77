"""Points held until steady, and factors with their interval, against the real thing: a
managed PostgreSQL running brokerage on an ext4 loop device with a noisy neighbour on the
same device (a rate-limited fio reader), compared run against run with `dbstor compare`;
and a point beside a neighbour whose demand keeps growing (a `dd iflag=direct` reader on the
same device, and ever more of the server's time taken, as a host's steal time grows), which
cannot get steady within its maximum and says so."""

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
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
    """A neighbour process in its own session, killed (its group) at the end."""
    proc = subprocess.Popen(
        cmd, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    try:
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


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
    """200 direct 4K reads a second of a file on the same file system: foreign device I/O."""
    return [
        "fio", "--name=neighbour", f"--filename={device / 'neighbour.dat'}", "--size=32m",
        "--rw=randread", "--bs=4k", "--direct=1", "--ioengine=psync", "--rate_iops=200",
        "--time_based", "--runtime=900",
    ]  # fmt: skip


def run_point(dbstor, device: Path, out: Path, name: str, *extra: str) -> Path:
    target = device / name
    target.mkdir()
    proc = dbstor("run", *POINT, "--target", target, *extra, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return dbstor.only_run_folder(out)


@pytest.fixture(scope="module")
def beside_a_reader(dbstor_class, device: Path, tmp_path_factory) -> dict[str, Path]:
    """Three runs beside the reader: two alike (no think time, each point measured twice:
    their interval comes from the repeats) and one whose users think 10 ms between
    transactions (a real, large difference in transactions per second). Alike runs
    measured once can differ beyond their windows' own spread on a shared host (the host's
    load moves between runs): repeats catch that, one window's seconds cannot."""
    base = tmp_path_factory.mktemp("steady-runs")
    dbstor = dbstor_class(base)
    folders = {}
    with beside(fio_reader(device)):
        # the reader has laid out its file and is reading
        assert reading(devices_for_path(device)[0]), "the neighbour never read"
        for name, extra in (
            ("busy", ("--duration", "3", "--repeats", "2")),
            ("thinking", ("--think-time", "10ms")),
            ("again", ("--duration", "3", "--repeats", "2")),
        ):
            folders[name] = run_point(
                dbstor, device, base / name, name, "--max-duration", "40s", *extra
            )
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
    data = compare(dbstor_class, tmp_path, beside_a_reader["busy"], beside_a_reader["thinking"])
    factor = data["factors"][0]
    low, high = factor["intervals"]["tps"]
    assert low <= high < 1  # thinking users finish clearly fewer transactions
    match = re.search(r"transactions x([\d.]+) \(([\d.]+)-([\d.]+)\)", factor["text"])
    assert match, factor["text"]
    assert float(match[2]) < float(match[1]) < float(match[3])
    assert "transactions not computed" not in factor["text"]


def test_two_runs_alike_withhold_their_factor_and_show_the_interval_that_includes_1(
    dbstor_class, beside_a_reader, tmp_path
):
    data = compare(dbstor_class, tmp_path, beside_a_reader["busy"], beside_a_reader["again"])
    (run,) = [r for r in data["runs"] if r["label"] != data["baseline"]]
    low, high = run["intervals"]["tps"]
    assert low <= 1 <= high
    assert run["normalised"]["tps"] is None
    assert (
        "with an interval of" in run["withheld"]["tps"] and "includes 1" in run["withheld"]["tps"]
    )
    assert "transactions not computed: x" in data["factors"][0]["text"]


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


@contextmanager
def growing_neighbour(device: Path, target: Path, started: threading.Event) -> Iterator[None]:
    """Once `started` is set (the point began): a `dd iflag=direct` reader on the same
    device, and a neighbour that takes ever more of the server's time, as a host's steal
    time grows: every 100 ms the server's processes are stopped (SIGSTOP) for a share that
    rises from 0 to 90% across each measured round (8 s after the 2 s warm-up, again after
    each 1 s settle), then continued: every round's throughput keeps falling."""
    big = device / "neighbour.big"
    with big.open("wb") as out:
        out.write(os.urandom(32 << 20))
    loop = f"while :; do dd if={big} of=/dev/null bs=16k iflag=direct status=none; done"
    stop = threading.Event()
    reader: list[subprocess.Popen[bytes]] = []

    def signal_all(pids: list[int], sig: int) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def steal() -> None:
        started.wait()
        if stop.is_set():
            return
        reader.append(
            subprocess.Popen(["bash", "-c", loop], start_new_session=True, stdin=subprocess.DEVNULL)
        )
        begun = time.monotonic()
        pids: list[int] = []
        try:
            while not stop.is_set():
                pids = server_pids(target)  # the users' backends start after the point does
                into = (time.monotonic() - begun - 2.0) % 9.0  # each round: 2 s warm-up, 8 s, 1 s
                share = min(0.9, 0.9 * into / 8.0)
                signal_all(pids, signal.SIGSTOP)
                time.sleep(0.1 * share)
                signal_all(pids, signal.SIGCONT)
                time.sleep(0.1 * (1 - share))
        finally:
            signal_all(pids, signal.SIGCONT)

    thread = threading.Thread(target=steal, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        started.set()
        thread.join(5)
        for proc in reader:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def test_a_point_that_cannot_get_steady_within_its_maximum_says_so(dbstor, device, tmp_path):
    target = device / "growing"
    target.mkdir()
    port = free_port()
    started = threading.Event()
    with growing_neighbour(device, target, started):
        proc = dbstor.start(
            "run", *POINT, "--duration", "8", "--warmup", "2", "--target", target,
            "--max-duration", "20s",
            "--metrics-port", str(port), "--out", tmp_path / "out",
        )  # fmt: skip
        deadline = time.monotonic() + 180
        while proc.poll() is None and not live_point(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        started.set()
        stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    point = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))["points"][0]
    trust = point["trust"]
    assert trust["steady"] is False, (trust, point["tps"])
    # 2 s warm-up and 8 s, then a 1 s settle and 8 s: a third round would pass 20 s
    assert trust["rounds"] == 2 and trust["max_s"] == 20 and trust["ran_s"] <= 20.5
    notes = " ".join(trust["notes"])
    assert "not steady: over the measured window, transactions per second trended down" in notes
    assert "not steady within its maximum of 20 s (2 rounds" in notes
    assert "not steady within 20 s (2 rounds" in stdout + stderr  # the terminal says so
