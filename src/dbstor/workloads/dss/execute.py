"""Rendering one of the 22 queries (queries.py) for a dialect, and running it on a DB-API
connection: its statements in order, the rows of its SELECT, its transaction ended, and a
view it created (Q15) dropped even when it fails."""

from __future__ import annotations

import contextlib
from typing import Any

from dbstor.dialects import registry
from dbstor.dialects.base import Dialect
from dbstor.engines.duckdb import interrupted_by_ctrl_c
from dbstor.workloads.dss.dialect import dialect_for
from dbstor.workloads.dss.params import Params
from dbstor.workloads.dss.queries import TEXTS


def render(number: int, params: Params, dialect: str, stream: int = 0) -> str:
    """The SQL of query `number` with its parameters, for a dialect (statements separated
    by ';' when there are several: Q15)."""
    return TEXTS[number](params, dialect_for(dialect), stream)


def statements(sql: str) -> list[str]:
    """The statements of a rendered query (no literal in these queries holds a ';')."""
    return [s.strip() for s in sql.split(";") if s.strip()]


def answer(connection: Any, sql: str, dialect: str) -> list[tuple[Any, ...]]:
    """Run a rendered query on a DB-API connection (each statement as the dialect runs
    one: dialects/base.Dialect.execute) and end its transaction; the rows of its SELECT.
    A view the query creates (Q15) is dropped even when the query fails."""
    own = registry.get(dialect)
    parts = statements(sql)
    views = [_view_name(s) for s in parts if s.lower().startswith("create ")]
    rows: list[tuple[Any, ...]] = []
    try:
        for statement in parts:
            result = own.execute(connection, statement)
            if statement.lower().startswith(("select", "with")):
                rows = [tuple(row) for row in result.fetchall()]
        connection.commit()
    except BaseException as exc:
        _rollback_and_drop(own, connection, views)
        if interrupted_by_ctrl_c(exc):
            raise KeyboardInterrupt from exc  # DuckDB's Python client swallowed the Ctrl-C
        raise
    return rows


def _view_name(create: str) -> str:
    words = create.split()
    return words[[w.lower() for w in words].index("view") + 1]


def run_statements(connection: Any, sql: str, dialect: str) -> int:
    """Run a rendered query, fetch every row, and return how many there were."""
    return len(answer(connection, sql, dialect))


def _rollback_and_drop(own: Dialect, connection: Any, views: list[str]) -> None:
    """After a failure: end the transaction (DuckDB has none open in autocommit and says
    so), then drop what the query created; a dead connection is left to the caller."""
    with contextlib.suppress(Exception):
        connection.rollback()
    with contextlib.suppress(Exception):
        for view in views:
            own.execute(connection, f"drop view if exists {view}")
        connection.commit()
