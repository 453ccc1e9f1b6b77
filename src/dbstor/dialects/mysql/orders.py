"""The orders workload in MySQL's dialect (MariaDB): the five transactions as stored
procedures, one CALL each.

They are called on an autocommit connection and run their own START TRANSACTION ...
COMMIT, so one CALL is one transaction; any error rolls it back (EXIT HANDLER) and
reaches the client unchanged (RESIGNAL), so deadlocks are retried as on the client path.
Each ends with one result row. They read and write what workloads/orders/client.py does,
with the same effects (tested row by row), in fewer statements, because every statement of
a procedure is an execution in the server (tables opened and locked, a handler call per
row), and the server's CPU is most of a New-Order's cost here (client and server;
bench/bench_mariadb_server_work.py counts the statements per call):

- New-Order's item lists come as comma-separated text (no arrays here; item_lines), read
  as rows by JSON_TABLE over '[' text ']'. It updates the district row first (its lock
  taken before any stock row's, as the client takes them), reads the warehouse, district
  and customer in one SELECT (the district's new d_next_o_id is the transaction's own),
  writes the order and new_order rows, then updates its stock rows in one multi-table
  UPDATE, one row per (warehouse, item) from a GROUP BY whose sorted rows drive the join
  (EXPLAIN: the derived table first, stock by its primary key), so the stock rows are
  locked in (warehouse, item) order, as the client locks them; a row named on k lines is
  updated once: s_quantity stays within 10..100 (TPC-C's load and its rule "subtract, and
  add 91 when below 10" keep it there), so k subtractions come to (q - sum - 10) mod 91 +
  10, what the client gets one line after the other. Its lines are one INSERT ... SELECT
  joining the item and stock rows; an unused item writes one line fewer, and the procedure
  sees the count (ROW_COUNT) and rolls back (status 1): 19 statements a call, 194 when it
  looped over the lines.
- Payment updates the warehouse and district rows, reads both in one SELECT, updates the
  customer (its bad-credit note in the same UPDATE) and reads it back, writes history.
- Delivery locks each district's oldest new order in district order (ten locking reads,
  as the client's), then delivers them all at once: one DELETE, one UPDATE of the orders
  and their lines, one UPDATE of the customers with their orders' sums.
- Order-Status and Stock-Level follow the client's statements one by one.

Money parameters and variables are DECIMAL of their columns' sizes, times DATETIME, so
nothing is rounded on the way (a tax of 0.0525 in an INT would be 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.dialects.mysql.calls import Sender, first
from dbstor.dialects.procedures import item_lines
from dbstor.hotpath import MYSQL_LITERALS, Drawer, Submitter

__all__ = ["Caller", "item_lines"]

_DIST = "CASE p_d " + " ".join(f"WHEN {d} THEN s_dist_{d:02d}" for d in range(1, 10))
_DIST += " ELSE s_dist_10 END"
_ON_ERROR = "DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;"

_PICK_CUSTOMER = """
    IF p_c_last IS NOT NULL THEN
        SELECT COUNT(*) INTO v_n FROM customer
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
        SET v_n = (GREATEST(v_n, 1) - 1) DIV 2;
        SELECT c_id INTO v_c FROM customer
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
            ORDER BY c_first, c_id LIMIT v_n, 1;
    END IF;
"""


def _column(csv: str, name: str) -> str:
    """One of New-Order's line lists (1,2,3) as rows (n, value): a JSON array to JSON_TABLE."""
    return (
        f"JSON_TABLE(CONCAT('[', {csv}, ']'), '$[*]' COLUMNS "
        f"(n FOR ORDINALITY, {name} INT PATH '$')) AS {name}_list"
    )


# New-Order's lines as rows (n, item, supply, qty): the three lists zipped by position
_LINES = (
    f"(SELECT n, item, supply, qty FROM {_column('p_items', 'item')}"
    f" JOIN {_column('p_supply', 'supply')} USING (n) JOIN {_column('p_qty', 'qty')} USING (n))"
)

