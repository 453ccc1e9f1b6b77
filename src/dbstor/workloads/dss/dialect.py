"""The dialect the 22 queries are written for: date literals and arithmetic, year
extraction, substrings, case-sensitive patterns and derived-table column lists are each
dialect's own (dbstor/dialects/: standard SQL in base.py, SQLite's dates-as-text and GLOB
in its package).
"""

from __future__ import annotations

from dbstor.dialects import registry
from dbstor.dialects.base import Dialect

__all__ = ["Dialect", "dialect_for", "in_list"]


def in_list(values: list[str] | tuple[str, ...]) -> str:
    """The inside of an IN (...) list of text literals (the same in every dialect)."""
    return ", ".join(f"'{v}'" for v in values)


def dialect_for(name: str) -> Dialect:
    """The dialect `name`, which must run dss (ValueError naming it if not)."""
    return registry.for_workload(name, "dss")
