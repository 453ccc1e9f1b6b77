"""The engines dbstor knows, by name; unknown names get a "did you mean"."""

from __future__ import annotations

import difflib
import importlib

from dbstor.engines.base import Availability, Engine
from dbstor.engines.planned import PLANNED
from dbstor.errors import UserError

# name -> "module:Class"; built-in engines register exactly as others would.
ENGINES: dict[str, str] = {
    "sqlite": "dbstor.engines.sqlite:SQLiteEngine",
    "postgres": "dbstor.engines.postgres:PostgresEngine",
    "mariadb": "dbstor.engines.mariadb:MariaDBEngine",
    "mysql": "dbstor.engines.mariadb:MySQLEngine",
    "duckdb": "dbstor.engines.duckdb:DuckDBEngine",
    "oracle": "dbstor.engines.oracle:OracleEngine",
    "sqlserver": "dbstor.engines.sqlserver:SqlServerEngine",
}
ALIASES = {"postgresql": "postgres", "pg": "postgres", "sqlite3": "sqlite", "mssql": "sqlserver"}


def engine_class(name: str) -> type[Engine]:
    """The engine class for a name; a planned or unknown name is one clear UserError."""
    key = ALIASES.get(name.lower(), name.lower())
    if key in ENGINES:
        module_name, class_name = ENGINES[key].split(":")
        return getattr(importlib.import_module(module_name), class_name)
    planned = {p.name: p for p in PLANNED}
    if key in planned:
        p = planned[key]
        raise UserError(
            f"engine {name!r} ({p.title}) is planned, not built yet; engines you can use: {', '.join(ENGINES)}"
        )
    hint = difflib.get_close_matches(key, [*ENGINES, *planned], n=1)
    extra = f" (did you mean {hint[0]!r}?)" if hint else ""
    raise UserError(
        f"unknown engine {name!r}{extra}; known engines: {', '.join([*ENGINES, *planned])}"
    )


def all_engines() -> list[tuple[str, str, str, Availability]]:
    """(name, title, dialect, availability) for every engine, built or planned."""
    rows = []
    for name in ENGINES:
        try:
            cls = engine_class(name)
        except ImportError as exc:
            rows.append(
                (name, name, "?", Availability(False, f"its module failed to import: {exc}"))
            )
            continue
        rows.append((name, cls.title, cls.dialect, cls.availability()))
    for p in PLANNED:
        rows.append(
            (
                p.name,
                p.title,
                p.dialect,
                Availability(False, f"planned: needs the {p.driver} driver", planned=True),
            )
        )
    return rows
