"""The blocks workload on PostgreSQL: 8K blocks, a 512-byte pad with fillfactor 10 (one
row alone in its block, updates stay there: HOT), the key built after the fill, VACUUM
(ANALYZE) before the first point; the statements prepared once and run through libpq;
the visit loop as two PL/pgSQL functions called by SELECT."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Geometry

from dbstor.engines.pg_prepared import PreparedStatements, encode

FILLFACTOR = 10
CHUNK_ROWS = 20_000
PAGE_SIZE_QUERY = "SELECT current_setting('block_size')::int"
ANALYZE_IN_AUTOCOMMIT = True  # VACUUM runs outside a transaction
SERVER_LOOP = True
SUBMITS = True  # its own statements send a call and read its reply apart (libpq)
INT4_OID = 23  # the type of the key parameters (int4)


def geometry(page_size: int | None, hash_hex: int) -> tuple[int, int, int | None]:
    """(pad bytes, page bytes, fillfactor) given the page size and a hash's hex digits."""
    return 4 * hash_hex, page_size or 8192, FILLFACTOR  # 512 bytes, fillfactor 10: alone


def create_table(shape: Geometry, name: str, prefix: str = "", suffix: str = "") -> str:
    """The key comes after the fill (add_primary_key)."""
    return (
        f"CREATE TABLE {prefix}{name} (id integer NOT NULL, version integer NOT NULL,"
        f" pad text NOT NULL) WITH (fillfactor = {shape.fillfactor}){suffix}"
    )


def add_primary_key(name: str, suffix: str = "") -> str | None:
    """The primary key, built after the fill in the table's tablespace."""
    using = f" USING INDEX{suffix}" if suffix else ""
    return f"ALTER TABLE {name} ADD CONSTRAINT {name}_pkey PRIMARY KEY (id){using}"


def fill(shape: Geometry, name: str, repeats: int, pad_function: str) -> str:
    """INSERT ... SELECT of rows first..last; parameters (seed as text, first, last)."""
    return (
        f"INSERT INTO {name} (id, version, pad) SELECT g, 0, repeat(encode(sha512("
        f"convert_to(%s::text || ':' || g, 'UTF8')), 'hex'), {repeats})"
        " FROM generate_series(%s::int, %s::int) AS g"
    )


def fill_params(seed: int, first: int, last: int) -> tuple[object, ...]:
    return (str(seed), first, last)


def analyze(name: str) -> str:
    """VACUUM too, so that the built rows' hint bits and visibility map are set before
    the first point, not by its reads."""
    return f"VACUUM (ANALYZE) {name}"


def table_bytes(conn: Any, names: list[str]) -> int | None:
    """The heaps' main forks (pg_relation_size)."""
    cur = conn.cursor()
    cur.execute("SELECT sum(pg_relation_size(t::regclass)) FROM unnest(%s::text[]) t", (names,))
    value = cur.fetchone()[0]
    conn.commit()
    return int(value) if value is not None else None


class Prepared:
    """The two client-side statements prepared on the connection's libpq handle."""

    can_submit = True
    loop_calls = None  # sent and read through send() and receive()

    def __init__(self, connection: Any, table: str, batch: int, read_sql: str, update_sql: str):
        types = [INT4_OID] * batch
        self.statements = PreparedStatements(
            connection, {"read": read_sql, "update": update_sql}, {"read": types, "update": types}
        )

    def read(self, keys: Sequence[int]) -> int:
        return _found("read", self.statements.run("read", keys))

    def update(self, keys: Sequence[int]) -> int:
        return _found("update", self.statements.run("update", keys))

    def send(self, transaction: str, keys: Sequence[int]) -> int:
        return self.statements.send(transaction, keys)

    def receive(self, transaction: str) -> int | None:
        """None while the reply is incomplete, else the rows found (compiled: PgReply)."""
        reply = self.statements.reply
        return reply.value() if transaction == "read" else reply.rows()

    def close(self) -> None:
        pass


def _found(transaction: str, result: Any) -> int:
    """The rows a read counted or an update changed."""
    if transaction == "read":
        return int(result.get_value(0, 0))
    return int(result.command_tuples or 0)


def prepared(connection: Any, table: str, batch: int, read_sql: str, update_sql: str) -> Prepared:
    return Prepared(connection, table, batch, read_sql, update_sql)


# --- the server-side visit loop -----------------------------------------------------------


def routines(table: str, read: str, update: str) -> list[str]:
    """The two PL/pgSQL functions of user table `table` (called by SELECT)."""
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


def calls(read: str, update: str) -> dict[str, str]:
    """transaction -> the statement that calls its routine; parameters (n, rows)."""
    return {
        "read": f"SELECT {read}(%s, %s)",
        "update": f"SELECT {update}(%s, %s)",
    }


def seed_statement(value: float) -> tuple[str, tuple]:
    """Seed the session's generator from a number in [0, 1): setseed()."""
    return "SELECT setseed(%s)", (2.0 * value - 1.0,)


class ServerLoop:
    """The table's two functions, prepared; called with (batch, rows)."""

    can_submit = True

    def __init__(self, connection: Any, calls: dict[str, str], batch: int, rows: int, seed: float):
        self.params = (batch, rows)
        self.encoded = [encode(batch), encode(rows)]  # the same every call: encoded once
        text, params = seed_statement(seed)
        self.statements = PreparedStatements(
            connection, {"seed": text.replace("%s", "%s::float8"), **calls}
        )
        self.statements.run("seed", [repr(params[0])])
        self.pg, self.names = self.statements.pg, self.statements.names
        # loop_calls: what the session's submit and collect call with no frame of this
        # class between (workloads/blocks/session.py): ({call: its send, bound to its
        # prepared name and encoded parameters (psycopg's compiled pq)}, the connection's
        # socket (a session keeps it), the reply read whatever the call (PgReply): None
        # while incomplete, else the rows visited)
        sends = {
            name: partial(self.pg.send_query_prepared, self.names[name], self.encoded)
            for name in calls
        }
        self.loop_calls = (sends, self.pg.socket, self.statements.reply.value)

    def call(self, transaction: str) -> int:
        return int(self.statements.run(transaction, self.params).get_value(0, 0))

    def close(self) -> None:
        pass


def server_loop(
    connection: Any, calls: dict[str, str], batch: int, rows: int, seed: float
) -> ServerLoop:
    return ServerLoop(connection, calls, batch, rows, seed)
