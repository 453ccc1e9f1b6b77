"""The study file's [consolidation] table: after the runs and the cost case, re-run the
database workload on the new storage at the consolidated density and set its CPU and
throughput beside the before run (TR-4403 §5, TR-4415 §5).

    [consolidation]
    target = "FLASH"        # the storage re-run (default: [tco].after, else the first
                            # target that is not the baseline)
    servers_after = 5       # default: the servers the cost case keeps
    duration = "30s"        # default: the study's point duration

Checked here: the names, the kinds of the values, that a [tco] table gives the servers
before, and that a database of the study has a load that adds up across servers (users,
instances or a rate). Run by commands/consolidation.py.
"""

from __future__ import annotations

import difflib
from typing import Any

from dbstor.errors import UserError
from dbstor.study.model import Consolidation, DatabaseSpec
from dbstor.study.values import positive_int, target_label
from dbstor.units import parse_point_duration

KEYS = ("target", "servers_after", "duration")
SCALABLE_KINDS = ("users", "instances", "rate")


def verify_database(databases: tuple[DatabaseSpec, ...]) -> DatabaseSpec | None:
    """The database the verify run re-runs: the first whose load adds up across servers."""
    return next((d for d in databases if d.series.kind in SCALABLE_KINDS), None)


def parse_consolidation(
    source: str,
    table: Any,
    labels: list[str],
    databases: tuple[DatabaseSpec, ...],
    has_tco: bool,
) -> Consolidation:
    """The [consolidation] table checked; one line naming the field on a bad value."""
    where = f"{source}: consolidation"
    if not isinstance(table, dict):
        raise UserError(f"{where}: must be a table, e.g. [consolidation] servers_after = 5")
    for key in table:
        if key not in KEYS:
            hint = difflib.get_close_matches(str(key), KEYS, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise UserError(
                f"{where}.{key}: unknown field{extra}; allowed: {', '.join(sorted(KEYS))}"
            )
    if not has_tco:
        raise UserError(
            f"{where}: verifying a consolidation needs a [tco] table (servers, "
            "cores_per_server, license): add one"
        )
    if verify_database(databases) is None:
        raise UserError(
            f"{where}: needs a [[databases]] whose load adds up across servers "
            f"({', '.join(SCALABLE_KINDS)}); fio and query streams cannot be consolidated"
        )
    values: dict[str, Any] = {}
    for key, parse in (
        ("target", target_label),
        ("servers_after", positive_int),
        ("duration", parse_point_duration),
    ):
        if key in table:
            try:
                values[key] = parse(table[key])
            except (ValueError, TypeError) as exc:
                raise UserError(f"{where}.{key}: {exc}") from None
    target = values.get("target")
    if target is not None and target not in labels:
        raise UserError(f"{where}.target: {target!r} is not a target label: {', '.join(labels)}")
    return Consolidation(target, values.get("servers_after"), values.get("duration"))
