"""An external server that stops answering mid-point: the point fails, naming the server,
within a bounded time (issue 16, faults with a clear end).

A real server runs in a network namespace the test makes, reachable only over a veth pair
from a second namespace where dbstor runs (tests/integration/netns.py). During the second
load point the server's namespace starts dropping every IP packet (nftables, both ways):
no reset, no ICMP error, the way a pulled cable or a lost route looks from the client.
Without bounds on the network waits, dbstor waits for ever; with them (engines/network.py)
every connection gives up after SILENCE_S of silence. A cut during the data load ends the
run with one line naming the server (exit 2), as a full disk during a load does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mariadb_netns
import netns
import pg_server
import pytest
from needs import usable

from dbstor.engines.network import SILENCE_S
from dbstor.engines.server import PROBE_CONNECT_S

SECRET = "cut-s3cret-pw"
POINT = ("--users", "2,3,4", "--warmup", "1", "--duration", "8")
INTO_SECOND_POINT_S = 4.0  # after the first point is on disk: inside the second's window
# Connections give up after SILENCE_S; then one liveness probe, and dbstor's own last
# statements (object statistics, dropping its schema) wait PROBE_CONNECT_S each to
# connect. 30 s on top for a loaded two-core machine.
BOUND_S = SILENCE_S + 3 * PROBE_CONNECT_S + 30


def _start(link: netns.Link, cwd: Path, *args: str) -> subprocess.Popen[str]:
    """dbstor in the client's namespace, in a session of its own."""
    env = {**os.environ, "COLUMNS": "300"}
    return subprocess.Popen(
        [*link.run_in(link.client_ns), sys.executable, "-m", "dbstor", "run", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _namespace_empty(link: netns.Link, namespace: str, wait_s: float = 15) -> list[str]:
    """What still runs in `namespace` after up to wait_s (dbstor's kill -9 watcher ends a
    moment after dbstor): their command lines, empty when nothing is left."""
    deadline = time.monotonic() + wait_s
    while (pids := link.pids(namespace)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = []
    for pid in pids:
        with contextlib.suppress(OSError):
            left.append(Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").strip())
    return left


def _cut_mid_point(
    dbstor, link: netns.Link, cwd: Path, engine: str, dsn: str, where: str, title: str
) -> None:
    """Run orders with two client processes on `engine` at `dsn`, cut the link inside the
    second point, and check how dbstor ended."""
    out = cwd / "out"
    proc = _start(
        link, cwd, "--engine", engine, "--workload", "orders", "--dsn", dsn,
        "--client-processes", "2", *POINT, "--out", str(out),
    )  # fmt: skip
    try:
        dbstor.wait_for_points(out, 1, proc, timeout=240)
        time.sleep(INTO_SECOND_POINT_S)
        link.cut()
        cut = time.monotonic()
        try:
            stdout, stderr = proc.communicate(timeout=BOUND_S + 60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"dbstor still ran {BOUND_S + 60} s after the network was cut")
        took = time.monotonic() - cut
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
    print(f"exit {proc.returncode} {took:.1f} s after the cut:\n{stderr.strip()}")
    assert proc.returncode == 1, stderr
    assert took <= BOUND_S, f"ended {took:.0f} s after the cut (bound {BOUND_S} s)"
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("dbstor: a load point failed: [2]"), stderr
    assert f"{title} at {where} stopped answering" in last, last
    data = dbstor.results(dbstor.only_run_folder(out))
    statuses = [p["status"] for p in data["points"]]
    assert statuses == ["ok", "failed"], statuses
    assert data["points"][0]["tps"] > 0
    assert f"{where} stopped answering" in data["points"][1]["error"]
    assert any("could not drop" in note for note in data["notes"]), data["notes"]
    written = [stdout, stderr] + [
        p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()
    ]
    assert all(SECRET not in text for text in written), "the password leaked"
    assert _namespace_empty(link, link.client_ns) == [], "dbstor left processes running"


def test_postgres_cut_mid_point_fails_naming_the_server(dbstor, tmp_path):
    usable("postgres")
    with (
        netns.private_link() as link,
        pg_server.running_server(
            settings={"max_connections": "40"}, host=link.server_addr, netns=link.server_ns
        ) as server,
    ):
        dsn = server.dsn("postgres", password=SECRET)
        where = f"{server.host}:{server.port}"
        _cut_mid_point(dbstor, link, tmp_path, "postgres", dsn, where, "PostgreSQL")


def test_mariadb_cut_mid_point_fails_naming_the_server(dbstor, tmp_path):
    usable("mariadb")
    with (
        netns.private_link() as link,
        mariadb_netns.running_server(link, "bench", SECRET) as server,
    ):
        dsn = server.dsn("bench", SECRET)
        where = f"{server.host}:{server.port}"
        _cut_mid_point(dbstor, link, tmp_path, "mariadb", dsn, where, "MariaDB")


def _loading(server) -> int:
    """How many of dbstor's sessions are loading data (INSERT, COPY, CREATE) right now."""
    return int(
        server.sql(
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
            "AND state = 'active' AND pid <> pg_backend_pid() "
            "AND (query ILIKE 'insert%' OR query ILIKE 'copy%' OR query ILIKE 'create%')"
        ).strip()
        or 0
    )


def test_postgres_cut_during_the_data_load_is_one_line(tmp_path):
    usable("postgres")
    with (
        netns.private_link() as link,
        pg_server.running_server(
            settings={"max_connections": "40"}, host=link.server_addr, netns=link.server_ns
        ) as server,
    ):
        out = tmp_path / "out"
        proc = _start(
            link, tmp_path, "--engine", "postgres", "--workload", "orders", "--scale", "8",
            "--dsn", server.dsn("postgres", password=SECRET), *POINT, "--out", str(out),
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while _loading(server) == 0:  # dbstor's sessions at work on the server: the load
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "the data load never started"
                time.sleep(0.1)
            link.cut()
            cut = time.monotonic()
            try:
                _, stderr = proc.communicate(timeout=BOUND_S + 60)
            except subprocess.TimeoutExpired:
                pytest.fail(f"dbstor still ran {BOUND_S + 60} s after the network was cut")
            took = time.monotonic() - cut
        finally:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate(timeout=30)
        print(f"exit {proc.returncode} {took:.1f} s after the cut:\n{stderr.strip()}")
        assert proc.returncode == 2, stderr
        assert took <= BOUND_S, f"ended {took:.0f} s after the cut (bound {BOUND_S} s)"
        assert "Traceback" not in stderr, stderr
        last = stderr.strip().splitlines()[-1]
        where = f"{server.host}:{server.port}"
        expected = (
            f"dbstor: error: PostgreSQL at {where} stopped answering while orders was loading"
        )
        assert last.startswith(expected), last
        assert SECRET not in stderr
        assert _namespace_empty(link, link.client_ns) == [], "dbstor left processes running"
