"""Building the brokerage database through the shared bulk path (dbstor.workloads.bulk):
the tables in placement order, the generator's chunks, keys, indexes and statistics."""

from __future__ import annotations

import functools
from collections.abc import Callable

from dbstor.engines.base import Engine
from dbstor.workloads import bulk
from dbstor.workloads.base import LoadReport
from dbstor.workloads.brokerage import schema
from dbstor.workloads.brokerage.generate import chunks, generate
from dbstor.workloads.brokerage.keys import Keys


def build(engine: Engine, keys: Keys, say: Callable[[str], None]) -> LoadReport:
    """Create, load, index and analyze the whole database on the engine."""
    load = bulk.BulkLoad(
        label="brokerage",
        tables=schema.TABLES,
        work=chunks(keys.volumes),
        generate=functools.partial(generate, keys=keys),
    )
    return bulk.build(engine, load, say)
