"""The blocks workload in MySQL's dialect (MariaDB): InnoDB pages (16K by default), a pad
of 7/16 of a page (two rows per page, none off-page), the key made with the table, fills
in chunks within the recursive CTEs' 1,000 iterations; the visit loop as two stored
procedures called by CALL. Calls and client-side statements go through calls.py: the
parameters written as literals by libmariadb, sent and read apart (multiplexed users)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dbstor.dialects.mysql.calls import Sender, first

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Geometry


MAX_PAD_HASHES = 112  # 14,336 bytes: InnoDB's biggest in-page record on 32K/64K pages
CHUNK_ROWS = 1_000  # MariaDB's max_recursive_iterations, MySQL's cte_max_recursion_depth
PAGE_SIZE_QUERY = "SELECT @@innodb_page_size"
ANALYZE_IN_AUTOCOMMIT = False
SERVER_LOOP = True
SUBMITS = True  # its own statements send a call and read its reply apart (calls.py)


def pad(page_size: int, hash_hex: int) -> int:
    """7/16 of an InnoDB page, in whole hashes: two records per page, none off-page."""
    return min(MAX_PAD_HASHES * hash_hex, page_size * 7 // 16 // hash_hex * hash_hex)


def geometry(page_size: int | None, hash_hex: int) -> tuple[int, int, int | None]:
    """(pad bytes, page bytes, fillfactor) given the page size and a hash's hex digits."""
    size = page_size or 16384
    return pad(size, hash_hex), size, None


def create_table(shape: Geometry, name: str, prefix: str = "", suffix: str = "") -> str:
    return (
        f"CREATE TABLE {prefix}{name} (id INT NOT NULL, version INT NOT NULL,"
        f" pad VARCHAR({shape.pad}) CHARACTER SET ascii NOT NULL, PRIMARY KEY (id))"
        f" ENGINE=InnoDB ROW_FORMAT=DYNAMIC{suffix}"
    )


def add_primary_key(name: str, suffix: str = "") -> str | None:
    return None  # made with the table


def fill(shape: Geometry, name: str, repeats: int, pad_function: str) -> str:
    """INSERT ... SELECT of rows first..last; parameters (first, last, seed as text)."""
    return (
        f"INSERT INTO {name} (id, version, pad) WITH RECURSIVE s (n) AS (SELECT %s"
        " UNION ALL SELECT n + 1 FROM s WHERE n < %s)"
        f" SELECT n, 0, REPEAT(SHA2(CONCAT(%s, ':', n), 512), {repeats}) FROM s"
    )


def fill_params(seed: int, first: int, last: int) -> tuple[object, ...]:
    return (first, last, str(seed))


def analyze(name: str) -> str:
    return f"ANALYZE TABLE {name}"


def table_bytes(conn: Any, names: list[str]) -> int | None:
    """DATA_LENGTH: pages reserved for the clustered index, after ANALYZE TABLE."""
    cur = conn.cursor()
    marks = ", ".join(["%s"] * len(names))
    cur.execute(
        "SELECT SUM(DATA_LENGTH) FROM information_schema.TABLES"
        f" WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ({marks})",
        tuple(names),
    )
    value = cur.fetchone()[0]
    conn.commit()
    return int(value) if value is not None else None


class Statements:
    """The two client-side statements (the keys as parameters), sent and read apart."""

    can_submit = True
    loop_calls = None  # no calls bound for the loop thread (postgres's ServerLoop binds them)

    def __init__(self, connection: Any, read_sql: str, update_sql: str):
        self.sender = Sender(connection, {"read": read_sql, "update": update_sql})

    def read(self, keys: Sequence[int]) -> int:
        return int(first(self.sender.run("read", keys)))

    def update(self, keys: Sequence[int]) -> int:
        self.sender.run("update", keys)
        return int(self.sender.affected)

    def send(self, transaction: str, keys: Sequence[int]) -> int:
        return self.sender.send(transaction, keys)

    def receive(self, transaction: str) -> int:
        row = self.sender.receive()
        return int(first(row)) if transaction == "read" else int(self.sender.affected)

    def close(self) -> None:
        pass


def prepared(connection: Any, table: str, batch: int, read_sql: str, update_sql: str) -> Statements:
    return Statements(connection, read_sql, update_sql)


# --- the server-side visit loop -----------------------------------------------------------


def routines(table: str, read: str, update: str) -> list[str]:
    """The two stored procedures of user table `table` (called by CALL)."""
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


def calls(read: str, update: str) -> dict[str, str]:
    """transaction -> the statement that calls its routine; parameters (n, rows)."""
    return {
        "read": f"CALL {read}(%s, %s)",
        "update": f"CALL {update}(%s, %s)",
    }


def seed_statement(value: float) -> tuple[str, tuple]:
    """Seed the session's generator through rand_seed1/rand_seed2 (RAND(N) would seed
    only its own statement's) from a number in [0, 1)."""
    top = 0x3FFFFFFE  # MariaDB's generator keeps its seeds below 2^30
    return (
        "SET SESSION rand_seed1 = %s, rand_seed2 = %s",
        (1 + int(value * top), 1 + int((value * 7919.0) % 1.0 * top)),
    )


class ServerLoop:
    """The table's two procedures, called with (batch, rows), the session's generator
    seeded once first; each call answers the rows it visited."""

    can_submit = True
    loop_calls = None  # no calls bound for the loop thread (postgres's ServerLoop binds them)

    def __init__(self, connection: Any, calls: dict[str, str], batch: int, rows: int, seed: float):
        text, params = seed_statement(seed)
        self.sender = Sender(connection, {**calls, "seed": text})
        self.sender.run("seed", params)
        self.params = (batch, rows)

    def call(self, transaction: str) -> int:
        return int(first(self.sender.run(transaction, self.params)))

    def send(self, transaction: str, keys: Sequence[int]) -> int:
        return self.sender.send(transaction, self.params)

    def receive(self, transaction: str) -> int:
        return int(first(self.sender.receive()))

    def close(self) -> None:
        pass


def server_loop(
    connection: Any, calls: dict[str, str], batch: int, rows: int, seed: float
) -> ServerLoop:
    return ServerLoop(connection, calls, batch, rows, seed)