NEW_ORDER = f"""
CREATE PROCEDURE orders_new_order(p_w INT, p_d INT, p_c INT, p_entry DATETIME,
    p_items VARCHAR(255), p_supply VARCHAR(255), p_qty VARCHAR(255))
BEGIN
    DECLARE v_w_tax, v_d_tax, v_discount DECIMAL(4,4);
    DECLARE v_o_id, v_count INT;
    DECLARE v_last VARCHAR(16);
    DECLARE v_credit VARCHAR(2);
    {_ON_ERROR}
    SET v_count = 1 + LENGTH(p_items) - LENGTH(REPLACE(p_items, ',', ''));
    START TRANSACTION;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
    SELECT w_tax, d_tax, d_next_o_id - 1, c_discount, c_last, c_credit
        INTO v_w_tax, v_d_tax, v_o_id, v_discount, v_last, v_credit
        FROM warehouse, district, customer WHERE w_id = p_w AND d_w_id = p_w AND d_id = p_d
        AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
        o_all_local) VALUES (v_o_id, p_d, p_w, p_c, p_entry, NULL, v_count,
        CONCAT(p_supply, ',') = REPEAT(CONCAT(p_w, ','), v_count));
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
    UPDATE (SELECT supply, item, SUM(qty) AS qty, COUNT(*) AS line_count,
            SUM(supply <> p_w) AS remote
            FROM {_LINES} AS l GROUP BY supply, item) AS per_row
        JOIN stock ON s_w_id = per_row.supply AND s_i_id = per_row.item
        SET s_quantity = (s_quantity + 91 * 11 - 10 - per_row.qty) MOD 91 + 10,
            s_ytd = s_ytd + per_row.qty, s_order_cnt = s_order_cnt + per_row.line_count,
            s_remote_cnt = s_remote_cnt + per_row.remote;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        SELECT v_o_id, p_d, p_w, l.n, l.item, l.supply, NULL, l.qty, l.qty * i_price, {_DIST}
        FROM {_LINES} AS l JOIN item ON i_id = l.item
        JOIN stock ON s_w_id = l.supply AND s_i_id = l.item;
    IF ROW_COUNT() < v_count THEN  -- a line's item is not in the catalogue: roll back
        ROLLBACK;
        SELECT 1, v_o_id;
    ELSE
        COMMIT;
        SELECT 0, v_o_id;
    END IF;
END"""

PAYMENT = f"""
CREATE PROCEDURE orders_payment(p_w INT, p_d INT, p_c_w INT, p_c_d INT, p_c INT,
    p_c_last VARCHAR(16), p_amount DECIMAL(6,2), p_date DATETIME)
BEGIN
    DECLARE v_c INT DEFAULT p_c;
    DECLARE v_n INT;
    DECLARE v_w_name, v_d_name VARCHAR(10);
    DECLARE v_addresses VARCHAR(200);  -- both, as the one text a terminal would show
    DECLARE v_credit VARCHAR(2);
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_data VARCHAR(500);
    {_ON_ERROR}
    START TRANSACTION;
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
    SELECT w_name, d_name, CONCAT_WS('|', w_street_1, w_street_2, w_city, w_state, w_zip,
            d_street_1, d_street_2, d_city, d_state, d_zip)
        INTO v_w_name, v_d_name, v_addresses
        FROM warehouse, district WHERE w_id = p_w AND d_w_id = p_w AND d_id = p_d;
{_PICK_CUSTOMER}
    UPDATE customer SET c_balance = c_balance - p_amount,
        c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,
        c_data = IF(c_credit = 'BC', SUBSTRING(CONCAT(v_c, ' ', p_c_d, ' ', p_c_w, ' ', p_d,
            ' ', p_w, ' ', p_amount, ' ', c_data), 1, 500), c_data)  -- bad credit: noted
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    SELECT c_credit, c_balance, c_data INTO v_credit, v_balance, v_data FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
        VALUES (v_c, p_c_d, p_c_w, p_d, p_w, p_date, p_amount,
            CONCAT(v_w_name, '    ', v_d_name));
    COMMIT;
    SELECT v_c;
END"""

ORDER_STATUS = f"""
CREATE PROCEDURE orders_order_status(p_c_w INT, p_c_d INT, p_c INT, p_c_last VARCHAR(16))
BEGIN
    DECLARE v_c INT DEFAULT p_c;
    DECLARE v_n, v_o, v_carrier, v_lines INT;
    DECLARE v_entry, v_delivery DATETIME;
    DECLARE v_balance, v_amount DECIMAL(12,2);
    DECLARE v_first, v_last VARCHAR(16);
    DECLARE v_middle VARCHAR(2);
    DECLARE v_items, v_supply, v_qty BIGINT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_o = NULL;
    {_ON_ERROR}
    START TRANSACTION READ ONLY;
{_PICK_CUSTOMER}
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
        FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    SELECT o_id, o_entry_d, o_carrier_id INTO v_o, v_entry, v_carrier FROM orders
        WHERE o_w_id = p_c_w AND o_d_id = p_c_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
    IF v_o IS NOT NULL THEN
        SELECT COUNT(*), SUM(ol_i_id), SUM(ol_supply_w_id), SUM(ol_quantity), SUM(ol_amount),
            MAX(ol_delivery_d) INTO v_lines, v_items, v_supply, v_qty, v_amount, v_delivery
            FROM order_line WHERE ol_w_id = p_c_w AND ol_d_id = p_c_d AND ol_o_id = v_o;
    END IF;
    COMMIT;
    SELECT v_c, v_o, v_lines;
END"""

# Delivery's picked orders as rows (d, o): the JSON array of [district, order] pairs
_PICKED = (
    "JSON_TABLE(CONCAT('[', SUBSTRING(v_picked, 2), ']'), '$[*]' COLUMNS"
    " (d INT PATH '$[0]', o INT PATH '$[1]')) AS picked"
)

