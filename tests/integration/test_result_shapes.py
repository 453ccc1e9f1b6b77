"""A fresh run's results.json (and a study's study.json and comparison.json) has the same
keys at the same places with the same types as the shapes stored in tests/golden/shapes,
recorded from runs made before the runs/ redesign: the layout changed, the results did not.
Fields added later on purpose (schema 1 grows, never changes) are listed with their reason
in tests/golden/shapes/added.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from needs import usable
from result_shapes import differences, shape

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

SHAPES = Path(__file__).parents[1] / "golden" / "shapes"
SHORT = ("--duration", "2", "--warmup", "1", "--quiet", "--json")


def only_folder(out: Path) -> Path:
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


ADDED = json.loads((SHAPES / "added.json").read_text(encoding="utf-8"))


def assert_same_shape(stored: str, data: dict) -> None:
    """Same shape, except for fields added since on purpose (added.json: path -> why)."""
    before = json.loads((SHAPES / f"{stored}.json").read_text(encoding="utf-8"))
    problems = [
        p
        for p in differences(before, shape(data))
        if not (p.startswith("new: ") and any(p[5:].startswith(a) for a in ADDED))
    ]
    assert problems == [], problems


def run_and_compare(dbstor, tmp_path: Path, stored: str, *args: str) -> None:
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(*args[:1], "--target", target, *args[1:], *SHORT, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    folder = only_folder(tmp_path / "out")
    assert_same_shape(stored, json.loads((folder / "results.json").read_text(encoding="utf-8")))


def test_io_run_keeps_its_shape(dbstor, tmp_path):
    run_and_compare(dbstor, tmp_path, "io-run", "io", "--iodepth", "1,8", "--size", "64MiB")


def test_database_run_keeps_its_shape(dbstor, tmp_path):
    run_and_compare(
        dbstor,
        tmp_path,
        "database-run",
        "run",
        "--engine",
        "sqlite",
        "--workload",
        "brokerage",
        "--users",
        "1,2",
        "--scale",
        "50",
    )


def test_open_loop_run_keeps_its_shape(dbstor, tmp_path):
    run_and_compare(
        dbstor,
        tmp_path,
        "open-loop-run",
        "run",
        "--engine",
        "sqlite",
        "--workload",
        "orders",
        "--rate",
        "50,100",
        "--users",
        "4",
        "--scale",
        "1",
    )


def test_query_run_keeps_its_shape(dbstor, tmp_path):
    usable("duckdb")
    run_and_compare(
        dbstor,
        tmp_path,
        "query-run",
        "run",
        "--engine",
        "duckdb",
        "--workload",
        "dss",
        "--scale",
        "0.01",
        "--streams",
        "1,2",
    )


def test_study_and_comparison_keep_their_shape(dbstor, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    proc = dbstor(
        "io",
        "--target",
        f"A={a}",
        "--target",
        f"B={b}",
        "--iodepth",
        "1,4",
        "--duration",
        "1",
        "--warmup",
        "0",
        "--size",
        "32MiB",
        "--quiet",
        "--out",
        tmp_path / "out",
    )
    assert proc.returncode == 0, proc.stderr
    folder = only_folder(tmp_path / "out")
    assert_same_shape("study", json.loads((folder / "study.json").read_text(encoding="utf-8")))
    assert_same_shape(
        "comparison", json.loads((folder / "comparison.json").read_text(encoding="utf-8"))
    )
