"""The orders workload in PL/SQL, as HammerDB installs it on Oracle: five stored
procedures, NEWORD, PAYMENT, DELIVERY, OSTAT and SLEV, one anonymous block calling each.

Variables take their columns' types (%TYPE), as HammerDB's do. Each procedure is one
transaction: it ends with its own COMMIT, and any error rolls it
back and reaches the client unchanged (WHEN OTHERS THEN ROLLBACK; RAISE), so ORA-00060
(deadlock) and ORA-08177 (serialization) are retried as on the client path. The last
parameter is OUT: New-Order's status (0 committed, 1 rolled back for its unused item),
Payment's and Order-Status's customer, Delivery's orders delivered, Stock-Level's count.
New-Order's item lists come as comma-separated text, split with REGEXP_SUBSTR. Statements
and their order follow workloads/orders/client.py, so both paths have the same effects.
NOPM comes from sum(d_next_o_id), as on every dialect. Times are DATE (a date and a
time of day), money NUMBER; Payment notes the amount in c_data with its two places
(TO_CHAR 'FM99990.00': 1.00, not Oracle's default 1), as the client does.
"""

from __future__ import annotations

from dbstor.dialects.procedures import OrdersCaller, OutBind, item_lines

__all__ = ["Caller", "item_lines"]

_DIST = "CASE p_d " + " ".join(f"WHEN {d} THEN s_dist_{d:02d}" for d in range(1, 10))
_DIST += " ELSE s_dist_10 END"
_NTH = "TO_NUMBER(REGEXP_SUBSTR({csv}, '[^,]+', 1, v_i))"
_ON_ERROR = """EXCEPTION
    WHEN OTHERS THEN
        ROLLBACK;
        RAISE;"""

_PICK_CUSTOMER = """
    IF p_c_last IS NOT NULL THEN
        SELECT COUNT(*) INTO v_n FROM customer
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
        v_n := TRUNC((GREATEST(v_n, 1) - 1) / 2);
        SELECT c_id INTO v_c FROM customer
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
            ORDER BY c_first, c_id OFFSET v_n ROWS FETCH NEXT 1 ROWS ONLY;
    END IF;"""

NEW_ORDER = f"""CREATE OR REPLACE PROCEDURE NEWORD(p_w NUMBER, p_d NUMBER, p_c NUMBER,
    p_entry DATE, p_items VARCHAR2, p_supply VARCHAR2, p_qty VARCHAR2, p_status OUT NUMBER)
AS
    v_w_tax NUMBER; v_d_tax NUMBER; v_discount NUMBER; v_o_id NUMBER; v_count NUMBER;
    v_i NUMBER; v_item NUMBER; v_supply NUMBER; v_qty NUMBER; v_stock NUMBER;
    v_all_local NUMBER := 1; v_price NUMBER;
    v_last customer.c_last%TYPE; v_credit customer.c_credit%TYPE;
    v_name item.i_name%TYPE; v_idata item.i_data%TYPE;
    v_dist stock.s_dist_01%TYPE; v_sdata stock.s_data%TYPE;
BEGIN
    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w;
    SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district
        WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
    SELECT c_discount, c_last, c_credit INTO v_discount, v_last, v_credit FROM customer
        WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
    v_count := REGEXP_COUNT(p_items, ',') + 1;
    FOR v_i IN 1..v_count LOOP
        IF {_NTH.format(csv="p_supply")} <> p_w THEN
            v_all_local := 0;
        END IF;
    END LOOP;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
        o_all_local) VALUES (v_o_id, p_d, p_w, p_c, p_entry, NULL, v_count, v_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
    FOR v_i IN 1..v_count LOOP
        v_item := {_NTH.format(csv="p_items")};
        v_supply := {_NTH.format(csv="p_supply")};
        v_qty := {_NTH.format(csv="p_qty")};
        BEGIN
            SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item
                WHERE i_id = v_item;
        EXCEPTION
            WHEN NO_DATA_FOUND THEN
                ROLLBACK;
                p_status := 1;
                RETURN;
        END;
        SELECT s_quantity, {_DIST}, s_data INTO v_stock, v_dist, v_sdata FROM stock
            WHERE s_w_id = v_supply AND s_i_id = v_item FOR UPDATE;
        v_stock := v_stock - v_qty;
        IF v_stock < 10 THEN
            v_stock := v_stock + 91;
        END IF;
        UPDATE stock SET s_quantity = v_stock, s_ytd = s_ytd + v_qty,
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + CASE WHEN v_supply <> p_w THEN 1 ELSE 0 END
            WHERE s_w_id = v_supply AND s_i_id = v_item;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
            VALUES (v_o_id, p_d, p_w, v_i, v_item, v_supply, NULL, v_qty, v_qty * v_price,
                v_dist);
    END LOOP;
    COMMIT;
    p_status := 0;
{_ON_ERROR}
END;"""

