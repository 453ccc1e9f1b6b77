"""MariaDB/MySQL placement: InnoDB keeps a table and all its indexes in one file
(file-per-table), which CREATE TABLE ... DATA DIRECTORY puts on another path. ALTER TABLE
ignores DATA DIRECTORY (warning 1618), so a named table is rebuilt after the load: a copy
created in the role's directory, filled, swapped in by RENAME TABLE, the original dropped.
Indexes cannot be placed apart (engines/place.py refuses a pattern naming only indexes)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.engines.base import MARKER_TABLE
from dbstor.engines.place import assign, check_kinds, say_moves

OBJECTS_SQL = (
    "SELECT TABLE_NAME, 'table' FROM information_schema.TABLES "
    "WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME <> %(marker)s "
    "UNION SELECT DISTINCT INDEX_NAME, 'index' FROM information_schema.STATISTICS "
    "WHERE TABLE_SCHEMA = %(db)s AND INDEX_NAME <> 'PRIMARY'"
)
_DATA_DIRECTORY = re.compile(r"\s*DATA DIRECTORY='[^']*'", re.IGNORECASE)


def _objects(engine: Any) -> dict[str, str]:
    rows = engine.query(OBJECTS_SQL, {"db": engine.database, "marker": MARKER_TABLE})
    out: dict[str, str] = {}
    for name, kind in rows:
        out.setdefault(str(name), str(kind))  # a table's name wins over an index's
    return out


def rebuild_sql(create: str, table: str, directory: Path) -> tuple[str, list[str]]:
    """(CREATE of the copy in `directory`, the statements that fill it and swap it in)
    from SHOW CREATE TABLE's text."""
    copy, old = f"{table}__dbstor_place", f"{table}__dbstor_old"
    head = f"CREATE TABLE `{table}`"
    if not create.startswith(head):
        raise ValueError(f"unexpected SHOW CREATE TABLE for {table}: {create[:60]!r}")
    body = _DATA_DIRECTORY.sub("", create[len(head) :])
    return f"CREATE TABLE `{copy}`{body} DATA DIRECTORY='{directory}'", [
        f"INSERT INTO `{copy}` SELECT * FROM `{table}`",
        f"RENAME TABLE `{table}` TO `{old}`, `{copy}` TO `{table}`",
        f"DROP TABLE `{old}`",
    ]


def place(engine: Any, database: str, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Rebuild each named table in its role's directory; return where every table is
    (object, kind, role, path, size_bytes of its .ibd file, indexes included)."""
    objects = _objects(engine)
    chosen = assign(engine.settings.place, objects, database)
    check_kinds(engine, engine.settings.place, objects)
    moving = {n: r for n, r in chosen.items() if objects[n] == "table" and r != "data"}
    say_moves(say, moving, " (each table copied there, then swapped in)")
    conn = engine.connect()
    try:
        with conn.cursor() as cur:
            for name, role in moving.items():
                cur.execute(f"SHOW CREATE TABLE `{name}`")
                create, rest = rebuild_sql(cur.fetchone()[1], name, engine.place_dirs[role])
                for statement in [create, *rest]:
                    cur.execute(statement)
                conn.commit()
    finally:
        conn.close()
    return where_tables(engine, objects, chosen)


def where_tables(
    engine: Any, objects: dict[str, str], chosen: dict[str, str]
) -> list[dict[str, Any]]:
    """Each table's .ibd file found under the engine's directories, by role."""
    homes = [(role, Path(d)) for role, dirs in engine.roles.items() for d in dirs]
    homes.append(("data", Path(engine.datadir)))
    out = []
    for name in sorted(n for n, kind in objects.items() if kind == "table"):
        for role, home in homes:
            file = home / engine.database / f"{name}.ibd"
            if file.exists():
                out.append(
                    {
                        "object": name,
                        "kind": "table",
                        "role": role,
                        "placed": name in chosen,
                        "path": str(home),
                        "file": str(file),
                        "size_bytes": os.stat(file).st_size,
                    }
                )
                break
    return out
