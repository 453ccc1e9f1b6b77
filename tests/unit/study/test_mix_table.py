"""[mix] in a study file: workloads of the study started together (docs/mix.md), each
refusal one line naming the field, before anything runs."""

from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.study.load import study_from_dict

BROKERAGE = {"engine": "postgres", "workload": "brokerage", "users": [2, 4]}
DSS = {"engine": "duckdb", "workload": "dss", "streams": [1, 2]}


def _study(mix, databases=(BROKERAGE, DSS), **more):
    data = {
        "targets": [{"label": "A", "path": "/tmp/a"}],
        "databases": list(databases),
        "mix": mix,
        **more,
    }
    return study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))


def test_a_mix_of_a_database_and_a_query_workload_and_a_profile_is_read():
    study = _study(
        {"workloads": ["brokerage", "dss", "io-log"]},
        study={"profiles": ["io-log"]},
        load={"kind": "iodepth", "values": [1, 8]},
    )
    assert study.mix is not None and study.mix.workloads == ("brokerage", "dss", "io-log")
    assert study.describe()["mix"] == {"workloads": ["brokerage", "dss", "io-log"]}


@pytest.mark.parametrize(
    ("mix", "databases", "words"),
    [
        ({"workloads": ["brokerage", "dsss"]}, (BROKERAGE, DSS), "'dsss' is not a workload of"),
        ({"workloads": ["brokerage", "dsss"]}, (BROKERAGE, DSS), "did you mean 'dss'"),
        ({"workloads": ["brokerage"]}, (BROKERAGE, DSS), "name two or more"),
        ({"workloads": ["dss", "dss"]}, (BROKERAGE, DSS), "'dss' is named twice"),
        ({"workloads": ["brokerage", 3]}, (BROKERAGE, DSS), "a non-empty string"),
        ({"workload": ["brokerage", "dss"]}, (BROKERAGE, DSS), "did you mean 'workloads'"),
        ("brokerage", (BROKERAGE, DSS), "must be a table"),
        (
            {"workloads": ["brokerage", "dss"]},
            (BROKERAGE, DSS | {"streams": [1]}),
            "different numbers of load points (brokerage 2, dss 1)",
        ),
        (
            {"workloads": ["brokerage", "dss"]},
            (BROKERAGE | {"users": "auto"}, DSS),
            "'brokerage' has an auto series",
        ),
        (
            {"workloads": ["brokerage", "dss"]},
            (BROKERAGE, BROKERAGE | {"engine": "sqlite"}, DSS),
            "'brokerage' is the workload of two [[databases]]",
        ),
        (
            {"workloads": ["brokerage", "orders"]},
            (BROKERAGE, BROKERAGE | {"workload": "orders"}),
            "'brokerage' and 'orders' both run on a managed postgres",
        ),
    ],
)
def test_a_mix_that_cannot_run_is_refused_in_one_line(mix, databases, words):
    with pytest.raises(UserError) as caught:
        _study(mix, databases)
    message = str(caught.value)
    assert words in message and "\n" not in message and message.startswith("s.toml: mix")


def test_one_engine_twice_is_taken_when_one_of_them_is_an_external_server(monkeypatch):
    monkeypatch.setenv("ORDERS_DSN", "postgresql://dbstor@db2:5432/orders")
    external = BROKERAGE | {"workload": "orders", "dsn_env": "ORDERS_DSN"}
    study = _study({"workloads": ["brokerage", "orders"]}, (BROKERAGE, external))
    assert study.mix is not None and study.mix.workloads == ("brokerage", "orders")


def test_a_mix_across_hosts_is_refused():
    with pytest.raises(UserError, match="a mix runs on one host"):
        _study(
            {"workloads": ["brokerage", "dss"]},
            cluster={"address": "127.0.0.1:6379"},
            targets=[{"label": "A", "path": "/tmp/a", "hosts": ["h1"]}],
        )


def test_events_inside_a_mix_are_refused_until_one_process_fires_them():
    with pytest.raises(UserError, match=r"mix\.workloads: events inside a mix"):
        _study(
            {"workloads": ["brokerage", "dss"]},
            events=[{"kind": "drop-caches", "at": "1s"}],
            study={"duration": "10s"},
        )
