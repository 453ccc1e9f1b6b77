"""The blocks workload on SQLite: 8K pages, a 5,120-byte pad (each row fills more than
half a table leaf: one row per page; the id is the rowid), filled on the loading
connection by a pad function it registers; no stored routines (the client-side
statements, kept prepared by the driver's statement cache)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Geometry


CHUNK_ROWS = 10_000
PAGE_SIZE_QUERY = None  # 8K, as dbstor creates the files
ANALYZE_IN_AUTOCOMMIT = False
SERVER_LOOP = False
SUBMITS = False  # its own statements send a call and read its reply apart (multiplexed users)


def geometry(page_size: int | None, hash_hex: int) -> tuple[int, int, int | None]:
    """(pad bytes, page bytes, fillfactor) given the page size and a hash's hex digits."""
    return 40 * hash_hex, 8192, None  # 5,120 bytes: one row per 8K page


def create_table(shape: Geometry, name: str, prefix: str = "", suffix: str = "") -> str:
    return (
        f"CREATE TABLE {prefix}{name} (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,"
        f" pad TEXT NOT NULL){suffix}"
    )


def add_primary_key(name: str, suffix: str = "") -> str | None:
    return None  # the rowid


def fill(shape: Geometry, name: str, repeats: int, pad_function: str) -> str:
    """INSERT ... SELECT of rows first..last; parameters (first, last, seed as text)."""
    return (
        f"INSERT INTO {name} (id, version, pad) WITH RECURSIVE s (n) AS (SELECT ?"
        " UNION ALL SELECT n + 1 FROM s WHERE n < ?)"
        f" SELECT n, 0, {pad_function}(?, n, {shape.pad}) FROM s"
    )


def fill_params(seed: int, first: int, last: int) -> tuple[object, ...]:
    return (first, last, str(seed))


def analyze(name: str) -> str:
    return f"ANALYZE {name}"


def table_bytes(conn: Any, names: list[str]) -> int | None:
    """The pages in use in the database files (the tables are nearly all of them)."""
    total = 0
    for name in [row[1] for row in conn.execute("PRAGMA database_list") if row[1] != "temp"]:
        pages = conn.execute(f"PRAGMA {name}.page_count").fetchone()[0]
        free = conn.execute(f"PRAGMA {name}.freelist_count").fetchone()[0]
        size = conn.execute(f"PRAGMA {name}.page_size").fetchone()[0]
        total += (pages - free) * size
    return total


def prepared(connection: Any, table: str, batch: int, read_sql: str, update_sql: str) -> None:
    return None  # the driver's statement cache: a cursor


def routines(table: str, read: str, update: str) -> list[str]:
    return []  # no stored routines


def server_loop(connection: Any, calls: dict[str, str], batch: int, rows: int, seed: float) -> None:
    return None
