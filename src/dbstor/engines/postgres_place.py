"""PostgreSQL placement: a tablespace per role named by [databases] place, on that role's
path, and ALTER TABLE/INDEX ... SET TABLESPACE after the load (a table's rows and TOAST
move; its indexes stay unless a pattern names them). See engines/place.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.engines.place import assign, check_kinds, say_moves

OBJECTS_SQL = """
SELECT c.relname,
       CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END,
       coalesce(t.spcname, 'pg_default'),
       CASE c.relkind WHEN 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END,
       pg_relation_filepath(c.oid)
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE n.nspname = %(schema)s AND c.relkind IN ('r', 'i', 'p') AND c.relname <> 'dbstor_marker'
ORDER BY c.relname
"""
LOCATIONS_SQL = "SELECT spcname, pg_tablespace_location(oid) FROM pg_tablespace"


def space_name(role: str) -> str:
    return f"dbstor_place_{role}"


def create_spaces(conn: Any, dirs: dict[str, Path]) -> None:
    """CREATE TABLESPACE dbstor_place_<role> in each directory (the server account's)."""
    from psycopg import sql

    for role, where in dirs.items():
        conn.execute(
            sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(
                sql.Identifier(space_name(role)), sql.Literal(str(where))
            )
        )


def place(engine: Any, database: str, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Move the named objects onto their role's tablespace; return where every object of
    dbstor's schema is (object, kind, role, path, size_bytes). A pattern naming no object
    raises UserError naming those that exist."""
    from psycopg import sql

    objects = {row[0]: row[1] for row in engine.query(OBJECTS_SQL, {"schema": engine.schema})}
    chosen = assign(engine.settings.place, objects, database)
    check_kinds(engine, engine.settings.place, objects)
    moves = {name: role for name, role in chosen.items() if role != "data"}
    say_moves(say, moves)
    with engine.connect() as conn:  # commits at the end of the block
        for name, role in moves.items():
            kind = "INDEX" if objects[name] == "index" else "TABLE"
            conn.execute(
                sql.SQL("ALTER {} {} SET TABLESPACE {}").format(
                    sql.SQL(kind), sql.Identifier(name), sql.Identifier(space_name(role))
                )
            )
    return where_objects(engine, chosen)


def where_objects(engine: Any, chosen: dict[str, str]) -> list[dict[str, Any]]:
    """Every object of the schema with its tablespace's directory and role, and its size."""
    locations = {str(k): str(v) for k, v in engine.query(LOCATIONS_SQL)}
    roles = {space_name(role): role for role in ("data", "log", "temp", "fast")}
    out = []
    for name, kind, space, size, relpath in engine.query(OBJECTS_SQL, {"schema": engine.schema}):
        path = locations.get(space) or str(engine.datadir)
        role = roles.get(space) or ("temp" if space == "dbstor_temp" else "data")
        parts = str(relpath).split("/")  # pg_tblspc/<oid>/<version dir>/... or base/...
        file = Path(path, *parts[2:]) if parts[0] == "pg_tblspc" else Path(path, *parts)
        out.append(
            {
                "object": name,
                "kind": kind,
                "role": role,
                "placed": name in chosen,
                "path": path,
                "file": str(file),
                "size_bytes": int(size),
            }
        )
    return out
