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

from dbstor.units import parse_size

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
    _scale_fast_tiers(small, _scale_ratio(data.get("databases", []), small.get("databases", [])))
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


def _scale_ratio(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> float | None:
    """How much smaller the shrunk databases are: the largest of small scale / scale over
    the databases whose scale the study gave (None when it gave none)."""
    ratios = []
    for old, new in zip(before, after, strict=False):
        scale, small = old.get("scale"), new.get("scale")
        if isinstance(scale, int | float) and isinstance(small, int | float) and scale > 0:
            ratios.append(min(1.0, small / scale))
    return max(ratios) if ratios else None


def _scale_fast_tiers(small: dict[str, Any], ratio: float | None) -> None:
    """A [placement] fast tier given as a size shrinks with the database, so that the
    shrunk study moves the same share of it (a share such as "50%" follows by itself)."""
    if ratio is None or ratio >= 1.0:
        return
    tables = [small.get("placement")] + [t.get("placement") for t in small.get("targets", [])]
    for table in tables:
        if not isinstance(table, dict):
            continue
        given = table.get("fast_capacity")
        if not isinstance(given, str) or given.strip().endswith("%"):
            continue
        try:
            size = parse_size(given)
        except ValueError:
            continue  # the study's own check names it
        table["fast_capacity"] = f"{max(1, round(size * ratio))}B"