DELIVERY = f"""
CREATE PROCEDURE orders_delivery(p_w INT, p_carrier INT, p_date DATETIME)
BEGIN
    DECLARE v_d INT DEFAULT 1;
    DECLARE v_o INT;
    DECLARE v_picked VARCHAR(255) DEFAULT '';
    DECLARE v_delivered INT DEFAULT 0;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_o = NULL;
    {_ON_ERROR}
    START TRANSACTION;
    WHILE v_d <= 10 DO  -- each district's oldest new order, locked, in district order
        SET v_o = NULL;
        SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
            ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        IF v_o IS NOT NULL THEN
            SET v_picked = CONCAT(v_picked, ',[', v_d, ',', v_o, ']');
            SET v_delivered = v_delivered + 1;
        END IF;
        SET v_d = v_d + 1;
    END WHILE;
    IF v_delivered > 0 THEN
        DELETE new_order FROM {_PICKED}
            JOIN new_order ON no_w_id = p_w AND no_d_id = picked.d AND no_o_id = picked.o;
        UPDATE {_PICKED}
            JOIN orders ON o_w_id = p_w AND o_d_id = picked.d AND o_id = picked.o
            LEFT JOIN order_line ON ol_w_id = p_w AND ol_d_id = picked.d AND ol_o_id = picked.o
            SET o_carrier_id = p_carrier, ol_delivery_d = p_date;
        UPDATE (SELECT picked.d, o_c_id, COALESCE(SUM(ol_amount), 0) AS amount
                FROM {_PICKED}
                JOIN orders ON o_w_id = p_w AND o_d_id = picked.d AND o_id = picked.o
                LEFT JOIN order_line
                    ON ol_w_id = p_w AND ol_d_id = picked.d AND ol_o_id = picked.o
                GROUP BY picked.d, o_c_id) AS paid
            JOIN customer ON c_w_id = p_w AND c_d_id = paid.d AND c_id = paid.o_c_id
            SET c_balance = c_balance + paid.amount, c_delivery_cnt = c_delivery_cnt + 1;
    END IF;
    COMMIT;
    SELECT v_delivered;
END"""

STOCK_LEVEL = f"""
CREATE PROCEDURE orders_stock_level(p_w INT, p_d INT, p_threshold INT)
BEGIN
    DECLARE v_next, v_low INT;
    {_ON_ERROR}
    START TRANSACTION READ ONLY;
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
    SELECT COUNT(DISTINCT s_i_id) INTO v_low FROM order_line JOIN stock
        ON s_w_id = ol_w_id AND s_i_id = ol_i_id
        WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
        AND s_quantity < p_threshold;
    COMMIT;
    SELECT v_low;
END"""

NAMES = ("new_order", "payment", "order_status", "delivery", "stock_level")
DDL = [f"DROP PROCEDURE IF EXISTS orders_{name}" for name in NAMES] + [
    NEW_ORDER,
    PAYMENT,
    ORDER_STATUS,
    DELIVERY,
    STOCK_LEVEL,
]

CALLS = {
    "New-Order": "CALL orders_new_order(%s, %s, %s, %s, %s, %s, %s)",
    "Payment": "CALL orders_payment(%s, %s, %s, %s, %s, %s, %s, %s)",
    "Order-Status": "CALL orders_order_status(%s, %s, %s, %s)",
    "Delivery": "CALL orders_delivery(%s, %s, %s)",
    "Stock-Level": "CALL orders_stock_level(%s, %s, %s)",
}


class Caller:
    """One CALL per transaction on one autocommit connection, sent and read apart
    (calls.py); run() and receive() answer False when New-Order rolled back (its unused
    item), which its procedure reports with a status other than 0."""

    CALLS = CALLS
    can_submit = True

    def __init__(self, connection: Any):
        self.sender = Sender(connection, CALLS)
        self.submitter: Any = None  # hotpath.Submitter, once submitting() made it

    def run(self, name: str, params: tuple) -> bool:
        return _committed(name, first(self.sender.run(name, params)))

    def submitting(self, drawer: Drawer, last_names: Sequence[str]) -> Submitter:
        """The Submitter for a user drawing from `drawer`: its submit(name) draws the
        transaction, writes its CALL with the parameters as SQL literals and sends it
        without waiting, in one compiled call, and answers the socket; its `sent` names
        the transaction. The last names are written once, by the connection's own
        literal() (its character set and sql_mode respected)."""
        conn, literal = self.sender.conn, self.sender.literal
        self.submitter = Submitter(
            drawer,
            MYSQL_LITERALS,
            self.sender.texts,
            conn.send_query,
            conn.fileno,
            tuple(literal(name) for name in last_names),
        )
        return self.submitter

    def receive(self) -> bool:
        return _committed(self.submitter.sent, first(self.sender.receive()))


def _committed(name: str, status: Any) -> bool:
    """False when a New-Order CALL reports its rollback (a status other than 0)."""
    return not (name == "New-Order" and status is not None and status != 0)


def named_call(call: str, pairs: list[tuple[str, str]], outs: list[str]) -> list[str]:
    """`dbstor sql`'s call with named arguments (name, literal): CALL has no named
    notation, so user variables named as the parameters are SET, then passed."""
    procedure = call.split("(")[0]
    sets = "SET " + ", ".join(f"@{n} = {v}" for n, v in pairs)
    return [sets, f"{procedure}(" + ", ".join(f"@{n}" for n, _ in pairs) + ")"]
