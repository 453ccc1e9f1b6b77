"""TPC-C's column types for money, rates and times (clause 1.3.1 of the specification),
written out here from the specification, not from dbstor's schema, and read back from each
engine's own catalog: information_schema on PostgreSQL and MariaDB, PRAGMA table_info and
the stored values' typeof() on SQLite (which has no DECIMAL storage: NUMERIC affinity)."""

from __future__ import annotations

from typing import Any

# column -> (precision, scale): TPC-C's "signed numeric(12, 2)" and the like
DECIMALS: dict[str, tuple[int, int]] = {
    "w_tax": (4, 4),
    "w_ytd": (12, 2),
    "d_tax": (4, 4),
    "d_ytd": (12, 2),
    "c_credit_lim": (12, 2),
    "c_discount": (4, 4),
    "c_balance": (12, 2),
    "c_ytd_payment": (12, 2),
    "h_amount": (6, 2),
    "ol_amount": (6, 2),
    "i_price": (5, 2),
}
# TPC-C's "date and time"
TIMES = {"c_since", "h_date", "o_entry_d", "ol_delivery_d"}
TABLE_OF = {
    "w": "warehouse",
    "d": "district",
    "c": "customer",
    "h": "history",
    "o": "orders",
    "ol": "order_line",
    "i": "item",
}


def table_of(column: str) -> str:
    return TABLE_OF[column.split("_")[0]]


def _rows(conn: Any, sql: str) -> list[tuple]:
    cur = conn.cursor()
    cur.execute(sql)
    out = list(cur.fetchall())
    conn.commit()
    return out


def server_types(conn: Any, dialect: str) -> dict[str, tuple]:
    """column -> (data type, precision, scale) from information_schema.columns of the
    connection's own schema (PostgreSQL: current_schema(); MariaDB: DATABASE())."""
    schema = "current_schema()" if dialect == "postgres" else "DATABASE()"
    names = ", ".join(f"'{c}'" for c in [*DECIMALS, *TIMES])
    found = _rows(
        conn,
        "SELECT column_name, data_type, numeric_precision, numeric_scale"
        f" FROM information_schema.columns WHERE table_schema = {schema}"
        f" AND column_name IN ({names})",
    )
    return {str(c).lower(): (str(t).lower(), p, s) for c, t, p, s in found}


def server_mismatches(conn: Any, dialect: str) -> list[str]:
    """What differs from TPC-C's types on a PostgreSQL or MariaDB database (empty: none)."""
    decimal = "numeric" if dialect == "postgres" else "decimal"
    time = "timestamp without time zone" if dialect == "postgres" else "datetime"
    types = server_types(conn, dialect)
    wrong = [
        f"{c}: {types.get(c)}" for c, (p, s) in DECIMALS.items() if types.get(c) != (decimal, p, s)
    ]
    return wrong + [f"{c}: {types.get(c)}" for c in TIMES if (types.get(c) or ("",))[0] != time]


def sqlite_mismatches(conn: Any) -> list[str]:
    """What differs on SQLite: the declared types (DECIMAL(p,s), DATETIME: NUMERIC affinity)
    and what the rows hold (a decimal an INTEGER or REAL, never TEXT; a time ISO TEXT)."""
    wrong = []
    for column in [*DECIMALS, *TIMES]:
        table = table_of(column)
        declared = {r[1]: r[2] for r in conn.execute(f"PRAGMA table_info({table})")}[column]
        want = (
            f"DECIMAL({DECIMALS[column][0]},{DECIMALS[column][1]})"
            if column in DECIMALS
            else "DATETIME"
        )
        kinds = {r[0] for r in conn.execute(f"SELECT DISTINCT typeof({column}) FROM {table}")}
        stored = {"integer", "real"} if column in DECIMALS else {"text"}
        if declared != want or not kinds - {"null"} or not kinds - {"null"} <= stored:
            wrong.append(f"{column}: declared {declared}, stored as {sorted(kinds)}")
    return wrong
