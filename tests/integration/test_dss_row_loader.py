"""The row loader SQL Server's and Oracle's dss loaders share (workloads/dss/row_loader.py),
run for real where it can be: on a real SQLite database, fed by SQL Server's own row path
(load_tsql.send: multi-row INSERTs of literals, standard SQL), with tpchgen-cli's real
CSV parts. Every generated row arrives, split parts and all, and the statistics run."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.errors import UserError
from dbstor.workloads.dss import generate as gen
from dbstor.workloads.dss import load_tsql, row_loader, schema

pytestmark = pytest.mark.integration

try:
    gen.find_generator()
except UserError as missing:
    pytest.skip(str(missing), allow_module_level=True)


def csv_rows(data: gen.Generated, table: str) -> int:
    total = 0
    for path in data.files[table]:
        with path.open(newline="", encoding="utf-8") as source:
            total += sum(1 for _ in csv.reader(source)) - 1  # less the header
    return total


def test_every_generated_row_arrives_through_the_shared_loader(tmp_path: Path) -> None:
    data = gen.generate(0.01, "csv", tmp_path / "gen", parts=2, threads=1)
    target = tmp_path / "db"
    target.mkdir()
    engine = SQLiteEngine(EngineSettings(paths={"data": [target]}))
    engine.start()
    analyzed: list[str] = []

    def statistics(table: str) -> str:
        analyzed.append(table)
        return f"ANALYZE {table}"

    try:
        phases = row_loader.build(
            engine, data, 0.01, "none", workers=1, send=load_tsql.send, statistics=statistics
        )
        conn = engine.connect()
        try:
            for table in schema.TABLES:
                expected = csv_rows(data, table.name)
                (count,) = conn.execute(f"SELECT count(*) FROM {table.name}").fetchone()
                assert count == expected == phases.rows[table.name], table.name
        finally:
            conn.close()
        assert len(data.files["lineitem"]) == 2  # two parts of one table, both loaded
        assert sorted(analyzed) == sorted(t.name for t in schema.TABLES)
        assert analyzed[0] == "lineitem"  # biggest table first
    finally:
        engine.stop()
