"""A study file shrunk to a small machine: the same targets, workloads, comparison and
tables ([capacity], [efficiency], [placement], [tco]), with each target's paths moved under
one directory, points of a few seconds, the first two loads of each series and a small
scale, so that the seeds' studies in examples/ run here in minutes (`dbstor study FILE
--shrink DIR`). Everything else stays as written."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

SMALL_SCALE = {"brokerage": 200, "orders": 1, "blocks": 500, "dss": 0.05}
POINT = {"duration": "5s", "warmup": "2s", "size": "64MiB", "repeats": 1}  # as the default study
SERIES = ("users", "instances", "rate", "streams")
# A managed server's memory held below the shrunk database, so that its reads reach the
# storage: with a seed's 2 GiB every point reads from memory and no factor, per-disk figure
# or cost case may rest on it. PostgreSQL's cap grows with its connections (about 6 MiB
# each beside 16 MiB of shared buffers; 96 MiB in all killed it at 16 users), and its
# brokerage database is made larger than what the cap leaves for the page cache.
PG_BASE_MIB, PG_PER_CONNECTION_MIB = 96, 6
# brokerage: about 245 MiB on disk; blocks: 2,000 8K rows per user, 16 MiB, more than the
# 6 MiB each connection adds to the cap (at 500 rows a user TR-4415 read from memory)
PG_SCALE = {"brokerage": 1000, "blocks": 2000}


def _small_memory(db: dict[str, Any]) -> None:
    """Cap a managed engine's memory below its shrunk database (not an external one's)."""
    engine = db.get("engine", "sqlite")
    if db.get("dsn") or engine not in ("postgres", "sqlite"):
        return
    if engine == "sqlite":
        db["memory_limit"] = "48MiB"  # as the default study: SQLite's ~77 MiB at scale 1,000
        return
    users = db.get("users_per_instance") if "instances" in db else db.get("users")
    most = max(users) if isinstance(users, list) and users else int(users or 1)
    db["buffer"] = "16MiB"
    db["memory_limit"] = f"{PG_BASE_MIB + PG_PER_CONNECTION_MIB * int(most)}MiB"
    workload = db.get("workload", "brokerage")
    if workload in PG_SCALE:
        db["scale"] = PG_SCALE[workload]


def shrink(data: dict[str, Any], where: Path) -> tuple[dict[str, Any], list[Path]]:
    """-> (the shrunk study, the directories its targets now use)."""
    small = copy.deepcopy(data)
    study = small.setdefault("study", {})
    study.update(POINT)
    if "name" in study:
        study["name"] = f"{study['name']} (shrunk)"
    if "values" in small.get("load", {}):
        small["load"]["values"] = small["load"]["values"][:2]
    for db in small.get("databases", []):
        workload = db.get("workload", "brokerage")
        if workload in SMALL_SCALE:
            db["scale"] = SMALL_SCALE[workload]
        for key in SERIES:
            if isinstance(db.get(key), list):
                db[key] = db[key][:2]
        if "users_per_instance" in db:
            db["users_per_instance"] = min(int(db["users_per_instance"]), 2)
        db["client_processes"] = 1
        _small_memory(db)
        if "query_timeout" in db:
            db["query_timeout"] = "5m"
    made: list[Path] = []
    for index, target in enumerate(small.get("targets", [])):
        if target.get("clients"):
            continue  # an external server's target: nothing of it is on this machine
        label = str(target.get("label", f"T{index + 1}"))
        count = len(target.get("paths", [])) or 1
        paths = [where / label / (f"data{i + 1}" if count > 1 else "data") for i in range(count)]
        target.pop("path", None)
        target["paths"] = [str(p) for p in paths]
        made += paths
        for role in ("log", "temp", "fast"):
            if role in target:
                target[role] = str(where / label / role)
                made.append(where / label / role)
    return small, made
