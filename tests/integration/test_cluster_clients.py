"""Client hosts driving one external PostgreSQL server on a real Ray cluster (h1, h2 on
loopback): the users spread over the hosts, one merged result, the data loaded once, the
server's own transaction count agreeing with dbstor's; and a study file with [cluster]."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from cluster_harness import LoopbackCluster, can_run
from pg_server import PgServer, find_bindir

HOSTS = ["h1", "h2"]
SECRET = "pw-Zq7clients-Secret-52"
PG_PORT = 5544  # in the cluster's own network namespace: nothing else listens there

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


@pytest.fixture(scope="module")
def server(loopback_cluster):
    """A real PostgreSQL listening on 127.0.0.1 inside the cluster's namespace (started
    there with nsenter), so that the Ray nodes reach it as their one external server."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not found (apt-get install postgresql)")
    base = Path(tempfile.mkdtemp(prefix="dbstor-pgc-"))
    pg = PgServer(bindir=bindir, base=base, port=PG_PORT, as_postgres=os.geteuid() == 0)
    owner = pwd.getpwnam("postgres") if pg.as_postgres else None
    pg.sockdir.mkdir()
    if owner is not None:
        for path in (base, pg.sockdir):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    run = loopback_cluster.run
    init = [str(bindir / "initdb"), "-D", str(pg.datadir), "-U", pg.user, "--auth=trust"]
    done = run(pg._cmd(*init, "--no-sync", "--no-instructions"), timeout=180)
    assert done.returncode == 0, done.stderr
    options = {
        "fsync": "off",
        "synchronous_commit": "off",
        "max_connections": "60",
        "listen_addresses": pg.host,
        "port": str(pg.port),
        "unix_socket_directories": str(pg.sockdir),
    }
    opts = " ".join(f"-c {k}={v}" for k, v in options.items())
    ctl = [str(bindir / "pg_ctl"), "-D", str(pg.datadir), "-l", str(pg.log), "-w", "-t", "60"]
    done = run(pg._cmd(*ctl, "-o", opts, "start"), timeout=120)
    assert done.returncode == 0, done.stderr + (pg.log.read_text() if pg.log.exists() else "")
    try:
        yield pg
    finally:
        run(pg._cmd(*ctl[:3], "-m", "immediate", "stop"), timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def psql(cluster: LoopbackCluster, pg: PgServer, statement: str) -> str:
    cmd = [str(pg.bindir / "psql"), "-X", "-A", "-t", "-h", pg.host, "-p", str(pg.port)]
    done = cluster.run([*cmd, "-U", pg.user, "-d", "postgres", "-c", statement], timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def transactions(cluster: LoopbackCluster, pg: PgServer) -> int:
    """The server's own count of finished transactions in the database (commits and
    rollbacks: dbstor counts New-Orders rolled back by design as done)."""
    got = psql(
        cluster,
        pg,
        "SELECT pg_stat_force_next_flush(); SELECT xact_commit + xact_rollback "
        "FROM pg_stat_database WHERE datname = 'postgres'",
    )
    return int(got.splitlines()[-1])


def test_client_hosts_drive_one_external_server(loopback_cluster, server, tmp_path):
    out = tmp_path / "results"
    before = transactions(loopback_cluster, server)
    proc = loopback_cluster.dbstor(
        *("run", "--cluster", loopback_cluster.address, "--clients", "h1,h2"),
        *("--engine", "postgres", "--dsn", server.dsn("postgres", SECRET)),
        *("--workload", "orders", "--scale", "1", "--users", "3,8", "--client-processes", "1"),
        *("--duration", "4s", "--warmup", "0s", "--out", str(out)),
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    after = transactions(loopback_cluster, server)
    run = json.loads(next(out.glob("*/results.json")).read_text())
    assert run["status"] == "complete" and run["target"]["hosts"] == HOSTS
    assert len(run["workload"]["load"]) == 1  # loaded once, from h1
    three, eight = run["points"]
    assert [(h["host"]) for h in three["hosts"]] == HOSTS
    counted = 0
    for point, users in ((three, 3), (eight, 8)):
        assert point["load"]["jobs"] == users
        hosts = point["hosts"]
        assert point["tps"] == pytest.approx(sum(h["tps"] for h in hosts))
        assert point["txn_lat_ms"]["count"] == sum(h["txn_lat_ms"]["count"] for h in hosts)
        for stat in ("p95", "p99"):  # from the summed histograms: between the hosts' own
            own = [h["txn_lat_ms"][stat] for h in hosts]
            if stat == "p95" or None not in own:  # p99 needs 100 transactions behind it
                assert min(own) <= point["txn_lat_ms"][stat] <= max(own)
        assert point["start_skew_ms"] < 100
        assert point["engine_io"] is not None  # the server's counters, read once (on h1)
        counted += point["txn_lat_ms"]["count"]
    # the server saw what dbstor counted; beyond it only the load, each connection's setup
    # and the transactions in flight when a window closed
    server_saw = after - before
    assert counted <= server_saw <= counted * 1.1 + 400, (counted, server_saw)
    assert (
        psql(
            loopback_cluster,
            server,
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'dbstor%'",
        )
        == "0"
    )
    leaks = [f for f in loopback_cluster.session_logs() if SECRET.encode() in f.read_bytes()]
    assert leaks == [] and SECRET not in proc.stdout + proc.stderr
    assert SECRET not in (out / run["run_id"] / "results.json").read_text()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--clients", "h1,h2", "--target", "/tmp"], "give its --dsn"),
        (["--clients", "h1,h2", "--hosts", "h1,h2", "--dsn", "postgresql://b@x/b"], "not both"),
        (["--clients", "h1,h1", "--dsn", "postgresql://b@x/b"], "named twice in --clients"),
        (["--clients", "h1,h9", "--dsn", "postgresql://b@x/b"], "host h9 is not in the Ray"),
    ],
)
def test_bad_clients_input_is_one_line_and_starts_nothing(loopback_cluster, flags, message):
    proc = loopback_cluster.dbstor(
        *("run", "--cluster", loopback_cluster.address, *flags),
        *("--engine", "postgres", "--workload", "orders", "--users", "2", "--quiet"),
    )
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("dbstor: error:")]
    assert len(errors) == 1 and message in errors[0], proc.stderr
    assert loopback_cluster.find("HostActor") == []  # no agent placed anywhere


