"""Client hosts driving one external server: users spread in order, rates in proportion,
the server's counters from one host, and what a run with --clients refuses."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from dbstor.cluster.database import ClusterClientsWorker, users_on
from dbstor.cluster.runs import check_database_study
from dbstor.errors import UserError
from dbstor.study.load import load_study
from dbstor.study.model import DatabaseSpec, LoadSeries, Study, Target
from dbstor.testfiles import Safety


def test_users_spread_as_evenly_as_possible_in_order():
    assert users_on(["c1", "c2"], 64) == {"c1": (0, 32), "c2": (32, 32)}
    assert users_on(["c1", "c2", "c3"], 7) == {"c1": (0, 3), "c2": (3, 2), "c3": (5, 2)}
    assert users_on(["c1", "c2", "c3"], 2) == {"c1": (0, 1), "c2": (1, 1)}  # c3 takes no part
    for hosts, users in [(["a", "b"], 129), (["a", "b", "c", "d"], 10)]:
        spread = users_on(hosts, users)
        assert sum(n for _, n in spread.values()) == users
        numbers = [u for first, n in spread.values() for u in range(first, first + n)]
        assert numbers == list(range(users))  # every user once, none shared


def worker(hosts: list[str]) -> ClusterClientsWorker:
    session = SimpleNamespace(hosts=[SimpleNamespace(name=h) for h in hosts])
    return ClusterClientsWorker(session, Safety(), say=lambda _: None)  # type: ignore[arg-type]


def test_a_point_is_split_by_users_with_the_rate_in_proportion_and_one_counter_reader():
    point = {"instances": 1, "users": 5, "rate": 100.0, "duration_s": 1, "warmup_s": 0}
    points = worker(["c1", "c2"]).split(point)
    assert {h: (p["first_user"], p["users"]) for h, p in points.items()} == {
        "c1": (0, 3),
        "c2": (3, 2),
    }
    assert points["c1"]["rate"] == pytest.approx(60.0)
    assert points["c2"]["rate"] == pytest.approx(40.0)
    assert [p["read_counters"] for p in points.values()] == [True, False]
    assert worker(["c1", "c2"]).counters_host() == "c1"


def study(dsn: str | None, kind: str = "users", workload: str = "orders") -> Study:
    spec = DatabaseSpec(
        engine="postgres",
        workload=workload,
        series=LoadSeries(kind=kind, values=(1, 2), users=4),
        dsn=dsn,
    )
    return Study(
        name="s", targets=(Target(label="external", paths=()),), profiles=(), databases=(spec,)
    )


@pytest.mark.parametrize(
    ("dsn", "kind", "hosts", "message"),
    [
        (None, "users", None, "--clients drives one external server: give its --dsn"),
        ("postgresql://b@db/b", "users", "h1,h2", "--clients and --hosts"),
        ("postgresql://b@db/b", "instances", None, "not --instances"),
    ],
)
def test_bad_clients_input_is_one_line(dsn, kind, hosts, message):
    with pytest.raises(UserError, match=message):
        check_database_study(study(dsn, kind), hosts, "c1,c2")


@pytest.mark.parametrize(("hosts", "clients"), [("h1,h2", None), (None, "c1,c2")])
def test_query_streams_across_hosts_are_refused_with_the_way_to_run_them(hosts, clients):
    dsn = "postgresql://b@db/b" if clients else None
    with pytest.raises(UserError, match="dss runs its query streams from one host: drop"):
        check_database_study(study(dsn, "streams", workload="dss"), hosts, clients)


def test_a_good_clients_study_passes_the_checks():
    check_database_study(study("postgresql://b@db/b"), None, "c1,c2")


def test_cluster_fields_in_a_study_file_are_checked(tmp_path):
    cases = [
        ('[[targets]]\npaths = ["/tmp"]\nhosts = ["h1"]', "targets[0].hosts: needs the Ray head"),
        ('[cluster]\naddress = 6379\n[[targets]]\npaths = ["/tmp"]', "cluster.address: must be"),
        (
            '[cluster]\naddress = "head"\n[[targets]]\npaths = ["/tmp"]',
            "cluster.address: 'head' is not HOST:PORT",
        ),
        ('[cluster]\n[[targets]]\npaths = ["/tmp"]', "cluster.address: give HEAD:6379"),
        ('[cluster]\nadres = "x:1"\n[[targets]]\npaths = ["/tmp"]', "cluster.adres: unknown"),
        (
            '[cluster]\naddress = "x:1"\n[[targets]]\npaths = ["/tmp"]\nhosts = ["h1", "h1"]',
            "targets[0].hosts: host h1 is named twice",
        ),
        (
            '[cluster]\naddress = "x:1"\n[[targets]]\npaths = ["/tmp"]\nhosts = "h1"',
            "targets[0].hosts: must be a non-empty list",
        ),
    ]
    for text, message in cases:
        path = tmp_path / "s.toml"
        path.write_text(text)
        with pytest.raises(UserError, match=re.escape(f"{path}: {message}")):
            load_study(path)


def test_the_live_line_adds_up_the_hosts_device_iops():
    from dbstor.cluster.session import summed_live

    samples = [
        {"dev_read_iops": 100.0, "dev_write_iops": 20.0},
        None,  # a host that did not answer in time
        {"dev_read_iops": 50.0, "dev_write_iops": None},
        {"dev_read_iops": None},  # no device view there (an external server's client)
    ]
    assert summed_live(samples) == {"dev_read_iops": 150.0, "dev_write_iops": 20.0, "hosts": 2}
    assert summed_live([None, {"dev_read_iops": None}]) is None


def test_the_live_line_counts_one_machines_device_once():
    """Three cluster hosts on one machine (one boot id) read one disk: the live line shows
    it once, not three times (as the point's device figures do)."""
    from dbstor.cluster.session import summed_live

    one = {"dev_read_iops": 100.0, "dev_write_iops": 20.0, "boot_id": "a"}
    other = {"dev_read_iops": 7.0, "dev_write_iops": 1.0, "boot_id": "b"}
    assert summed_live([one, dict(one), dict(one)]) == {
        "dev_read_iops": 100.0, "dev_write_iops": 20.0, "hosts": 1,
    }  # fmt: skip
    assert summed_live([one, dict(one), other])["dev_read_iops"] == 107.0


def test_a_cluster_study_with_nothing_to_run_is_one_line(tmp_path):
    from dbstor.cluster.runs import run_cluster_study

    path = tmp_path / "s.toml"
    path.write_text(
        '[cluster]\naddress = "127.0.0.1:1"\n[[targets]]\nclients = ["c1"]\n'
        '[[databases]]\nengine = "sqlite"\nusers = [1]\n'  # managed: not on a clients target
    )
    with pytest.raises(UserError, match="nothing to run"):
        run_cluster_study(load_study(path), tmp_path / "out", Safety(), progress=None)  # type: ignore[arg-type]
    assert not (tmp_path / "out").exists()
