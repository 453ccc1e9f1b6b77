"""A study file shrunk to a small machine: the same targets, workloads, comparison and
tables ([capacity], [efficiency], [placement], [tco]), with each target's paths moved under
one directory, points of a few seconds, the first two loads of each series and a small
scale, so that the seeds' studies in examples/ run here in minutes (`dbstor study FILE
--shrink DIR`). Everything else stays as written."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

SMALL_SCALE = {"brokerage": 200, "orders": 1, "blocks": 500, "dss": 0.05}
POINT = {"duration": "5s", "warmup": "2s", "size": "64MiB", "repeats": 1}  # as the default study
SERIES = ("users", "instances", "rate", "streams")


def shrink(
    data: dict[str, Any], where: Path, memory: Callable[[dict[str, Any]], None] | None = None
) -> tuple[dict[str, Any], list[Path]]:
    """-> (the shrunk study, the directories its targets now use). `memory` sets a managed
    engine's memory in each shrunk [[databases]] table (engines/shrunk.small_memory: the
    engines know their own needs; this layer names none)."""
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
        if memory is not None:
            memory(db)
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
