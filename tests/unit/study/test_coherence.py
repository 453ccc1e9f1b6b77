"""A study whose tables each pass but contradict each other is refused in one line: an SLO
metric the database runs cannot measure (each would end without a knee while `dbstor
study` said ok), and a [load] table nothing reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.study.load import study_from_dict

TARGET = {"targets": [{"label": "A", "path": "/tmp/a"}]}
DB = {"databases": [{"engine": "sqlite", "workload": "brokerage", "users": [1, 2]}]}


def load(data: dict) -> object:
    return study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))


def test_fio_s_p99_with_databases_is_refused_naming_the_fix():
    data = {"study": {"profiles": ["io-oltp"]}, "slo": {"metric": "read_lat_p99_ms"}}
    with pytest.raises(UserError) as refused:
        load({**data, **DB, **TARGET})
    text = str(refused.value)
    assert text.startswith("s.toml: slo.metric: read_lat_p99_ms is not measured on a database")
    assert "read_lat_mean_ms" in text and "txn_lat_p99_ms" in text and "\n" not in text
    load({**data, **TARGET})  # fio alone measures its p99
    load({"slo": {"metric": "read_lat_mean_ms"}, **DB, **TARGET})
    load({"slo": {"metric": "txn_lat_p99_ms"}, **DB, **TARGET})
    queries = {"databases": [{"engine": "duckdb", "workload": "dss", "streams": [1]}]}
    load({"slo": {"metric": "read_lat_p99_ms"}, **queries, **TARGET})  # no knee to lose


def test_a_transaction_metric_with_fio_profiles_is_refused():
    with pytest.raises(UserError, match="not measured on a fio run"):
        load({"study": {"profiles": ["io-oltp"]}, "slo": {"metric": "txn_lat_p99_ms"}, **TARGET})


def test_a_load_table_with_only_databases_is_refused_not_ignored():
    with pytest.raises(UserError) as refused:
        load({"load": {"kind": "iodepth", "values": [1, 4]}, **DB, **TARGET})
    assert str(refused.value).startswith("s.toml: load: [load] sets the fio profiles' series")
    with_fio = {"study": {"profiles": ["io-oltp"]}, "load": {"values": [1, 4]}}
    load({**with_fio, **DB, **TARGET})
