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
