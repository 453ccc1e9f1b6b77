"""Query (dss) points held until steady, against the real thing, in one cold DuckDB run at
TPC-H scale factor 0.01 (one load for both points; Q1 and Q6, both scans of lineitem):
its power run runs rounds of its queries, each made cold again, until the rounds' queries per hour are steady; its
two-stream throughput run has its CPU allotment shrunk as every round starts (a cgroup v1
`cpu.cfs_quota_us` stepped down by a third each round, as a host's share running out),
keeps slowing down, cannot get steady within its maximum, and says so."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from needs import usable

pytestmark = pytest.mark.integration

CPU_CGROUP = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000
MAX_S = 8


@contextlib.contextmanager
def cpu_group() -> Iterator[Path]:
    """A cgroup v1 cpu group of this test's own, removed at the end (its processes gone)."""
    if os.geteuid() != 0 or not (CPU_CGROUP / "cpu.cfs_quota_us").exists():
        pytest.skip("needs root and the cgroup v1 cpu controller (NOTES.md: mounted here)")
    group = CPU_CGROUP / f"dbstor-test-query-steady-{os.getpid()}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        yield group
    finally:
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                (CPU_CGROUP / "cgroup.procs").write_text(pid)
        group.rmdir()


@pytest.fixture(scope="module")
def held_run(dbstor_class, tmp_path_factory) -> dict[str, Any]:
    """The run's results, its terminal output (stderr) and report."""
    usable("duckdb")
    base = tmp_path_factory.mktemp("query-steady")
    dbstor = dbstor_class(base)
    (base / "lun").mkdir()
    said: list[str] = []
    with cpu_group() as group:
        proc = dbstor.start(
            "run", "--engine", "duckdb", "--workload", "dss", "--scale", "0.01", "--cold",
            "--streams", "1,2", "--queries", "1,6", "--target", base / "lun",
            "--max-duration", f"{MAX_S}s",
            "--out", base / "out",
        )  # fmt: skip
        (group / "cgroup.procs").write_text(str(proc.pid))  # its threads and children too

        def shrink_each_round() -> None:
            """Once the throughput run starts: 20% of a core for its first round, two
            thirds of the one before for each further round, set as dbstor announces it."""
            assert proc.stderr is not None
            throughput = False
            for line in proc.stderr:
                said.append(line)
                throughput = throughput or line.startswith("[2] throughput run")
                rounds = 1 if line.startswith("[2] throughput run") else 0
                if throughput and line.startswith("    round "):
                    rounds = int(line.split()[1])
                if rounds:
                    quota = int(0.2 * PERIOD_US * (2 / 3) ** (rounds - 1))
                    (group / "cpu.cfs_quota_us").write_text(str(max(quota, 1000)))

        reader = threading.Thread(target=shrink_each_round, daemon=True)
        reader.start()
        try:
            proc.wait(150)
        finally:
            dbstor.stop_all()
            reader.join(10)
    stderr = "".join(said)
    assert proc.returncode == 0, stderr
    folder = dbstor.only_run_folder(base / "out")
    data = dbstor.results(folder)
    return {
        "points": data["points"],
        "database_bytes": data["workload"]["database_bytes"],
        "stderr": stderr,
        "html": (folder / "report.html").read_text(),
    }


def test_a_cold_query_point_runs_cold_rounds_until_steady(held_run):
    power = held_run["points"][0]
    trust = power["trust"]
    assert trust["steady"] is True, trust["notes"]  # held until the rounds' test held
    assert trust["rounds"] >= 3 and trust["max_s"] == MAX_S and 0 < trust["ran_s"] <= MAX_S
    notes = " ".join(trust["notes"])
    # every round cold, the measured (last) one too: it read the file from the storage
    # (the engine's own reads, /proc/PID/io: a round under a second may fall between two
    # of the device's samples), where a warm round reads next to nothing
    assert "dropped from the page cache before each round" in notes
    read = power["engine_io"]["storage_read_bytes"]
    assert read >= 0.1 * held_run["database_bytes"], (read, held_run["database_bytes"])
    rates = notes.split("rounds' queries per hour: ")[1].split(" (the last")[0].split(", ")
    assert len(rates) == trust["rounds"]
    last = float(rates[-1].replace(",", ""))
    assert last == pytest.approx(power["workload_metrics"]["queries_per_hour"], rel=0.01)
    assert len(power["queries"]) == 2  # the measured round's queries, not every round's
    stderr = held_run["stderr"]
    assert f"steady after {trust['rounds']} rounds" in stderr  # the terminal says so
    assert "    round 2 (queries/h so far" in stderr
    assert "Held until steady" in held_run["html"]


def test_a_query_point_slowed_before_every_round_cannot_get_steady_and_says_so(held_run):
    throughput = held_run["points"][1]
    trust = throughput["trust"]
    assert trust["steady"] is False, trust
    assert trust["rounds"] >= 3 and trust["max_s"] == MAX_S and trust["ran_s"] <= MAX_S + 1
    assert trust["slope_pct"] < -10
    notes = " ".join(trust["notes"])
    assert "not steady: over the last" in notes and "queries per hour trended down" in notes
    assert f"not steady within its maximum of {MAX_S} s ({trust['rounds']} rounds" in notes
    assert len(throughput["queries"]) == 4  # two streams of two: the last round's
    # the terminal says so too
    assert f"not steady within {MAX_S} s ({trust['rounds']} rounds" in held_run["stderr"]
