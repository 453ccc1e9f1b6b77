"""Repeats for every run kind: database points (SQLite, managed PostgreSQL) and query
points (DuckDB) measured `repeats` times through the real CLI and a study file, with the
spread of throughput kept, every repeat's samples written and the percentiles from every
repeat's transactions."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from needs import usable

pytestmark = pytest.mark.integration

SHORT = ("--duration", "2", "--warmup", "1", "--scale", "50")


def samples_per_repeat(folder: Path) -> Counter:
    with open(folder / "samples.csv") as handle:
        return Counter((r["point"], r["repeat"]) for r in csv.DictReader(handle))


def check_repeated(point: dict, repeats: int) -> None:
    assert point["status"] == "ok" and point["repeats"] == repeats
    spread = point["tps_spread"]
    assert spread["minimum"] <= spread["median"] <= spread["maximum"]
    # the figures are one repeat's: the median one (of an even count, the lower middle)
    assert spread["minimum"] <= point["tps"] <= spread["median"]
    if repeats % 2:
        assert point["tps"] == pytest.approx(spread["median"])
    assert point["trust"]["noisy"] == (
        (spread["maximum"] - spread["minimum"]) / spread["median"] > 0.10
    )


def test_sqlite_points_are_measured_repeats_times(dbstor, tmp_path):
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "sqlite", "--target", target, "--users", "1,2", *SHORT,
        "--repeats", "3", "--out", "out",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "out")
    data = dbstor.results(folder)
    for point in data["points"]:
        check_repeated(point, 3)
        # the transactions of all three repeats stand behind the percentiles
        assert point["txn_lat_ms"]["count"] > point["tps"] * 2 * 2
    per_repeat = samples_per_repeat(folder)
    assert {k for k in per_repeat} == {(p, r) for p in "12" for r in "123"}
    assert "3 repeats" in (folder / "report.html").read_text()


def test_postgres_points_are_measured_repeats_times(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", "--target", target, "--users", "2", *SHORT,
        "--repeats", "2", "--out", "out", timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [point] = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))["points"]
    check_repeated(point, 2)


def test_query_points_and_a_study_file_take_repeats(dbstor, tmp_path):
    usable("duckdb")
    target = tmp_path / "lun"
    target.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(
        f"""
[study]
name = "dss repeats"
repeats = 2

[[targets]]
label = "lun"
path = "{target}"

[[databases]]
engine = "duckdb"
workload = "dss"
scale = 0.01
streams = [1]
"""
    )
    proc = dbstor("run", study, "--out", "out")
    assert proc.returncode == 0, proc.stderr
    [folder] = [p for p in dbstor.run_folders(tmp_path / "out")]
    [point] = dbstor.results(folder)["points"]
    check_repeated(point, 2)
    # elapsed-time statistics over both repeats' six queries
    assert point["txn_lat_ms"]["count"] == 12
    assert len(point["queries"]) == 6
    # a query point this short may end between two samples; the rows there are, say their repeat
    assert set(samples_per_repeat(folder)) <= {("1", "1"), ("1", "2")}
