"""The orders workload on PostgreSQL: New-Order a PL/pgSQL procedure (CALL), the other
four PL/pgSQL functions (SELECT), one round trip each, prepared once and run through libpq
(the cheapest client path).

They are called on an autocommit connection, so one call is one transaction: PostgreSQL
commits it when the routine returns. New-Order is a procedure because its unused item must
roll the order back, quietly, with the procedure's own ROLLBACK (status 1); the others are
functions because a CALL costs the server more than a SELECT of a function (a utility
statement, run in a non-atomic context: 9-12 us of a backend's CPU a call here,
bench/bench_call_vs_select.py). They read and write what workloads/orders/client.py does,
with the same effects (tested row by row), in fewer statements, because every PL/pgSQL
statement costs the server an executor start and that server CPU is what limits a small
machine:

- New-Order is one statement: it takes its order id, writes the order and new_order rows,
  reads the warehouse and customer, its items, updates its stock rows and writes its lines
  (the district row is locked before any stock row, as the client locks them). Stock rows
  are locked in (warehouse, item) order, as the client locks them. A row named on k lines
  is updated once: s_quantity stays within 10..100 (TPC-C's load and its rule "subtract,
  and add 91 when below 10" keep it there), so k subtractions come to
  (q - sum - 10) mod 91 + 10, what the client gets one line after the other. An unused
  item writes one line fewer; the procedure sees the count and rolls back.
- Payment updates and reads the warehouse, district and customer rows, in that order, and
  writes the history row in one statement (after the name lookup when by name).
- Delivery delivers all ten districts in one statement.

Money parameters are numeric (the amount's own two places kept: c_data notes 43.21 as the
client does), times timestamp, as the columns (NUMERIC(p,s), TIMESTAMP).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from dbstor.engines.pg_prepared import PreparedStatements
from dbstor.hotpath import POSTGRES_TEXT, Drawer, Submitter, int_array

_DIST = "CASE p_d " + " ".join(f"WHEN {d} THEN s_dist_{d:02d}" for d in range(1, 10))
_DIST += " ELSE s_dist_10 END"

_PICK_CUSTOMER = """
    IF p_c_last IS NOT NULL THEN
        SELECT array_agg(c_id ORDER BY c_first, c_id) INTO v_ids FROM customer
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
        v_c := v_ids[(array_length(v_ids, 1) + 1) / 2];
    END IF;
"""

NEW_ORDER = f"""
CREATE OR REPLACE PROCEDURE orders_new_order(
    p_w int, p_d int, p_c int, p_entry timestamp, p_items int[], p_supply int[], p_qty int[],
    INOUT status int DEFAULT NULL, INOUT new_o_id int DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    v_count int := cardinality(p_items);
    v_written int;
BEGIN
    WITH next AS (
        UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
        RETURNING d_tax, d_next_o_id - 1 AS o_id),
    placed AS (
        INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
            o_all_local)
        SELECT o_id, p_d, p_w, p_c, p_entry, NULL, v_count, (p_w = ALL(p_supply))::int
        FROM next RETURNING o_id),
    queued AS (
        INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT o_id, p_d, p_w FROM placed),
    head AS (  -- the warehouse's and customer's rows TPC-C reads
        SELECT o_id, d_tax, w_tax, c_discount, c_last, c_credit
        FROM next, warehouse, customer
        WHERE w_id = p_w AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c),
    lines AS MATERIALIZED (
        SELECT l.*, i_price, i_name, i_data
        FROM unnest(p_items, p_supply, p_qty) WITH ORDINALITY AS l(item, supply, qty, n)
        JOIN item ON i_id = l.item),
    per_row AS MATERIALIZED (  -- in (warehouse, item) order: the order rows are locked in
        SELECT supply, item, sum(qty) AS qty, count(*) AS lines,
            sum((supply <> p_w)::int) AS remote
        FROM lines GROUP BY supply, item ORDER BY supply, item),
    taken AS (  -- after the district row (EXISTS runs next first), as every New-Order does
        UPDATE stock SET
            s_quantity = (s_quantity - per_row.qty - 10 + 91 * 11) % 91 + 10,
            s_ytd = s_ytd + per_row.qty, s_order_cnt = s_order_cnt + per_row.lines,
            s_remote_cnt = s_remote_cnt + per_row.remote
        FROM per_row WHERE s_w_id = per_row.supply AND s_i_id = per_row.item
            AND EXISTS (SELECT FROM next)
        RETURNING s_w_id, s_i_id, {_DIST} AS dist, s_data),
    written AS (
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        SELECT next.o_id, p_d, p_w, lines.n, lines.item, lines.supply, NULL, lines.qty,
            lines.qty * lines.i_price, taken.dist
        FROM next, lines JOIN taken ON s_w_id = lines.supply AND s_i_id = lines.item
        RETURNING 1)
    SELECT (SELECT o_id FROM head), (SELECT count(*) FROM written)
        INTO new_o_id, v_written;
    IF v_written < v_count THEN  -- a line's item is not in the catalogue: roll back
        ROLLBACK;
        status := 1;
        RETURN;
    END IF;
    status := 0;
