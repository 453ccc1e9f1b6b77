"""Placement of single tables and indexes on a target role's path ([databases] place).

A study names objects by glob (`trade_history`, `i_trade_*`) and the role whose path holds
them (`fast`, like `data`, `log`, `temp`), as EMC h6080 moved its busiest table and its
nonclustered indexes to flash. The checks here run twice: before anything is created, on
the names a workload declares (so a bad pattern is one line and nothing exists), and
after the load, on the objects the engine really made. The moves themselves are each
engine's own SQL (postgres_place.py, mariadb_place.py).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dbstor.errors import UserError

SHOWN = 60  # object names listed in a message before "..."


def _listing(objects: Mapping[str, str]) -> str:
    names = sorted(objects)
    more = f", ... ({len(names) - SHOWN} more)" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def place_dirs(engine: Any, name: str) -> dict[str, Path]:
    """role -> a new directory `place-<role>` in a managed server's instance directory
    `name` on the role's first path, for each role place names other than data (where
    the database is anyway)."""
    roles = sorted(set(engine.settings.place.values()) - {"data"})
    dirs = {role: engine.role_subdir(role, name, f"place-{role}") for role in roles}
    return {role: where for role, where in dirs.items() if where is not None}


def matches(pattern: str, name: str) -> bool:
    """Whether an object name matches a place pattern (case-insensitive glob)."""
    return fnmatch.fnmatchcase(name.lower(), pattern.lower())


def assign(place: Mapping[str, str], objects: Mapping[str, str], database: str) -> dict[str, str]:
    """object name -> role for every object a pattern names (the first pattern naming an
    object wins); a pattern that names nothing raises UserError naming the objects that
    exist. `objects`: name -> kind (table | index)."""
    chosen: dict[str, str] = {}
    for pattern, role in place.items():
        named = [name for name in objects if matches(pattern, name)]
        if not named:
            raise UserError(
                f"place: {pattern!r} names no table or index of the {database} database; "
                f"its objects: {_listing(objects)}"
            )
        for name in named:
            chosen.setdefault(name, role)
    return chosen


def say_moves(say: Any, moves: Mapping[str, str], how: str = "") -> None:
    """One progress line per role: how many objects go on its path, and which."""
    for role in sorted(set(moves.values())):
        names = [name for name, r in moves.items() if r == role]
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        say(
            f"  placing {len(names)} object{'s' * (len(names) != 1)} on the {role} path{how}: {shown}"
        )


def check_place(
    engine: Any,
    place: Mapping[str, str],
    roles: Mapping[str, list[Any]],
    objects: Mapping[str, str],
    database: str,
    external: bool,
    target: str,
) -> None:
    """Before anything exists: UserError (one line) when the engine cannot place objects,
    the target lacks a role named, a pattern names nothing the workload creates, or it
    names an index where the engine keeps indexes in their table's file. `engine` is the
    engine's class; `objects` the workload's declared names ({} when known only later)."""
    if not place:
        return
    if not engine.placeable:
        raise UserError(
            f"place: {engine.title} cannot put single tables or indexes on another path "
            f"({engine.place_limit}): drop place (--place), or use postgres or mariadb"
        )
    if external:
        raise UserError(
            "place: objects are placed only in a database dbstor creates (a managed engine), "
            "not on an external server (--dsn): drop place or the DSN"
        )
    for pattern, role in place.items():
        if role != "data" and not roles.get(role):
            raise UserError(
                f"place: {pattern} = {role!r} but target {target} has no {role} path: add "
                f'{role} = "/mnt/{role}" to the target (--target {role}=/mnt/{role})'
            )
    if objects:
        assign(place, objects, database)
        check_kinds(engine, place, objects)


def check_kinds(engine: Any, place: Mapping[str, str], objects: Mapping[str, str]) -> None:
    """UserError when a pattern names only objects of a kind the engine cannot move apart
    (MariaDB's and SQLite's indexes live with their table; a pattern naming a table and
    its indexes moves the table, indexes with it)."""
    for pattern in place:
        kinds = {objects[name] for name in objects if matches(pattern, name)}
        if kinds and not kinds & set(engine.placeable):
            raise UserError(
                f"place: {pattern!r} names only indexes, and {engine.title} keeps each index "
                "in its table's file: place the table, or use postgres to put indexes on "
                "their own path"
            )
