"""The study file's [capacity], [efficiency], [placement] and [tco] tables: the flags of
`dbstor capacity|efficiency|advise|tco` as keys (dashes as underscores), study-wide and per
target (a target's own `capacity = {...}`). Here only their shape and names are checked;
their values are checked by the commands' own parsing before anything runs
(commands/study_analyses.py), so a study and a command refuse a value the same way.
"""

from __future__ import annotations

import difflib
from typing import Any

from dbstor.errors import UserError
from dbstor.study.values import PLACE_ROLES

# key -> what it takes: "text" (a number, size or name), "flag" (true or false),
# "label" (a target's label), "roles" (text, or a table of role = text)
CAPACITY_KEYS = {
    "drives": "text",
    "raid": "text",
    "raid_group": "text",
    "spares": "text",
    "partitioning": "text",
    "root_partition": "text",
    "right_size": "text",
    "fs_reserve": "text",
    "snap_reserve": "text",
}
EFFICIENCY_KEYS = {
    "array": "text",
    "compressor": "text",
    "full": "flag",
    "sample": "text",
    "min_sample": "text",
    "seed": "text",
    "dedup_block": "text",
    "dedup": "text",
    "throttle": "text",
    "workers": "text",
    "max_fingerprints": "text",
    "no_matrix": "flag",
    "snapshots": "roles",
    "retention": "roles",
    "copies": "roles",
    "change_rate": "roles",
}
PLACEMENT_KEYS = {
    "fast_capacity": "text",
    "fast_latency": "text",
    "slow_latency": "text",
    "include_logs": "flag",
    "method": "text",
    "fast": "label",  # the target whose measured latency prices the move
}
TCO_KEYS = {
    "servers": "text",
    "sockets": "text",
    "cores_per_server": "text",
    "ceiling": "text",
    "license": "text",
    "core_factor": "text",
    "license_price": "text",
    "support_rate": "text",
    "count_license_purchase": "flag",
    "server_price": "text",
    "server_refresh": "text",
    "server_support": "text",
    "power": "text",
    "space": "text",
    "admin": "text",
    "storage_price": "text",
    "storage_support": "text",
    "legacy_storage_support": "text",
    "migration": "text",
    "years": "text",
    "discount_rate": "text",
    "currency": "text",
    "example_prices": "flag",
    "after": "label",  # the target whose runs give the CPU after (default: the first other)
}
TABLES = {
    "capacity": CAPACITY_KEYS,
    "efficiency": EFFICIENCY_KEYS,
    "placement": PLACEMENT_KEYS,
    "tco": TCO_KEYS,
}
STUDY_ONLY_KEYS = ("fast", "after")  # keys naming targets, not flags of the command
PER_TARGET = ("capacity", "efficiency", "placement")  # one cost case per study
# the command each table feeds, for messages and the commands' parsing
COMMANDS = {"capacity": "capacity", "efficiency": "efficiency", "placement": "advise", "tco": "tco"}


def analysis_table(source: str, where: str, name: str, table: Any) -> dict[str, Any]:
    """One table checked for its names and the kinds of its values; returned as given."""
    keys = TABLES[name]
    if not isinstance(table, dict):
        raise UserError(f"{source}: {where}: must be a table, e.g. {_example(name)}")
    for key, value in table.items():
        if key not in keys:
            hint = difflib.get_close_matches(str(key), keys, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise UserError(
                f"{source}: {where}.{key}: unknown field{extra}; allowed: {', '.join(sorted(keys))}"
            )
        problem = _kind_problem(keys[key], value)
        if problem:
            raise UserError(f"{source}: {where}.{key}: {problem}")
        if keys[key] == "roles" and isinstance(value, dict):
            _check_roles(source, f"{where}.{key}", value)
    return dict(table)


def _check_roles(source: str, where: str, value: dict[str, Any]) -> None:
    """A per-role value names a role the study's runs put files on (a typo such as 'dat'
    would otherwise model the snapshots of no file, silently)."""
    for role in value:
        if role not in PLACE_ROLES:
            hint = difflib.get_close_matches(str(role), PLACE_ROLES, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise UserError(
                f"{source}: {where}.{role}: not a target role{extra}; "
                f"allowed: {', '.join(PLACE_ROLES)}"
            )


def _kind_problem(kind: str, value: Any) -> str | None:
    if kind == "flag":
        return None if isinstance(value, bool) else "must be true or false"
    if isinstance(value, bool):
        return "must be a number, a size or a name, not true or false"
    if kind == "label":
        return None if isinstance(value, str) and value else "must be a target's label"
    if isinstance(value, int | float) or (isinstance(value, str) and value.strip()):
        return None
    if kind == "roles" and isinstance(value, dict) and value:
        if all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value.values()
        ):
            return None
        return 'must be a table of role = value, e.g. { data = "2h", log = "15m" }'
    return "must be a number, a size or a name (a non-empty string)"


def _example(name: str) -> str:
    return {
        "capacity": '{ drives = "48x800GB", raid = "raid-dp" }',
        "efficiency": '{ array = "ontap-secondary" }',
        "placement": '{ fast_capacity = "10GB", fast = "flash" }',
        "tco": '{ servers = 10, cores_per_server = 12, license = "sqlserver-enterprise" }',
    }[name]


# what a [cluster] study's tables cannot have, and why (commands/study_analyses.py)
CLUSTER_WHY = {
    "efficiency": "the study ran on a cluster: its files were built on the cluster's hosts, "
    "not on this one, and removed there; run dbstor efficiency on a host's copy",
    "consolidation": "the study ran on a cluster: the verify run is not re-run there (the "
    "cluster's session ended with the study's runs); run [consolidation] in a study "
    "without [cluster], or dbstor run at the consolidated load with --cluster",
}


def cluster_skips(study: Any) -> list[str]:
    """The terminal's line for each table a [cluster] study asked for and cannot have."""
    asked = {
        "efficiency": any(study.analysis_table("efficiency", t) is not None for t in study.targets),
        "consolidation": study.consolidation is not None,
    }
    return [f"analyses: {name} not computed: {CLUSTER_WHY[name]}" for name in asked if asked[name]]
