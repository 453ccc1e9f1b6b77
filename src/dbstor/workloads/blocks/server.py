"""The block-visit loop run inside the database: one call visits `batch` random rows.

SLOB runs its work loop inside Oracle (PL/SQL), so the client costs next to nothing and the
database's CPU goes to the block visits. blocks does the same where the engine has stored
routines: per user table `user_k`, two routines made after the fill,

  user_k_read(n, rows)    n times: a key drawn uniformly from 1..rows, then
                          SELECT version FROM user_k WHERE id = key (one index lookup and
                          its row's block); returns how many of the n keys it found
  user_k_update(n, rows)  n keys in descending order (drawn as the order statistics of n
                          uniforms, largest first, so every session locks rows in one
                          order and two sessions sharing a table cannot deadlock), each
                          UPDATE user_k SET version = version + 1 WHERE id = key; returns
                          how many it changed

One call is one statement on an autocommit connection: one round trip and one
transaction (an update call commits its n row changes together, as the client path's
`IN (...)` statement does). The key is computed into a variable before its statement, so
the statement is a plain index lookup (a volatile random() in the WHERE clause would
forbid the index). Keys come from the server's own generator, seeded per session from the
session's seed (PostgreSQL setseed; MariaDB the session's rand_seed1 and rand_seed2), so
a session's keys repeat from run to run on one engine version.

Each dialect's routines, their calls and the seeding are its blocks part
(dbstor.dialects.<dialect>.blocks): PostgreSQL PL/pgSQL functions called by SELECT
(prepared once, run through libpq), MariaDB/MySQL stored procedures called by CALL, ending
with one result row. SQLite has no stored routines: its sessions run the client-side
statements (sql.py).
"""

from __future__ import annotations

from types import ModuleType

from dbstor.dialects import registry


def part(dialect: str) -> ModuleType:
    """The dialect's blocks SQL (ValueError for a dialect blocks does not run on)."""
    found = registry.for_workload(dialect, "blocks").part("blocks")
    if found is None:
        raise ValueError(f"the blocks workload has no SQL for dialect {dialect!r}")
    return found


def has_loop(dialect: str) -> bool:
    """Whether the dialect runs the visit loop inside the database (False for a dialect
    blocks does not run on)."""
    if dialect not in registry.running("blocks"):
        return False
    return bool(part(dialect).SERVER_LOOP)


def read_name(table: str) -> str:
    return f"{table}_read"


def update_name(table: str) -> str:
    return f"{table}_update"


def ddl(dialect: str, table: str) -> list[str]:
    """The statements that make user table `table`'s two routines (none on SQLite)."""
    return list(part(dialect).routines(table, read_name(table), update_name(table)))


def calls(dialect: str, table: str) -> dict[str, str]:
    """transaction -> the statement that calls its routine; parameters (n, rows)."""
    return dict(part(dialect).calls(read_name(table), update_name(table)))