END $$"""

PAYMENT = f"""
CREATE OR REPLACE FUNCTION orders_payment(
    p_w int, p_d int, p_c_w int, p_c_d int, p_c int, p_c_last text, p_amount numeric,
    p_date timestamp) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    v_c int := p_c; v_ids int[]; v_cust record;
BEGIN{_PICK_CUSTOMER}
    WITH w AS (
        UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
        RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
    d AS (  -- locked after the warehouse (EXISTS runs w first), as every Payment does
        UPDATE district SET d_ytd = d_ytd + p_amount
        WHERE d_w_id = p_w AND d_id = p_d AND EXISTS (SELECT FROM w)
        RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
    c AS (  -- and the customer last
        UPDATE customer SET c_balance = c_balance - p_amount,
            c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,
            c_data = CASE WHEN c_credit = 'BC' THEN  -- bad credit: noted in c_data
                substr(v_c || ' ' || p_c_d || ' ' || p_c_w || ' ' || p_d || ' ' || p_w || ' '
                    || p_amount || ' ' || c_data, 1, 500) ELSE c_data END
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c AND EXISTS (SELECT FROM d)
        RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
            c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_data),
    h AS (
        INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount,
            h_data)
        SELECT v_c, p_c_d, p_c_w, p_d, p_w, p_date, p_amount, w_name || '    ' || d_name
        FROM w, d)
    SELECT * INTO v_cust FROM c;
    RETURN v_c;
END $$"""

ORDER_STATUS = f"""
CREATE OR REPLACE FUNCTION orders_order_status(
    p_c_w int, p_c_d int, p_c int, p_c_last text, OUT found_c_id int, OUT last_o_id int,
    OUT line_count int)
LANGUAGE plpgsql AS $$
DECLARE
    v_c int := p_c; v_ids int[]; v_cust record; v_order record; v_lines record;
BEGIN
{_PICK_CUSTOMER}
    SELECT c_balance, c_first, c_middle, c_last INTO v_cust FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    SELECT o_id, o_entry_d, o_carrier_id INTO v_order FROM orders
        WHERE o_w_id = p_c_w AND o_d_id = p_c_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
    IF FOUND THEN
        SELECT count(*) AS n, sum(ol_i_id) AS items, sum(ol_supply_w_id) AS supply,
            sum(ol_quantity) AS qty, sum(ol_amount) AS amount, max(ol_delivery_d) AS d
            INTO v_lines FROM order_line
            WHERE ol_w_id = p_c_w AND ol_d_id = p_c_d AND ol_o_id = v_order.o_id;
        last_o_id := v_order.o_id;
        line_count := v_lines.n;
    END IF;
    found_c_id := v_c;
END $$"""

DELIVERY = """
CREATE OR REPLACE FUNCTION orders_delivery(
    p_w int, p_carrier int, p_date timestamp, OUT delivered int)
LANGUAGE plpgsql AS $$
BEGIN
    WITH oldest AS (  -- each district's oldest undelivered order, if it has one
        DELETE FROM new_order USING generate_series(1, 10) AS g(d)
        WHERE no_w_id = p_w AND no_d_id = g.d AND no_o_id = (
            SELECT no_o_id FROM new_order WHERE no_w_id = p_w AND no_d_id = g.d
            ORDER BY no_o_id LIMIT 1)
        RETURNING no_d_id AS d, no_o_id AS o),
    carried AS (
        UPDATE orders SET o_carrier_id = p_carrier FROM oldest
        WHERE o_w_id = p_w AND o_d_id = oldest.d AND o_id = oldest.o
        RETURNING o_d_id AS d, o_c_id AS c),
    lines AS (
        UPDATE order_line SET ol_delivery_d = p_date FROM oldest
        WHERE ol_w_id = p_w AND ol_d_id = oldest.d AND ol_o_id = oldest.o
        RETURNING ol_d_id AS d, ol_amount AS amount),
    owed AS (
        SELECT carried.d, carried.c, COALESCE(sum(lines.amount), 0) AS amount
        FROM carried LEFT JOIN lines ON lines.d = carried.d GROUP BY carried.d, carried.c),
    paid AS (
        UPDATE customer SET c_balance = c_balance + owed.amount,
            c_delivery_cnt = c_delivery_cnt + 1
        FROM owed WHERE c_w_id = p_w AND c_d_id = owed.d AND c_id = owed.c
        RETURNING 1)
    SELECT count(*) INTO delivered FROM paid;
END $$"""

STOCK_LEVEL = """
CREATE OR REPLACE FUNCTION orders_stock_level(
    p_w int, p_d int, p_threshold int, OUT low_stock int)
LANGUAGE plpgsql AS $$
DECLARE
    v_next int;
BEGIN
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
    SELECT COUNT(DISTINCT s_i_id) INTO low_stock FROM order_line JOIN stock
        ON s_w_id = ol_w_id AND s_i_id = ol_i_id
        WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
        AND s_quantity < p_threshold;
END $$"""

DDL = [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL]

CALLS = {
    "New-Order": "CALL orders_new_order(%s, %s, %s, %s, %s::int[], %s::int[], %s::int[])",
    "Payment": "SELECT orders_payment(%s, %s, %s, %s, %s, %s, %s, %s)",
    "Order-Status": "SELECT * FROM orders_order_status(%s, %s, %s, %s)",
    "Delivery": "SELECT orders_delivery(%s, %s, %s)",
    "Stock-Level": "SELECT orders_stock_level(%s, %s, %s)",
}


# One of New-Order's three line lists as an int[] literal, {1,2,3} (compiled: once per line
# list of every New-Order)
item_lines = int_array


class Caller:
    """CALLs on one autocommit connection, prepared once; submit and collect apart."""

    can_submit = True

    def __init__(self, connection: Any):
        connection.autocommit = True
        self.prepared = PreparedStatements(connection, CALLS)
        # a reply read in one compiled call: New-Order's status (False: rolled back), or
        # the others' being in (PgReply; None while incomplete)
        self._status, self._ok = self.prepared.reply.status, self.prepared.reply.ok
        self.submitter: Any = None  # hotpath.Submitter, once submitting() made it

    def run(self, name: str, params: tuple) -> bool:
        """CALL the transaction; False when New-Order rolled back (its unused item)."""
        return _committed(name, self.prepared.run(name, params))

    def submitting(self, drawer: Drawer, last_names: Sequence[str]) -> Submitter:
        """The Submitter for a user drawing from `drawer`: its submit(name) draws the
        transaction, writes its parameters as PostgreSQL's text and sends its prepared
        CALL without waiting, in one compiled call, and answers the socket; its `sent`
        names the transaction."""
        pg = self.prepared.pg
        self.submitter = Submitter(
            drawer,
            POSTGRES_TEXT,
            self.prepared.names,
            pg.send_query_prepared,
            partial(getattr, pg, "socket"),
            tuple(name.encode() for name in last_names),
        )
        return self.submitter

    def receive(self) -> bool | None:
        """None while the sent CALL's reply is incomplete, else as run()."""
        return self._status() if self.submitter.sent == "New-Order" else self._ok()  # type: ignore[no-any-return]


def _committed(name: str, result: Any) -> bool:
    """False when a New-Order CALL reports its rollback (status 1)."""
    status = result.get_value(0, 0) if result.ntuples else None
    return not (name == "New-Order" and status is not None and status != b"0")


def named_call(call: str, pairs: list[tuple[str, str]], outs: list[str]) -> list[str]:
    """`dbstor sql`'s call with named arguments (name, literal): named notation."""
    args = ", ".join(f"{n} => {v}" for n, v in pairs)
    return [f"{call[: call.index('(')]}({args})"]
