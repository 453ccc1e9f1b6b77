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

PostgreSQL: PL/pgSQL functions called by SELECT (prepared once, run through libpq).
MariaDB/MySQL: stored procedures called by CALL, ending with one result row.
SQLite has no stored routines: its sessions run the client-side statements (sql.py).
"""

from __future__ import annotations

DIALECTS = ("postgres", "mysql")


def read_name(table: str) -> str:
    return f"{table}_read"


def update_name(table: str) -> str:
    return f"{table}_update"


def _postgres(table: str) -> list[str]:
    read, update = read_name(table), update_name(table)
    return [
        f"""CREATE OR REPLACE FUNCTION {read}(n integer, nrows integer) RETURNS integer
LANGUAGE plpgsql AS $body$
DECLARE
    k integer;
    v integer;
    hits integer := 0;
BEGIN
    FOR i IN 1..n LOOP
        k := 1 + floor(random() * nrows)::integer;
        SELECT version INTO v FROM {table} WHERE id = k;
        IF FOUND THEN
            hits := hits + 1;
        END IF;
    END LOOP;
    RETURN hits;
END
$body$""",
        f"""CREATE OR REPLACE FUNCTION {update}(n integer, nrows integer) RETURNS integer
LANGUAGE plpgsql AS $body$
DECLARE
    top double precision := 1.0;
    k integer;
    hits integer := 0;
BEGIN
    FOR j IN REVERSE n..1 LOOP
        top := top * power(random(), 1.0 / j);
        k := least(nrows, 1 + floor(top * nrows)::integer);
        UPDATE {table} SET version = version + 1 WHERE id = k;
        IF FOUND THEN
            hits := hits + 1;
        END IF;
    END LOOP;
    RETURN hits;
END
$body$""",
    ]


def _mysql(table: str) -> list[str]:
    read, update = read_name(table), update_name(table)
    return [
        f"DROP PROCEDURE IF EXISTS {read}",
        f"""CREATE PROCEDURE {read}(p_n INT, p_rows INT)
BEGIN
    DECLARE i INT DEFAULT 0;
    DECLARE hits INT DEFAULT 0;
    DECLARE found_row INT DEFAULT 1;
    DECLARE v INT;
    DECLARE k INT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET found_row = 0;
    WHILE i < p_n DO
        SET k = 1 + FLOOR(RAND() * p_rows);
        SET found_row = 1;
        SELECT version INTO v FROM {table} WHERE id = k;
        SET hits = hits + found_row;
        SET i = i + 1;
    END WHILE;
    SELECT hits;
END""",
        f"DROP PROCEDURE IF EXISTS {update}",
        f"""CREATE PROCEDURE {update}(p_n INT, p_rows INT)
BEGIN
    DECLARE j INT DEFAULT p_n;
    DECLARE hits INT DEFAULT 0;
    DECLARE top DOUBLE DEFAULT 1.0;
    DECLARE k INT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    START TRANSACTION;
    WHILE j >= 1 DO
        SET top = top * POW(RAND(), 1.0 / j);
        SET k = LEAST(p_rows, 1 + FLOOR(top * p_rows));
        UPDATE {table} SET version = version + 1 WHERE id = k;
        SET hits = hits + ROW_COUNT();
        SET j = j - 1;
    END WHILE;
    COMMIT;
    SELECT hits;
END""",
    ]


def ddl(dialect: str, table: str) -> list[str]:
    """The statements that make user table `table`'s two routines (none on SQLite)."""
    if dialect == "postgres":
        return _postgres(table)
    if dialect == "mysql":
        return _mysql(table)
    return []


def calls(dialect: str, table: str) -> dict[str, str]:
    """transaction -> the statement that calls its routine; parameters (n, rows)."""
    if dialect == "postgres":
        return {
            "read": f"SELECT {read_name(table)}(%s, %s)",
            "update": f"SELECT {update_name(table)}(%s, %s)",
        }
    return {
        "read": f"CALL {read_name(table)}(%s, %s)",
        "update": f"CALL {update_name(table)}(%s, %s)",
    }


def seed_statement(dialect: str, value: float) -> tuple[str, tuple]:
    """Seed the server's generator for this session from a number in [0, 1): PostgreSQL's
    setseed(); MariaDB's session generator through rand_seed1/rand_seed2 (RAND(N) would
    seed only its own statement's)."""
    if dialect == "postgres":
        return "SELECT setseed(%s)", (2.0 * value - 1.0,)
    top = 0x3FFFFFFE  # MariaDB's generator keeps its seeds below 2^30
    return (
        "SET SESSION rand_seed1 = %s, rand_seed2 = %s",
        (1 + int(value * top), 1 + int((value * 7919.0) % 1.0 * top)),
    )
