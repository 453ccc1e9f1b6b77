"""The user tables, the row geometry that puts about one row in each 8K block, their DDL
and the set-based SQL that fills them.

Every user table is `user_<k>` (k = 1..users) with three columns: `id` (32-bit integer, the
primary key, 1..rows), `version` (integer, 0 when built, +1 at every update of the row)
and `pad` (ASCII text). The pad of row `id` under seed `s` is the 128 hex digits of
SHA-512 of the text "s:id", repeated and cut to the dialect's width: the same on every
engine, computed by the engine itself (SQLite: a function this module registers).

Geometry, per dialect (docs/blocks.md has the measured cost):
  sqlite    8K pages; a 5,120-byte pad makes each row fill more than half a table leaf,
            so one row per page (the id is the rowid: the table is its primary key index).
  postgres  8K blocks; fillfactor 10 makes INSERT leave 90% of a block free, so a row of
            about 560 bytes is alone in its block, and updates stay in that block (HOT).
  mysql     InnoDB pages (16K by default); a record must fit in half a page, so the pad is
            7/16 of the page: two rows per 16K page, 8K of table per row.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

HASH_HEX = 128  # hex digits of one SHA-512
SQLITE_PAD = 40 * HASH_HEX  # 5,120 bytes: one row per 8K page
POSTGRES_PAD = 4 * HASH_HEX  # 512 bytes, with fillfactor 10: one row per 8K block
POSTGRES_FILLFACTOR = 10
MYSQL_MAX_PAD = 112 * HASH_HEX  # 14,336: InnoDB's biggest in-page record on 32K/64K pages
PAD_FUNCTION = "dbstor_blocks_pad"  # SQLite: registered on the loading connection


def table_name(k: int) -> str:
    """The table of user k (1-based)."""
    return f"user_{k}"


def pad_text(seed: int | str, row_id: int, width: int) -> str:
    """Row `row_id`'s pad under `seed`: SHA-512 hex of "seed:id", repeated, `width` long."""
    digest = hashlib.sha512(f"{seed}:{row_id}".encode()).hexdigest()
    return (digest * (width // HASH_HEX + 1))[:width]


def mysql_pad(page_size: int) -> int:
    """7/16 of an InnoDB page, in whole hashes: two records per page, none off-page."""
    return min(MYSQL_MAX_PAD, page_size * 7 // 16 // HASH_HEX * HASH_HEX)


@dataclass(frozen=True)
class Geometry:
    """How rows are laid out on one engine."""

    dialect: str
    pad: int  # pad width in bytes
    page_size: int  # the engine's page or block size
    fillfactor: int | None = None  # PostgreSQL only

    @property
    def row_bytes(self) -> int:
        """A row's column bytes: two 4-byte integers and the pad."""
        return 8 + self.pad

    def describe(self) -> dict[str, int | None]:
        return {"pad_bytes": self.pad, "page_bytes": self.page_size, "fillfactor": self.fillfactor}


def geometry(dialect: str, page_size: int | None = None) -> Geometry:
    """The layout for a dialect; `page_size` is InnoDB's (mysql), 8K elsewhere."""
    if dialect == "sqlite":
        return Geometry("sqlite", SQLITE_PAD, 8192)
    if dialect == "postgres":
        return Geometry("postgres", POSTGRES_PAD, page_size or 8192, POSTGRES_FILLFACTOR)
    if dialect == "mysql":
        size = page_size or 16384
        return Geometry("mysql", mysql_pad(size), size)
    raise ValueError(f"unknown dialect {dialect!r}")


def create_table(shape: Geometry, name: str, prefix: str = "", suffix: str = "") -> str:
    """CREATE TABLE; (prefix, suffix) come from engine.placement(). PostgreSQL's primary
    key is added after the fill (add_primary_key)."""
    if shape.dialect == "sqlite":
        return (
            f"CREATE TABLE {prefix}{name} (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,"
            f" pad TEXT NOT NULL){suffix}"
        )
    if shape.dialect == "postgres":
        return (
            f"CREATE TABLE {prefix}{name} (id integer NOT NULL, version integer NOT NULL,"
            f" pad text NOT NULL) WITH (fillfactor = {shape.fillfactor}){suffix}"
        )
    return (
        f"CREATE TABLE {prefix}{name} (id INT NOT NULL, version INT NOT NULL,"
        f" pad VARCHAR({shape.pad}) CHARACTER SET ascii NOT NULL, PRIMARY KEY (id))"
        f" ENGINE=InnoDB ROW_FORMAT=DYNAMIC{suffix}"
    )


def add_primary_key(shape: Geometry, name: str, suffix: str = "") -> str | None:
    """PostgreSQL's primary key, built after the fill in the table's tablespace."""
    if shape.dialect != "postgres":
        return None
    using = f" USING INDEX{suffix}" if suffix else ""
    return f"ALTER TABLE {name} ADD CONSTRAINT {name}_pkey PRIMARY KEY (id){using}"


def fill(shape: Geometry, name: str) -> str:
    """INSERT ... SELECT of rows first..last; parameters (seed as text, first, last).
    MariaDB's recursive CTEs stop at 1,000 iterations (max_recursive_iterations) and
    MySQL's at cte_max_recursion_depth = 1,000, so mysql chunks stay within 1,000 rows."""
    repeats = shape.pad // HASH_HEX
    if shape.dialect == "postgres":
        return (
            f"INSERT INTO {name} (id, version, pad) SELECT g, 0, repeat(encode(sha512("
            f"convert_to(%s::text || ':' || g, 'UTF8')), 'hex'), {repeats})"
            " FROM generate_series(%s::int, %s::int) AS g"
        )
    if shape.dialect == "mysql":
        return (
            f"INSERT INTO {name} (id, version, pad) WITH RECURSIVE s (n) AS (SELECT %s"
            " UNION ALL SELECT n + 1 FROM s WHERE n < %s)"
            f" SELECT n, 0, REPEAT(SHA2(CONCAT(%s, ':', n), 512), {repeats}) FROM s"
        )
    return (
        f"INSERT INTO {name} (id, version, pad) WITH RECURSIVE s (n) AS (SELECT ?"
        " UNION ALL SELECT n + 1 FROM s WHERE n < ?)"
        f" SELECT n, 0, {PAD_FUNCTION}(?, n, {shape.pad}) FROM s"
    )


def fill_params(dialect: str, seed: int, first: int, last: int) -> tuple[object, ...]:
    """The parameters of fill() in its placeholders' order."""
    if dialect == "postgres":
        return (str(seed), first, last)
    return (first, last, str(seed))


def chunk_rows(dialect: str) -> int:
    """Rows per fill statement (mysql: within the recursion limits, see fill())."""
    return {"postgres": 20_000, "mysql": 1_000}.get(dialect, 10_000)


def analyze(dialect: str, name: str) -> str:
    """Optimizer statistics for one table (PostgreSQL: VACUUM too, so that the built rows'
    hint bits and visibility map are set before the first point, not by its reads)."""
    if dialect == "postgres":
        return f"VACUUM (ANALYZE) {name}"
    if dialect == "mysql":
        return f"ANALYZE TABLE {name}"
    return f"ANALYZE {name}"