def test_a_study_file_with_cluster_runs_each_target_on_its_hosts(
    loopback_cluster, server, tmp_path
):
    """[cluster] address, an io target measured on h1 and h2, an external server's target
    driven from h1 and h2: the same results as the flags give."""
    data = tmp_path / "lun1"
    data.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(
        f"""
[cluster]
address = "{loopback_cluster.address}"

[study]
name = "two hosts"
profiles = ["io-oltp"]
duration = "2s"
warmup = "0s"
size = "16MiB"

[load]
kind = "iodepth"
values = [1, 4]

[[targets]]
label = "lun1"
paths = ["{data}"]
hosts = ["h1", "h2"]

[[targets]]
label = "pg"
clients = ["h1", "h2"]

[[databases]]
engine = "postgres"
workload = "orders"
scale = 1
users = [4]
dsn_env = "CLIENTS_TEST_DSN"

[capacity]
drives = "12x1.92TB"
raid = "raid-dp"
raid_group = 12

[efficiency]
array = "ontap-adaptive"
"""
    )
    out = tmp_path / "results"
    proc = loopback_cluster.run(
        [sys.executable, "-m", "dbstor", "run", str(study), "--out", str(out)],
        timeout=900,
        env={"CLIENTS_TEST_DSN": server.dsn("postgres", SECRET)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    folder = next(out.iterdir())
    runs = json.loads((folder / "study.json").read_text())["runs"]
    assert len(runs) == 2  # io on lun1, orders on the external server; nothing crossed
    io, db = (json.loads((folder / r / "results.json").read_text()) for r in runs)
    assert io["target"]["label"] == "lun1" and io["target"]["hosts"] == HOSTS
    assert [p["load"]["value"] for p in io["points"]] == [1, 4]
    for point in io["points"]:
        assert [h["host"] for h in point["hosts"]] == HOSTS
        assert point["read_iops"] == pytest.approx(sum(h["read_iops"] for h in point["hosts"]))
    assert db["target"]["label"] == "pg" and db["target"]["hosts"] == HOSTS
    (point,) = db["points"]
    assert [h["host"] for h in point["hosts"]] == HOSTS
    assert point["tps"] == pytest.approx(sum(h["tps"] for h in point["hosts"]))
    assert list(data.iterdir()) == []  # each host's test files removed
    assert SECRET not in (folder / runs[1] / "results.json").read_text()
    # the analysis tables run on the merged results where they can, and say why not where
    # they cannot: capacity is computed, the efficiency of files on the hosts is not
    analyses = json.loads((folder / "analyses.json").read_text())
    assert analyses["capacity"]["lun1"]["usable_tb"] > 0
    why = analyses["efficiency"]["lun1"]["missing"]
    assert why.startswith("the study ran on a cluster")
    assert f"analyses: efficiency not computed: {why}" in proc.stdout + proc.stderr
    assert "the study ran on a cluster" in (folder / "report.html").read_text()