PAYMENT = f"""CREATE OR REPLACE PROCEDURE PAYMENT(p_w NUMBER, p_d NUMBER, p_c_w NUMBER,
    p_c_d NUMBER, p_c NUMBER, p_c_last VARCHAR2, p_amount NUMBER, p_date DATE,
    p_paid OUT NUMBER)
AS
    v_c NUMBER := p_c; v_n NUMBER;
    v_w_name warehouse.w_name%TYPE; v_d_name district.d_name%TYPE;
    v_credit customer.c_credit%TYPE; v_balance NUMBER; v_data customer.c_data%TYPE;
BEGIN
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
    SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
    SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w AND d_id = p_d;
{_PICK_CUSTOMER}
    SELECT c_credit, c_balance, c_data INTO v_credit, v_balance, v_data FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c FOR UPDATE;
    IF v_credit = 'BC' THEN
        UPDATE customer SET c_balance = c_balance - p_amount,
            c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,
            c_data = SUBSTR(v_c || ' ' || p_c_d || ' ' || p_c_w || ' ' || p_d || ' ' || p_w
                || ' ' || TO_CHAR(p_amount, 'FM99990.00') || ' ' || v_data, 1, 500)
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    ELSE
        UPDATE customer SET c_balance = c_balance - p_amount,
            c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1
            WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    END IF;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
        VALUES (v_c, p_c_d, p_c_w, p_d, p_w, p_date, p_amount, v_w_name || '    ' || v_d_name);
    COMMIT;
    p_paid := v_c;
{_ON_ERROR}
END;"""

ORDER_STATUS = f"""CREATE OR REPLACE PROCEDURE OSTAT(p_c_w NUMBER, p_c_d NUMBER, p_c NUMBER,
    p_c_last VARCHAR2, p_found OUT NUMBER)
AS
    v_c NUMBER := p_c; v_n NUMBER; v_o NUMBER; v_entry orders.o_entry_d%TYPE;
    v_carrier NUMBER;
    v_balance NUMBER; v_first customer.c_first%TYPE; v_middle customer.c_middle%TYPE;
    v_last customer.c_last%TYPE;
    v_lines NUMBER; v_items NUMBER; v_supply NUMBER; v_qty NUMBER; v_amount NUMBER;
    v_delivery order_line.ol_delivery_d%TYPE;
BEGIN
{_PICK_CUSTOMER}
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
        FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
    BEGIN
        SELECT o_id, o_entry_d, o_carrier_id INTO v_o, v_entry, v_carrier FROM orders
            WHERE o_w_id = p_c_w AND o_d_id = p_c_d AND o_c_id = v_c
            ORDER BY o_id DESC FETCH FIRST 1 ROWS ONLY;
    EXCEPTION
        WHEN NO_DATA_FOUND THEN
            v_o := NULL;
    END;
    IF v_o IS NOT NULL THEN
        SELECT COUNT(*), SUM(ol_i_id), SUM(ol_supply_w_id), SUM(ol_quantity), SUM(ol_amount),
            MAX(ol_delivery_d) INTO v_lines, v_items, v_supply, v_qty, v_amount, v_delivery
            FROM order_line WHERE ol_w_id = p_c_w AND ol_d_id = p_c_d AND ol_o_id = v_o;
    END IF;
    COMMIT;
    p_found := v_c;
{_ON_ERROR}
END;"""

DELIVERY = f"""CREATE OR REPLACE PROCEDURE DELIVERY(p_w NUMBER, p_carrier NUMBER,
    p_date DATE, p_delivered OUT NUMBER)
AS
    v_o NUMBER; v_c NUMBER; v_amount NUMBER;
BEGIN
    p_delivered := 0;
    FOR v_d IN 1..10 LOOP
        BEGIN
            SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
                AND no_o_id = (SELECT MIN(no_o_id) FROM new_order
                    WHERE no_w_id = p_w AND no_d_id = v_d)
                FOR UPDATE;
        EXCEPTION
            WHEN NO_DATA_FOUND THEN
                v_o := NULL;
        END;
        IF v_o IS NOT NULL THEN
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
            p_delivered := p_delivered + 1;
        END IF;
    END LOOP;
    COMMIT;
{_ON_ERROR}
END;"""

STOCK_LEVEL = f"""CREATE OR REPLACE PROCEDURE SLEV(p_w NUMBER, p_d NUMBER, p_threshold NUMBER,
    p_low OUT NUMBER)
AS
    v_next NUMBER;
BEGIN
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
    SELECT COUNT(DISTINCT s_i_id) INTO p_low FROM order_line JOIN stock
        ON s_w_id = ol_w_id AND s_i_id = ol_i_id
        WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
        AND s_quantity < p_threshold;
    COMMIT;
{_ON_ERROR}
END;"""

DDL = [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL]
PROCEDURES = {  # transaction -> (procedure, its IN parameters; one OUT parameter follows)
    "New-Order": ("NEWORD", 7),
    "Payment": ("PAYMENT", 8),
    "Order-Status": ("OSTAT", 4),
    "Delivery": ("DELIVERY", 3),
    "Stock-Level": ("SLEV", 3),
}


def call_block(procedure: str, inputs: int) -> str:
    """The anonymous block that calls a procedure: IN binds :b1..:bn, the OUT bind last."""
    binds = ", ".join(f":b{i}" for i in range(1, inputs + 2))
    return f"BEGIN {procedure}({binds}); END;"


CALLS = {name: call_block(proc, n) for name, (proc, n) in PROCEDURES.items()}


class Caller(OutBind, OrdersCaller):
    """One anonymous block per transaction on an autocommit connection; the OUT value
    comes back in a bind variable."""

    CALLS = CALLS


def named_call(call: str, pairs: list[tuple[str, str]], outs: list[str]) -> list[str]:
    """`dbstor sql`'s call with named arguments (name, literal): named notation in an
    anonymous block, each OUT argument into a variable it declares."""
    procedure = call.split()[1].split("(")[0]
    args = [f"{n} => {v}" for n, v in pairs] + [f"{n} => v_{n}" for n in outs]
    declare = " ".join(f"v_{n} NUMBER;" for n in outs)
    return [f"DECLARE {declare} BEGIN {procedure}({', '.join(args)}); END;"]
