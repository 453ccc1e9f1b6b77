"""The dialects by name: the packages under dbstor/dialects/ that exist are the dialects.

A new dialect is its package (`dbstor/dialects/<name>/__init__.py` defining DIALECT) and
its tests; nothing here names one.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache

import dbstor.dialects as package
from dbstor.dialects.base import Dialect


@cache
def names() -> tuple[str, ...]:
    """Every dialect, sorted."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.ispkg))


@cache
def get(name: str) -> Dialect:
    """The dialect called `name`; ValueError with the nearest names for an unknown one."""
    if name not in names():
        near = difflib.get_close_matches(name, names(), n=2)
        hint = f" (did you mean {' or '.join(near)}?)" if near else ""
        raise ValueError(f"unknown dialect {name!r}{hint}: known {', '.join(names())}")
    dialect = importlib.import_module(f"dbstor.dialects.{name}").DIALECT
    assert isinstance(dialect, Dialect)
    return dialect


def for_workload(name: str, workload: str) -> Dialect:
    """The dialect `name`, which must run `workload` (ValueError naming both if not)."""
    dialect = get(name)
    if workload not in dialect.workloads:
        raise ValueError(f"the {workload} workload has no SQL for dialect {name!r}")
    return dialect


def running(workload: str) -> tuple[str, ...]:
    """The dialects `workload` runs on (each dialect lists its workloads)."""
    return tuple(n for n in names() if workload in get(n).workloads)


def having(workload: str) -> tuple[str, ...]:
    """The dialects that have SQL of their own for `workload` (its part)."""
    return tuple(n for n in names() if get(n).part(workload) is not None)
