"""Fixtures for the report tests: the stored golden run folders and comparison."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from dbstor.results.model import Run
from dbstor.results.store import load_run, read_samples

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
FC, ISCSI, TMPFS = "fc-io-oltp", "iscsi-io-oltp", "tmpfs-interrupted"


@pytest.fixture
def fc() -> Run:
    return load_run(GOLDEN / FC)


@pytest.fixture
def iscsi() -> Run:
    return load_run(GOLDEN / ISCSI)


@pytest.fixture
def tmpfs() -> Run:
    return load_run(GOLDEN / TMPFS)


@pytest.fixture
def samples(fc: Run, iscsi: Run) -> dict[str, list[dict]]:
    return {fc.run_id: read_samples(GOLDEN / FC), iscsi.run_id: read_samples(GOLDEN / ISCSI)}


@pytest.fixture
def comparison() -> dict:
    return copy.deepcopy(json.loads((GOLDEN / "comparison-fc-iscsi.json").read_text()))


SQLITE, POSTGRES, DEFAULT = "sqlite-brokerage", "postgres-instances", "default-study"


@pytest.fixture
def sqlite_run() -> Run:
    """SQLite brokerage, users 1-8, reads from memory (tiny device reads)."""
    return load_run(GOLDEN / SQLITE)


@pytest.fixture
def postgres_run() -> Run:
    """PostgreSQL brokerage over 1-8 instances x 4 users; the storage was read."""
    return load_run(GOLDEN / POSTGRES)


@pytest.fixture
def default_pair() -> tuple[list[Run], dict[str, list[dict]]]:
    """The default study: fio io-oltp and SQLite brokerage on the target 'dbstor-data'."""
    ids = json.loads((GOLDEN / DEFAULT / "study.json").read_text())["runs"]
    runs = [load_run(GOLDEN / DEFAULT / run_id) for run_id in ids]
    samples = {run_id: read_samples(GOLDEN / DEFAULT / run_id) for run_id in ids}
    return runs, samples
