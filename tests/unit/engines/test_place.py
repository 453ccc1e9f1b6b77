"""Checks of [databases] place patterns against an engine and the objects a workload makes
(engines/place.py): every refusal is one line naming what to change."""

from __future__ import annotations

import pytest

from dbstor.engines.mariadb import MariaDBEngine
from dbstor.engines.place import assign, check_place
from dbstor.engines.postgres import PostgresEngine
from dbstor.engines.registry import engine_class
from dbstor.errors import UserError
from dbstor.workloads.registry import workload_class

OBJECTS = workload_class("brokerage")(50).object_names()
ROLES = {"data": ["/slow"], "fast": ["/fast"]}


def check(engine, place, roles=ROLES, objects=OBJECTS, external=False):
    check_place(engine, place, roles, objects, "brokerage", external, "T1")


def test_globs_name_tables_and_indexes_and_the_first_pattern_wins():
    chosen = assign({"trade_history": "data", "trade_*": "fast"}, OBJECTS, "brokerage")
    assert chosen["trade_history"] == "data"
    assert chosen["trade_ca_dts"] == chosen["trade_history_pkey"] == "fast"
    assert "trade" not in chosen and "last_trade" not in chosen


def test_a_pattern_naming_nothing_lists_the_objects_that_exist():
    with pytest.raises(UserError) as err:
        assign({"Trade_Histories": "fast"}, OBJECTS, "brokerage")
    line = str(err.value)
    assert "'Trade_Histories' names no table or index of the brokerage database" in line
    assert "trade_history" in line and "\n" not in line


def test_postgres_places_indexes_mariadb_only_tables():
    check(PostgresEngine, {"trade_ca_dts": "fast"})
    check(MariaDBEngine, {"trade*": "fast"})  # tables with their indexes
    with pytest.raises(UserError, match="names only indexes, and MariaDB keeps each index"):
        check(MariaDBEngine, {"trade_ca_*": "fast"})


@pytest.mark.parametrize(
    ("engine", "place", "roles", "external", "message"),
    [
        ("duckdb", {"lineitem": "fast"}, ROLES, False, "DuckDB cannot put single tables"),
        ("postgres", {"trade": "fast"}, {"data": ["/slow"]}, False, "has no fast path"),
        ("postgres", {"trade": "fast"}, ROLES, True, "not on an external server"),
    ],
)
def test_refusals(engine, place, roles, external, message):
    with pytest.raises(UserError, match=message):
        check(engine_class(engine), place, roles=roles, external=external)


def test_data_needs_no_extra_path_and_unknown_objects_wait_for_the_load():
    check(PostgresEngine, {"trade": "data"}, roles={"data": ["/slow"]})
    check(PostgresEngine, {"anything_*": "fast"}, objects={})  # checked after the load
