"""The user tables, the row geometry that puts about one row in each 8K block, their DDL
and the set-based SQL that fills them.

Every user table is `user_<k>` (k = 1..users) with three columns: `id` (32-bit integer, the
primary key, 1..rows), `version` (integer, 0 when built, +1 at every update of the row)
and `pad` (ASCII text). The pad of row `id` under seed `s` is the 128 hex digits of
SHA-512 of the text "s:id", repeated and cut to the dialect's width: the same on every
engine, computed by the engine itself (SQLite: a function this module registers).

Geometry, per dialect (each dialect's blocks part; docs/blocks.md has the measured cost):
  sqlite    8K pages; a 5,120-byte pad makes each row fill more than half a table leaf,
            so one row per page (the id is the rowid: the table is its primary key index).
  postgres  8K blocks; fillfactor 10 makes INSERT leave 90% of a block free, so a row of
            about 560 bytes is alone in its block, and updates stay in that block (HOT).
  mysql     InnoDB pages (16K by default); a record must fit in half a page, so the pad is
            7/16 of the page: two rows per 16K page, 8K of table per row.
"""

from __future__ import annotations

import hashlib
from types import ModuleType

from dbstor.dialects.shapes import Geometry

__all__ = ["Geometry"]  # below the dialects and the workloads

HASH_HEX = 128  # hex digits of one SHA-512
PAD_FUNCTION = "dbstor_blocks_pad"  # SQLite: registered on the loading connection


def table_name(k: int) -> str:
    """The table of user k (1-based)."""
    return f"user_{k}"


def pad_text(seed: int | str, row_id: int, width: int) -> str:
    """Row `row_id`'s pad under `seed`: SHA-512 hex of "seed:id", repeated, `width` long."""
    digest = hashlib.sha512(f"{seed}:{row_id}".encode()).hexdigest()
    return (digest * (width // HASH_HEX + 1))[:width]


def geometry(dialect: str, page_size: int | None = None) -> Geometry:
    """The layout for a dialect; `page_size` is InnoDB's (mysql), 8K elsewhere."""
    return Geometry(dialect, *_part(dialect).geometry(page_size, HASH_HEX))


def create_table(shape: Geometry, name: str, prefix: str = "", suffix: str = "") -> str:
    """CREATE TABLE; (prefix, suffix) come from engine.placement(). PostgreSQL's primary
    key is added after the fill (add_primary_key)."""
    return str(_part(shape.dialect).create_table(shape, name, prefix, suffix))


def add_primary_key(shape: Geometry, name: str, suffix: str = "") -> str | None:
    """The primary key where it is built after the fill (PostgreSQL), in the table's
    tablespace; None where the table made it."""
    return _part(shape.dialect).add_primary_key(name, suffix)


def fill(shape: Geometry, name: str) -> str:
    """INSERT ... SELECT of rows first..last, parameters as fill_params() gives them."""
    return str(_part(shape.dialect).fill(shape, name, shape.pad // HASH_HEX, PAD_FUNCTION))


def fill_params(dialect: str, seed: int, first: int, last: int) -> tuple[object, ...]:
    """The parameters of fill() in its placeholders' order."""
    return tuple(_part(dialect).fill_params(seed, first, last))


def chunk_rows(dialect: str) -> int:
    """Rows per fill statement (mysql: within the recursion limits of its CTEs)."""
    return int(_part(dialect).CHUNK_ROWS)


def analyze(dialect: str, name: str) -> str:
    """Optimizer statistics for one table (PostgreSQL: VACUUM too)."""
    return str(_part(dialect).analyze(name))


def _part(dialect: str) -> ModuleType:
    from dbstor.workloads.blocks.server import part  # server imports this module's names

    return part(dialect)
