"""dbstor export's one declared schema: a column's type never depends on which values
were null in this export, and its names need no quoting."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb

from dbstor.catalog.export import to_sqlite
from dbstor.catalog.export_schema import column_names, declared_type


def _types(path: Path, table: str) -> dict[str, str]:
    db = duckdb.connect(str(path))
    try:
        return {name: kind for name, kind, *_ in db.sql(f"describe {table}").fetchall()}
    finally:
        db.close()


def test_the_type_of_a_column_does_not_depend_on_this_export_s_values(tmp_path: Path):
    whole = {"runs": [{"id": "a", "knee": 75296, "peak": None}],
             "points": [{"run_id": "a", "point": 1, "read_lat_ms_p99": 1, "tps": None,
                         "engine_io_device_reads_per_txn": 2}]}  # fmt: skip
    empty = {"runs": [{"id": "b", "knee": None, "peak": 84943.5}],
             "points": [{"run_id": "b", "point": 1, "read_lat_ms_p99": None, "tps": 7.5,
                         "engine_io_device_reads_per_txn": None}]}  # fmt: skip
    to_sqlite(whole, tmp_path / "one.duckdb", "duckdb")
    to_sqlite(empty, tmp_path / "two.duckdb", "duckdb")
    for table in ("runs", "points"):
        assert _types(tmp_path / "one.duckdb", table) == _types(tmp_path / "two.duckdb", table)
    points = _types(tmp_path / "one.duckdb", "points")
    assert points["read_lat_ms_p99"] == "DOUBLE" and points["point"] == "BIGINT"
    assert points["engine_io_device_reads_per_txn"] == "DOUBLE"
    assert _types(tmp_path / "one.duckdb", "runs")["knee"] == "DOUBLE"
    assert declared_type("points", "saturated", [None]) == "BOOLEAN"
    assert declared_type("points", "txn_types_NewOrder_count", [None]) == "BIGINT"
    assert declared_type("runs", "target_facts_drives", [48]) == "DOUBLE"  # free form: never BIGINT


def test_names_need_no_quoting(tmp_path: Path):
    names = column_names(["target_facts_Drive-Type", "target_facts_drive type", "order", "9x"])
    assert names == ["target_facts_drive_type", "target_facts_drive_type_2", "order_", "c_9x"]
    data = {"runs": [{"id": "a", "target_facts_Array": "x", "target_facts_array": "y"}]}
    to_sqlite(data, tmp_path / "r.db")
    db = sqlite3.connect(tmp_path / "r.db")
    assert db.execute("select target_facts_array, target_facts_array_2 from runs").fetchall() == [
        ("x", "y")
    ]
