"""Checks across a study's tables that each table alone passes: an SLO metric that no
database run can measure (every database run of the study would end without a knee),
a [load] table that nothing of the study reads, and a target's log, temp or fast path in a
study that runs only fio profiles (which use the data path alone). Each refused in one line that names
the table and the fix, as `dbstor study` and `dbstor run` check the same study."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbstor.errors import UserError
from dbstor.study.values import repeated_path

if TYPE_CHECKING:
    from dbstor.study.model import Study

QUERY_WORKLOADS = ("dss",)  # query runs have no latency limit: no knee to lose


def coherent(study: Study) -> Study:
    """The study, or a UserError for tables that contradict each other."""
    source = study.source
    metric = study.slo_metric or ""
    side, _, stat = metric.partition("_lat_")
    transactional = [d for d in study.databases if d.workload not in QUERY_WORKLOADS]
    if transactional and side in ("read", "write") and not stat.startswith("mean"):
        raise UserError(
            f"{source}: slo.metric: {metric} is not measured on a database run (its "
            f"{side} latency is the device's mean await: /proc/diskstats has no percentiles), "
            "so every database run would end without a knee; use "
            f"{side}_lat_mean_ms, or txn_lat_{stat.removesuffix('_ms')}_ms for the "
            "transactions, or run the fio profiles in a study of their own"
        )
    if study.profiles and side == "txn":
        raise UserError(
            f"{source}: slo.metric: {metric} is not measured on a fio run (fio has no "
            "transactions), so every fio run would end without a knee; use read_lat_p99_ms, "
            "or run the databases in a study of their own"
        )
    for index, target in enumerate(study.targets):
        for role, paths in target.roles.items():
            twice = repeated_path(paths)
            if twice is not None:
                key = "paths" if role == "data" else role
                raise UserError(
                    f"{source}: targets[{index}].{key}: {twice} is given twice: give each "
                    "folder once"
                )
    if not study.databases:
        for index, target in enumerate(study.targets):
            role = next((r for r in ("log", "temp", "fast") if r in target.roles), None)
            if role is not None:
                raise UserError(
                    f"{source}: targets[{index}].{role}: this study runs only fio profiles, "
                    f"which put their test files on the target's path, so nothing would go on "
                    f"its {role} path: drop {role}, or add the [[databases]] that use it"
                )
    if study.series is not None and not study.profiles:
        raise UserError(
            f"{source}: load: [load] sets the fio profiles' series and this study runs none; "
            "each database's load is its own users, instances or rate: drop [load] or move "
            "its values to the [[databases]] table"
        )
    return study
