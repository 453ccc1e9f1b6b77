"""The client-side transactions' exact effects, on a small hand-made SQLite database.
Money goes in as decimal text, as the load writes it, and is read back to the cent
(SQLite keeps 12.34 as a binary REAL); times are ISO text."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from dbstor.workloads import tables
from dbstor.workloads.orders.inputs import (
    Customer,
    Delivery,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
    Terminal,
)
from dbstor.workloads.orders.schema import TABLE, TABLES
from dbstor.workloads.orders.session import OrdersSession
from dbstor.workloads.orders.tpcc import UNUSED_ITEM, Constants, money

NOW = datetime(2027, 1, 15, 8, 0, 0)
STAMP = "2027-01-15 08:00:00"  # NOW as SQLite keeps it
DISTS = tuple(f"d{d:02d}-{{}}" for d in range(1, 11))


def insert(conn: sqlite3.Connection, table: str, *rows: tuple) -> None:
    marks = ",".join("?" * len(TABLE[table].columns))
    conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def customer(c_id: int, d: int, w: int, first: str, last: str, credit: str = "GC") -> tuple:
    return (c_id, d, w, first, "OE", last, "s1", "s2", "city", "CA", "123411111",
            "0123456789012345", "2020-01-01 00:00:00", credit, "50000.00", "0.0100", "-10.00",
            "10.00", 1, 0, "x" * 495)  # fmt: skip


def stock(item: int, w: int, quantity: int) -> tuple:
    return (item, w, quantity, *(d.format(item) for d in DISTS), 0, 0, 0, "data")


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    for table in TABLES:
        conn.execute(tables.create_table(table, "sqlite"))
        for index in tables.create_indexes(table, "sqlite"):
            conn.execute(index)
    warehouses = [(w, f"W{w}", "a", "b", "c", "CA", "z", "0.1000", "5.00") for w in (1, 2)]
    insert(conn, "warehouse", *warehouses)
    insert(
        conn,
        "district",
        *[
            (d, w, f"D{d}", "a", "b", "c", "CA", "z", "0.0500", "2.50", 7)
            for w in (1, 2)
            for d in (1, 2)
        ],
    )
    insert(
        conn,
        "customer",
        customer(1, 1, 1, "B", "BARBARBAR"),
        customer(2, 1, 1, "A", "BARBARBAR"),
        customer(3, 1, 1, "C", "BARBARBAR"),
        customer(4, 1, 1, "X", "OUGHTBARBAR", credit="BC"),
        customer(5, 1, 1, "Y", "OUGHTBARBAR"),
        customer(1, 2, 2, "Q", "ABLEABLEABLE"),
    )
    insert(conn, "item", *[(i, i, f"item{i}", f"{i}.{i}1", "data") for i in range(1, 6)])
    insert(conn, "stock", stock(1, 1, 15), stock(2, 1, 50), stock(3, 1, 40), stock(3, 2, 30))
    entered = "2026-12-01 10:00:00"
    insert(conn, "orders", (5, 1, 1, 2, entered, None, 2, 1), (6, 1, 1, 3, entered, None, 1, 1))
    insert(conn, "new_order", (5, 1, 1), (6, 1, 1))
    insert(
        conn,
        "order_line",
        (5, 1, 1, 1, 1, 1, None, 5, "7.10", "x"),
        (5, 1, 1, 2, 2, 1, None, 5, "3.20", "x"),
        (6, 1, 1, 1, 1, 1, None, 5, "9.00", "x"),
    )
    conn.commit()
    yield conn
    conn.close()


def session(conn: sqlite3.Connection) -> OrdersSession:
    terminal = Terminal(2, 0, random.Random(1), Constants.from_seed(1))
    return OrdersSession("sqlite", conn, terminal, use_procedures=True)  # SQLite: client side


def one(conn: sqlite3.Connection, sql: str, *params: object) -> tuple:
    return conn.execute(sql, params).fetchone()


def cents(conn: sqlite3.Connection, sql: str) -> list[Decimal]:
    """The one row's values as money to the cent."""
    return [money(v) for v in one(conn, sql)]


