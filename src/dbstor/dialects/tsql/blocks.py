"""The blocks workload in T-SQL (SQL Server): 8K pages, a 4,096-byte pad (rows over half
a page: one row alone in its page, as SLOB keeps one row per block), the clustered key
made with the table, fills from a recursive CTE; the visit loop as two stored procedures
called by EXEC, the session's RAND() seeded once (RAND(seed) seeds the connection's
generator)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dbstor.dialects.procedures import BlocksLoop

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Geometry

PAGE_BYTES = 8192  # SQL Server's page, always
PAD_BYTES = 4096  # more than half the 8,060 bytes a page holds for rows: one row a page
CHUNK_ROWS = 20_000
PAGE_SIZE_QUERY = "SELECT 8192"
ANALYZE_IN_AUTOCOMMIT = False
SERVER_LOOP = True
SUBMITS = False  # its own statements send a call and read its reply apart (multiplexed users)
SEED_RANGE = 2_147_483_647  # RAND(seed) takes an int


def geometry(page_size: int | None, hash_hex: int) -> tuple[int, int, int | None]:
    """(pad bytes, page bytes, fillfactor) given the page size and a hash's hex digits."""
    return PAD_BYTES // hash_hex * hash_hex, page_size or PAGE_BYTES, None


def create_table(shape: Geometry, name: str, prefix: str = "", suffix: str = "") -> str:
    return (
        f"CREATE TABLE {prefix}{name} (id INT NOT NULL, version INT NOT NULL,"
        f" pad VARCHAR({shape.pad}) NOT NULL, CONSTRAINT {name}_pkey PRIMARY KEY CLUSTERED (id))"
        f"{suffix}"
    )


def add_primary_key(name: str, suffix: str = "") -> str | None:
    return None  # made with the table


def fill(shape: Geometry, name: str, repeats: int, pad_function: str) -> str:
    """INSERT ... SELECT of rows first..last; parameters (first, last, seed as text)."""
    return (
        "WITH s (n) AS (SELECT CAST(%s AS INT) UNION ALL SELECT n + 1 FROM s WHERE n < %s)"
        f" INSERT INTO {name} (id, version, pad) SELECT n, 0, REPLICATE(LOWER(CONVERT("
        f"VARCHAR(128), HASHBYTES('SHA2_512', CONCAT(%s, ':', n)), 2)), {repeats}) FROM s"
        " OPTION (MAXRECURSION 0)"
    )


def fill_params(seed: int, first: int, last: int) -> tuple[object, ...]:
    return (first, last, str(seed))


def analyze(name: str) -> str:
    return f"UPDATE STATISTICS {name} WITH FULLSCAN"


def table_bytes(conn: Any, names: list[str]) -> int | None:
    """Pages used by the tables' clustered indexes (their rows), in bytes."""
    cur = conn.cursor()
    marks = ", ".join(["OBJECT_ID(%s)"] * len(names))
    cur.execute(
        "SELECT SUM(used_page_count) * 8192 FROM sys.dm_db_partition_stats"
        f" WHERE object_id IN ({marks}) AND index_id IN (0, 1)",
        tuple(names),
    )
    value = cur.fetchone()[0]
    conn.commit()
    return int(value) if value is not None else None


def prepared(connection: Any, table: str, batch: int, read_sql: str, update_sql: str) -> None:
    return None  # pymssql prepares nothing: a cursor


# --- the server-side visit loop -----------------------------------------------------------


def routines(table: str, read: str, update: str) -> list[str]:
    """The two stored procedures of user table `table` (called by EXEC)."""
    return [
        f"""CREATE OR ALTER PROCEDURE {read} @n INT, @nrows INT
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @i INT = 0;
    DECLARE @hits INT = 0;
    DECLARE @k INT, @v INT;
    WHILE @i < @n
    BEGIN
        SET @k = 1 + FLOOR(RAND() * @nrows);
        SET @v = NULL;
        SELECT @v = version FROM {table} WHERE id = @k;
        IF @v IS NOT NULL BEGIN SET @hits = @hits + 1; END;
        SET @i = @i + 1;
    END;
    SELECT @hits;
END""",
        f"""CREATE OR ALTER PROCEDURE {update} @n INT, @nrows INT
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @j INT = @n;
    DECLARE @hits INT = 0;
    DECLARE @top FLOAT = 1.0;
    DECLARE @k INT;
    BEGIN TRANSACTION;
    WHILE @j >= 1
    BEGIN
        SET @top = @top * POWER(RAND(), 1.0 / @j);
        SET @k = 1 + FLOOR(@top * @nrows);
        IF @k > @nrows BEGIN SET @k = @nrows; END;
        UPDATE {table} SET version = version + 1 WHERE id = @k;
        SET @hits = @hits + @@ROWCOUNT;
        SET @j = @j - 1;
    END;
    COMMIT TRANSACTION;
    SELECT @hits;
END""",
    ]


def calls(read: str, update: str) -> dict[str, str]:
    """transaction -> the statement that calls its routine; parameters (n, rows)."""
    return {"read": f"EXEC {read} %s, %s", "update": f"EXEC {update} %s, %s"}


def seed_statement(value: float) -> tuple[str, tuple]:
    """Seed the connection's generator from a number in [0, 1): RAND(seed) once."""
    return "SELECT RAND(%s)", (1 + int(value * (SEED_RANGE - 1)),)


class ServerLoop(BlocksLoop):
    """The table's two procedures through one cursor; called with (batch, rows)."""

    def seed(self, text: str, params: tuple) -> None:
        super().seed(text, params)
        self.cur.fetchall()  # RAND's row


def server_loop(
    connection: Any, calls: dict[str, str], batch: int, rows: int, seed: float
) -> ServerLoop:
    return ServerLoop(connection, calls, batch, rows, seed_statement(seed))
