"""Whether a crash lost what the users were told was committed: the workload's durable
rows counted before the point and after it (every acknowledged commit of its durable
transaction adds one, nothing deletes them), and its consistency conditions after the
recovery. For the orders workload: every acknowledged New-Order's order row is there, and
TPC-C's consistency conditions hold.

`count_rows(active)` before the users start, `check(active, before, acknowledged)` once
they stopped; the result goes into each crash event's details as `durability`.
"""

from __future__ import annotations

import contextlib
from typing import Any

from dbstor.drivers.tally import error_line
from dbstor.drivers.users import Instance


def count_rows(active: list[Instance]) -> list[int | None] | None:
    """The durable rows of every instance now; None when they cannot be counted (the
    check after the point then says why)."""
    try:
        return [_ask(instance, instance.workload.durable_rows) for instance in active]
    except Exception:  # counted again after the point, where the error is kept
        return None


def _ask(instance: Instance, question: Any) -> Any:
    connection = instance.engine.connect()
    try:
        return question(connection)
    finally:
        with contextlib.suppress(Exception):
            connection.close()


def check(
    active: list[Instance], before: list[int | None] | None, acknowledged: dict[str, int]
) -> dict[str, Any]:
    """lost (acknowledged commits whose rows are missing; null with `reason` when it cannot
    be told), the rows before and after, and the consistency conditions that broke."""
    workload = active[0].workload
    out: dict[str, Any] = {
        "transaction": None,
        "acknowledged": None,
        "rows_before": None,
        "rows_after": None,
        "lost": None,
        "consistency_broken": None,
        "reason": None,
    }
    if workload.durable is None:
        out["reason"] = f"the {workload.name} workload names no durable transaction to check"
        return out
    txn, table = workload.durable
    out["transaction"], out["table"] = txn, table
    try:
        after = [_ask(i, i.workload.durable_rows) for i in active]
        broken = [_ask(i, i.workload.consistency) for i in active]
    except Exception as exc:  # the server did not come back
        out["reason"] = f"the database could not be read after the point: {error_line(exc)}"
        return out
    merged: dict[str, int] = {}
    for each in broken:
        for name, count in (each or {}).items():
            merged[name] = merged.get(name, 0) + count
    out["consistency_broken"] = merged if any(b is not None for b in broken) else None
    if before is None or None in before or None in after:
        out["reason"] = f"the {table} rows could not be counted before the point"
        return out
    told = acknowledged.get(txn, 0)
    out["acknowledged"], out["rows_before"], out["rows_after"] = told, sum(before), sum(after)
    # rows beyond the acknowledged ones are commits whose answer the crash cut off
    out["lost"] = max(0, sum(before) + told - sum(after))
    return out
