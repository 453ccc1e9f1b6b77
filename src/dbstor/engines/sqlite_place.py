"""SQLite placement: one database file per role that [databases] place names, on that
role's path, attached to every connection as schema `place_<role>`. After the load a named
table is recreated there from its own CREATE text (sqlite_master keeps it without a schema
name), filled, its indexes rebuilt beside it, and the original dropped, so the workloads'
unqualified names find it (SQLite looks in main, then in the attached schemas in order).
An index lives in its table's schema: a pattern naming only indexes is refused
(engines/place.py). The file the table left is vacuumed so that sizes on disk agree."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.engines.place import assign, check_kinds, say_moves

_CREATE = re.compile(r"^CREATE\s+(UNIQUE\s+)?(TABLE|INDEX)\s+", re.IGNORECASE)


def place_schema(role: str) -> str:
    return f"place_{role}"


def place_files(settings: Any, instance: int) -> dict[str, Path]:
    """role -> the database file for the objects placed on it (data excluded: main)."""
    roles = sorted(set(settings.place.values()) - {"data"})
    return {
        role: Path(settings.paths[role][0]) / f"dbstor-sqlite-{instance}-{role}.db"
        for role in roles
        if settings.paths.get(role)
    }


def in_schema(sql: str, schema: str) -> str:
    """CREATE [UNIQUE] TABLE|INDEX name ... -> the same in `schema`."""
    match = _CREATE.match(sql)
    if match is None:
        raise ValueError(f"unexpected CREATE text: {sql[:60]!r}")
    return f"{match.group(0)}{schema}.{sql[match.end() :]}"


def schemas(conn: sqlite3.Connection) -> list[str]:
    return [row[1] for row in conn.execute("PRAGMA database_list") if row[1] != "temp"]


def objects_by_schema(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """name -> (kind, schema) of every table and index (SQLite's own left out)."""
    out: dict[str, tuple[str, str]] = {}
    for schema in schemas(conn):
        rows = conn.execute(
            f"SELECT name, type FROM {schema}.sqlite_master WHERE type IN ('table', 'index') "
            "AND name NOT LIKE 'sqlite_%'"
        )
        out.update((str(name), (str(kind), schema)) for name, kind in rows)
    return out


def move_table(conn: sqlite3.Connection, name: str, source: str, target: str) -> None:
    """Recreate table `name` of schema `source` in `target` with its rows and indexes."""
    (create,) = conn.execute(
        f"SELECT sql FROM {source}.sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    indexes = [
        row[0]
        for row in conn.execute(
            f"SELECT sql FROM {source}.sqlite_master WHERE type = 'index' AND tbl_name = ? "
            "AND sql IS NOT NULL",
            (name,),
        )
    ]
    conn.execute("BEGIN")
    conn.execute(in_schema(create, target))
    conn.execute(f"INSERT INTO {target}.{name} SELECT * FROM {source}.{name}")
    conn.execute(f"DROP TABLE {source}.{name}")
    for sql in indexes:
        conn.execute(in_schema(sql, target))
    conn.commit()


def place(engine: Any, database: str, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Move the named tables into their role's file; return where every object is."""
    conn = engine.connect()
    try:
        found = objects_by_schema(conn)
        objects = {name: kind for name, (kind, _) in found.items()}
        chosen = assign(engine.settings.place, objects, database)
        check_kinds(engine, engine.settings.place, objects)
        moves = {n: r for n, r in chosen.items() if found[n][0] == "table" and r != "data"}
        say_moves(say, moves, " (tables with their indexes)")
        left = set()
        for name, role in moves.items():
            source = found[name][1]
            move_table(conn, name, source, place_schema(role))
            left.add(source)
        conn.isolation_level = None  # VACUUM and ANALYZE outside a transaction
        for schema in sorted(left):
            conn.execute(f"VACUUM {schema}")
        for role in set(chosen.values()) - {"data"}:
            conn.execute(f"ANALYZE {place_schema(role)}")
        for schema in schemas(conn):
            conn.execute(f"PRAGMA {schema}.wal_checkpoint(TRUNCATE)")
        return where(conn, engine, chosen)
    finally:
        conn.close()


def where(conn: sqlite3.Connection, engine: Any, chosen: dict[str, str]) -> list[dict[str, Any]]:
    """Every table and index with its file, role and size (dbstat; None without it)."""
    files = {row[1]: row[2] for row in conn.execute("PRAGMA database_list")}
    roles = {place_schema(role): role for role in engine.place_files}
    out = []
    for name, (kind, schema) in sorted(objects_by_schema(conn).items()):
        try:
            row = conn.execute(
                "SELECT SUM(pgsize) FROM dbstat(?) WHERE name = ?", (schema, name)
            ).fetchone()
            size = int(row[0]) if row and row[0] is not None else None
        except sqlite3.OperationalError:
            size = None  # this SQLite was built without the dbstat table
        out.append(
            {
                "object": name,
                "kind": kind,
                "role": roles.get(schema, "data"),
                "placed": name in chosen,
                "path": str(Path(files[schema]).parent) if files.get(schema) else None,
                "file": files.get(schema),
                "size_bytes": size,
            }
        )
    return out
