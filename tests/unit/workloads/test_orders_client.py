"""The client-side transactions' exact effects, on a small hand-made SQLite database."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator

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
from dbstor.workloads.orders.tpcc import UNUSED_ITEM, Constants

NOW = 1_800_000_000
DISTS = tuple(f"d{d:02d}-{{}}" for d in range(1, 11))


def insert(conn: sqlite3.Connection, table: str, *rows: tuple) -> None:
    marks = ",".join("?" * len(TABLE[table].columns))
    conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def customer(c_id: int, d: int, w: int, first: str, last: str, credit: str = "GC") -> tuple:
    return (c_id, d, w, first, "OE", last, "s1", "s2", "city", "CA", "123411111",
            "0123456789012345", 1, credit, 5_000_000, 100, -1000, 1000, 1, 0, "x" * 495)  # fmt: skip


def stock(item: int, w: int, quantity: int) -> tuple:
    return (item, w, quantity, *(d.format(item) for d in DISTS), 0, 0, 0, "data")


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    for table in TABLES:
        conn.execute(tables.create_table(table, "sqlite"))
        for index in tables.create_indexes(table, "sqlite"):
            conn.execute(index)
    insert(conn, "warehouse", *[(w, f"W{w}", "a", "b", "c", "CA", "z", 1000, 500) for w in (1, 2)])
    insert(
        conn,
        "district",
        *[(d, w, f"D{d}", "a", "b", "c", "CA", "z", 500, 250, 7) for w in (1, 2) for d in (1, 2)],
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
    insert(conn, "item", *[(i, i, f"item{i}", 100 * i, "data") for i in range(1, 6)])
    insert(conn, "stock", stock(1, 1, 15), stock(2, 1, 50), stock(3, 1, 40), stock(3, 2, 30))
    insert(conn, "orders", (5, 1, 1, 2, 1, None, 2, 1), (6, 1, 1, 3, 1, None, 1, 1))
    insert(conn, "new_order", (5, 1, 1), (6, 1, 1))
    insert(
        conn,
        "order_line",
        (5, 1, 1, 1, 1, 1, None, 5, 700, "x"),
        (5, 1, 1, 2, 2, 1, None, 5, 300, "x"),
        (6, 1, 1, 1, 1, 1, None, 5, 900, "x"),
    )
    conn.commit()
    yield conn
    conn.close()


def session(conn: sqlite3.Connection) -> OrdersSession:
    terminal = Terminal(2, 0, random.Random(1), Constants.from_seed(1))
    return OrdersSession("sqlite", conn, terminal, use_procedures=True)  # SQLite: client side


def one(conn: sqlite3.Connection, sql: str, *params: object) -> tuple:
    return conn.execute(sql, params).fetchone()


def test_new_order_writes_order_lines_and_stock_by_tpc_c_rules(db):
    s = session(db)
    assert not s.use_procedures
    lines = ((1, 1, 8), (1, 1, 2), (2, 1, 3), (3, 2, 4))  # item 1 twice; item 3 from W2
    assert s.execute(NewOrder(1, 1, 2, lines, NOW)) is True
    assert one(db, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1") == (8,)
    assert one(db, "SELECT * FROM orders WHERE o_id = 7") == (7, 1, 1, 2, NOW, None, 4, 0)
    assert one(db, "SELECT COUNT(*) FROM new_order WHERE no_o_id = 7") == (1,)
    got = db.execute("SELECT * FROM order_line WHERE ol_o_id = 7 ORDER BY ol_number").fetchall()
    assert got == [
        (7, 1, 1, 1, 1, 1, None, 8, 800, "d01-1"),
        (7, 1, 1, 2, 1, 1, None, 2, 200, "d01-1"),
        (7, 1, 1, 3, 2, 1, None, 3, 600, "d01-2"),
        (7, 1, 1, 4, 3, 2, None, 4, 1200, "d01-3"),
    ]
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
    assert s.execute(Payment(1, 1, who, 1234, NOW))
    assert one(db, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == (500 + 1234,)
    assert one(db, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 1") == (250 + 1234,)
    paid = (
        "SELECT c_id, c_balance, c_ytd_payment, c_payment_cnt FROM customer WHERE c_payment_cnt > 1"
    )
    assert db.execute(paid).fetchall() == [(1, -1000 - 1234, 1000 + 1234, 2)]
    assert db.execute("SELECT * FROM history").fetchall() == [
        (1, 1, 1, 1, 1, NOW, 1234, "W1    D1")
    ]
    # two with the name: position n/2 rounded up is the first (X, customer 4)
    s.execute(Payment(1, 2, Customer(1, 1, 0, "OUGHTBARBAR"), 50, NOW))
    assert one(db, "SELECT c_payment_cnt FROM customer WHERE c_d_id = 1 AND c_id = 4") == (2,)


def test_payment_of_a_bad_credit_customer_notes_it_in_c_data(db):
    s = session(db)
    s.execute(Payment(2, 1, Customer(1, 1, 4, None), 777, NOW))  # remote: home W2, customer W1
    data = one(db, "SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 4")[0]
    assert data == ("4 1 1 1 2 777 " + "x" * 495)[:500] and len(data) == 500
    assert one(db, "SELECT w_ytd FROM warehouse WHERE w_id = 2") == (500 + 777,)
    assert one(db, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == (500,)
    assert db.execute("SELECT * FROM history").fetchall() == [(4, 1, 1, 1, 2, NOW, 777, "W2    D1")]


def test_delivery_delivers_the_oldest_new_order_per_district(db):
    s = session(db)
    assert s.execute(Delivery(1, 7, NOW))
    assert db.execute("SELECT no_o_id FROM new_order").fetchall() == [(6,)]
    assert one(db, "SELECT o_carrier_id FROM orders WHERE o_id = 5") == (7,)
    assert one(db, "SELECT o_carrier_id FROM orders WHERE o_id = 6") == (None,)
    dates = db.execute("SELECT ol_o_id, ol_delivery_d FROM order_line ORDER BY 1, 2").fetchall()
    assert dates == [(5, NOW), (5, NOW), (6, None)]
    row = "SELECT c_balance, c_delivery_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 2"
    assert one(db, row) == (-1000 + 700 + 300, 1)
    s.execute(Delivery(1, 3, NOW + 1))
    s.execute(Delivery(1, 3, NOW + 2))  # nothing left anywhere: every district skipped
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