def test_new_order_writes_order_lines_and_stock_by_tpc_c_rules(db):
    s = session(db)
    assert not s.use_procedures
    lines = ((1, 1, 8), (1, 1, 2), (2, 1, 3), (3, 2, 4))  # item 1 twice; item 3 from W2
    assert s.execute(NewOrder(1, 1, 2, lines, NOW)) is True
    assert one(db, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1") == (8,)
    assert one(db, "SELECT * FROM orders WHERE o_id = 7") == (7, 1, 1, 2, STAMP, None, 4, 0)
    assert one(db, "SELECT COUNT(*) FROM new_order WHERE no_o_id = 7") == (1,)
    got = db.execute("SELECT * FROM order_line WHERE ol_o_id = 7 ORDER BY ol_number").fetchall()
    assert [(*row[:8], money(row[8]), row[9]) for row in got] == [  # quantity x i_price
        (7, 1, 1, 1, 1, 1, None, 8, Decimal("8.88"), "d01-1"),
        (7, 1, 1, 2, 1, 1, None, 2, Decimal("2.22"), "d01-1"),
        (7, 1, 1, 3, 2, 1, None, 3, Decimal("6.63"), "d01-2"),
        (7, 1, 1, 4, 3, 2, None, 4, Decimal("13.24"), "d01-3"),
    ]
    # NUMERIC affinity: the amounts are SQLite REALs, the time ISO text
    assert one(db, "SELECT typeof(ol_amount) FROM order_line WHERE ol_o_id = 7") == ("real",)
    stock_rows = db.execute(
        "SELECT s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock"
        " ORDER BY s_w_id, s_i_id"
    ).fetchall()
    # item 1: 15 - 8 = 7 < 10, so + 91 = 98; then 98 - 2 = 96
    assert stock_rows == [(1, 1, 96, 10, 2, 0), (1, 2, 47, 3, 1, 0), (1, 3, 40, 0, 0, 0), (2, 3, 26, 4, 1, 1)]  # fmt: skip
    assert s.outcomes["New-Order"] == 1


def test_new_order_with_an_unused_item_rolls_back(db):
    s = session(db)
    before = db.execute("SELECT * FROM stock").fetchall()
    lines = ((1, 1, 5), (UNUSED_ITEM, 1, 5))
    assert s.execute(NewOrder(1, 1, 2, lines, NOW)) is False
    assert not db.in_transaction
    assert one(db, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1") == (7,)
    assert one(db, "SELECT COUNT(*) FROM orders WHERE o_id = 7") == (0,)
    assert db.execute("SELECT * FROM stock").fetchall() == before
    assert (s.rolled_back, s.outcomes["New-Order"]) == (1, 0)


def test_payment_by_last_name_takes_the_middle_customer(db):
    s = session(db)
    who = Customer(1, 1, 0, "BARBARBAR")  # first names A (2), B (1), C (3): the middle is 1
    assert s.execute(Payment(1, 1, who, Decimal("12.34"), NOW))
    assert cents(db, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == [Decimal("17.34")]
    assert cents(db, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 1") == [
        Decimal("14.84")
    ]
    paid = "SELECT c_id, c_balance, c_ytd_payment, c_payment_cnt FROM customer"
    rows = db.execute(paid + " WHERE c_payment_cnt > 1").fetchall()
    assert [(c, money(b), money(y), n) for c, b, y, n in rows] == [
        (1, Decimal("-22.34"), Decimal("22.34"), 2)
    ]
    assert db.execute("SELECT * FROM history").fetchall() == [
        (1, 1, 1, 1, 1, STAMP, 12.34, "W1    D1")
    ]
    # two with the name: position n/2 rounded up is the first (X, customer 4)
    s.execute(Payment(1, 2, Customer(1, 1, 0, "OUGHTBARBAR"), Decimal("0.50"), NOW))
    assert one(db, "SELECT c_payment_cnt FROM customer WHERE c_d_id = 1 AND c_id = 4") == (2,)


def test_payment_of_a_bad_credit_customer_notes_it_in_c_data(db):
    s = session(db)
    # remote: home W2, customer W1; the amount noted with its two places
    s.execute(Payment(2, 1, Customer(1, 1, 4, None), Decimal("7.70"), NOW))
    data = one(db, "SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 4")[0]
    assert data == ("4 1 1 1 2 7.70 " + "x" * 495)[:500] and len(data) == 500
    assert cents(db, "SELECT w_ytd FROM warehouse WHERE w_id = 2") == [Decimal("12.70")]
    assert cents(db, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == [Decimal("5.00")]
    assert db.execute("SELECT * FROM history").fetchall() == [
        (4, 1, 1, 1, 2, STAMP, 7.7, "W2    D1")
    ]


def test_delivery_delivers_the_oldest_new_order_per_district(db):
    s = session(db)
    assert s.execute(Delivery(1, 7, NOW))
    assert db.execute("SELECT no_o_id FROM new_order").fetchall() == [(6,)]
    assert one(db, "SELECT o_carrier_id FROM orders WHERE o_id = 5") == (7,)
    assert one(db, "SELECT o_carrier_id FROM orders WHERE o_id = 6") == (None,)
    dates = db.execute("SELECT ol_o_id, ol_delivery_d FROM order_line ORDER BY 1, 2").fetchall()
    assert dates == [(5, STAMP), (5, STAMP), (6, None)]
    row = "SELECT c_balance, c_delivery_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 2"
    assert cents(db, row) == [Decimal("0.30"), 1]  # -10.00 + 7.10 + 3.20
    s.execute(Delivery(1, 3, NOW + timedelta(seconds=1)))
    s.execute(Delivery(1, 3, NOW + timedelta(seconds=2)))  # nothing left: every district skipped
    assert db.execute("SELECT COUNT(*) FROM new_order").fetchone() == (0,)
    assert s.outcomes["Delivery"] == 3


def test_readers_change_nothing(db):
    s = session(db)
    before = {t.name: db.execute(f"SELECT * FROM {t.name}").fetchall() for t in TABLES}
    assert s.execute(OrderStatus(Customer(1, 1, 0, "BARBARBAR")))
    assert s.execute(OrderStatus(Customer(1, 1, 3, None)))
    assert s.execute(StockLevel(1, 1, 20))
    after = {t.name: db.execute(f"SELECT * FROM {t.name}").fetchall() for t in TABLES}
    assert after == before
    assert (s.outcomes["Order-Status"], s.outcomes["Stock-Level"]) == (2, 1)
