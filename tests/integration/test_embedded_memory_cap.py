"""--memory-limit on embedded SQLite: a real cgroup around the client processes holds the
database's memory (SQLite's caches and the page cache of its files) under the cap, so its
reads reach the storage; the run says which cap was applied and how."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dbstor.engines.embedded_cap import EmbeddedCap

pytestmark = pytest.mark.integration


def cgroup_possible() -> bool:
    probe = EmbeddedCap("probe", os.getpid(), 64 * 2**20)
    probe.create()
    try:
        return probe.active
    finally:
        probe.remove()


needs_cgroup = pytest.mark.skipif(
    not cgroup_possible(), reason="no memory cgroup can be made here (needs root or delegation)"
)


def run_brokerage(dbstor, tmp_path: Path, *extra: str) -> dict:
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", "sqlite", "--workload", "brokerage", "--scale", "1000",
        "--users", "1,4", "--duration", "3", "--warmup", "2", "--target", target,
        "--out", tmp_path / "out", "--quiet", *extra, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (folder,) = (tmp_path / "out").iterdir()
    return json.loads((folder / "results.json").read_text())


@needs_cgroup
def test_capped_sqlite_reads_from_the_storage(dbstor, tmp_path):
    run = run_brokerage(dbstor, tmp_path, "--memory-limit", "48MiB")
    cap = run["engine"]["memory_cap"]
    assert "cgroup" in cap and "around the client processes" in cap and "48 MiB" in cap
    assert run["engine"]["memory_limit_bytes"] == 48 * 2**20
    for point in run["points"]:
        assert point["engine_io"]["engine_physical_reads_per_txn"] >= 1
        assert point["cache_hit_ratio"] < 0.9
        assert point["client"]["processes"] >= 1
    group = Path(cap.split(" group ")[1].split(" around")[0])
    assert not group.exists()  # removed with the engine


def test_uncapped_sqlite_is_served_by_memory(dbstor, tmp_path):
    run = run_brokerage(dbstor, tmp_path)
    assert "memory_cap" not in run["engine"]
    assert run["points"][-1]["cache_hit_ratio"] > 0.9
