"""The five transactions as PostgreSQL procedures (PL/pgSQL), one CALL each.

They are called on an autocommit connection, so one CALL is one transaction: PostgreSQL
commits it when the procedure returns, and New-Order's unused item ends in the
procedure's own ROLLBACK (status 1). Statements and their order follow client.py, so both
paths have the same effects; New-Order locks its stock rows one line at a time in the
lines' (warehouse, item) order, as the client does in IN lists.
"""

from __future__ import annotations

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
    p_w int, p_d int, p_c int, p_entry bigint, p_items int[], p_supply int[], p_qty int[],
    INOUT status int DEFAULT NULL, INOUT new_o_id int DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    v_w_tax int; v_d_tax int; v_discount int; v_last text; v_credit text;
    v_count int := array_length(p_items, 1);
    v_all_local int := 1;
    v_price bigint; v_name text; v_idata text;
    v_stock int; v_dist text; v_sdata text;
    i int;
BEGIN
    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
    SELECT d_tax, d_next_o_id INTO v_d_tax, new_o_id FROM district
        WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
    SELECT c_discount, c_last, c_credit INTO v_discount, v_last, v_credit FROM customer
        WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
    FOR i IN 1..v_count LOOP
        IF p_supply[i] <> p_w THEN v_all_local := 0; END IF;
    END LOOP;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
        o_all_local) VALUES (new_o_id, p_d, p_w, p_c, p_entry, NULL, v_count, v_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (new_o_id, p_d, p_w);
    FOR i IN 1..v_count LOOP
        SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item
            WHERE i_id = p_items[i];
        IF NOT FOUND THEN
            ROLLBACK;
            status := 1;
            RETURN;
        END IF;
        SELECT s_quantity, {_DIST}, s_data INTO v_stock, v_dist, v_sdata FROM stock
            WHERE s_w_id = p_supply[i] AND s_i_id = p_items[i] FOR UPDATE;
        v_stock := v_stock - p_qty[i];
        IF v_stock < 10 THEN v_stock := v_stock + 91; END IF;
        UPDATE stock SET s_quantity = v_stock, s_ytd = s_ytd + p_qty[i],
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] <> p_w THEN 1 ELSE 0 END
            WHERE s_w_id = p_supply[i] AND s_i_id = p_items[i];
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
            VALUES (new_o_id, p_d, p_w, i, p_items[i], p_supply[i], NULL, p_qty[i],
                p_qty[i] * v_price, v_dist);
    END LOOP;
    status := 0;
END $$"""

PAYMENT = f"""
CREATE OR REPLACE PROCEDURE orders_payment(
    p_w int, p_d int, p_c_w int, p_c_d int, p_c int, p_c_last text, p_amount bigint,
    p_date bigint, INOUT paid_c_id int DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    v_c int := p_c; v_ids int[]; v_w record; v_d record; v_cust record;
BEGIN
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
    SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_w FROM warehouse
        WHERE w_id = p_w;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
    SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_d FROM district
        WHERE d_w_id = p_w AND d_id = p_d;
{_PICK_CUSTOMER}
    SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
        c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_data INTO v_cust
        FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c FOR UPDATE;
    IF v_cust.c_credit = 'BC' THEN
        UPDATE customer SET c_balance = c_balance - p_amount,
            c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,
            c_data = substr(v_c || ' ' || p_c_d || ' ' || p_c_w || ' ' || p_d || ' ' || p_w
                || ' ' || p_amount || ' ' || v_cust.c_data, 1, 500)
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    ELSE
        UPDATE customer SET c_balance = c_balance - p_amount,
            c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    END IF;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
        VALUES (v_c, p_c_d, p_c_w, p_d, p_w, p_date, p_amount,
            v_w.w_name || '    ' || v_d.d_name);
    paid_c_id := v_c;
END $$"""

ORDER_STATUS = f"""
CREATE OR REPLACE PROCEDURE orders_order_status(
    p_c_w int, p_c_d int, p_c int, p_c_last text,
    INOUT found_c_id int DEFAULT NULL, INOUT last_o_id int DEFAULT NULL,
    INOUT line_count int DEFAULT NULL)
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
CREATE OR REPLACE PROCEDURE orders_delivery(
    p_w int, p_carrier int, p_date bigint, INOUT delivered int DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    v_d int; v_o int; v_c int; v_amount bigint;
BEGIN
    delivered := 0;
    FOR v_d IN 1..10 LOOP
        SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
            ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        CONTINUE WHEN NOT FOUND;
        DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
        SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
        UPDATE orders SET o_carrier_id = p_carrier
            WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
        UPDATE order_line SET ol_delivery_d = p_date
            WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
        SELECT COALESCE(SUM(ol_amount), 0) INTO v_amount FROM order_line
            WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
        UPDATE customer SET c_balance = c_balance + v_amount,
            c_delivery_cnt = c_delivery_cnt + 1
            WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
        delivered := delivered + 1;
    END LOOP;
END $$"""

STOCK_LEVEL = """
CREATE OR REPLACE PROCEDURE orders_stock_level(
    p_w int, p_d int, p_threshold int, INOUT low_stock int DEFAULT NULL)
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
    "Payment": "CALL orders_payment(%s, %s, %s, %s, %s, %s, %s, %s)",
    "Order-Status": "CALL orders_order_status(%s, %s, %s, %s)",
    "Delivery": "CALL orders_delivery(%s, %s, %s)",
    "Stock-Level": "CALL orders_stock_level(%s, %s, %s)",
}
