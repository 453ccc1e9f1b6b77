"""The orders workload in T-SQL (SQL Server): the five transactions as stored procedures,
one EXEC each, as HammerDB installs them for SQL Server (neword, payment, delivery,
ostat, slev), here reading and writing what workloads/orders/client.py does.

They are called on an autocommit connection and run their own BEGIN TRANSACTION ...
COMMIT under SET XACT_ABORT ON, so one EXEC is one transaction and any error rolls it
back and reaches the client (1205, a deadlock victim, is retried as on the client path).
Locking reads take UPDLOCK, as the client's FOR UPDATE. Each ends with one result row.
New-Order's item lists come as comma-separated text, taken apart one item at a time;
an unused item stops the loop and rolls the order back (its first column 1). Money
parameters and variables are DECIMAL of their columns' sizes, times DATETIME2(0), as the
columns.
"""

from __future__ import annotations

from dbstor.dialects.procedures import OrdersCaller, item_lines

__all__ = ["Caller", "item_lines"]

_DIST = "CASE @p_d " + " ".join(f"WHEN {d} THEN s_dist_{d:02d}" for d in range(1, 10))
_DIST += " ELSE s_dist_10 END"


def _pop(var: str, rest: str) -> str:
    """Statements moving the first number of the comma-terminated list @rest into @var."""
    return (
        f"SET @pos = CHARINDEX(',', {rest});\n"
        f"        SET {var} = CAST(LEFT({rest}, @pos - 1) AS INT);\n"
        f"        SET {rest} = SUBSTRING({rest}, @pos + 1, 8000);"
    )


_PICK_CUSTOMER = """
    IF @p_c_last IS NOT NULL
    BEGIN
        SELECT @n = COUNT(*) FROM customer
            WHERE c_w_id = @p_c_w AND c_d_id = @p_c_d AND c_last = @p_c_last;
        SET @n = (CASE WHEN @n < 1 THEN 1 ELSE @n END - 1) / 2;
        SELECT @c = c_id FROM customer
            WHERE c_w_id = @p_c_w AND c_d_id = @p_c_d AND c_last = @p_c_last
            ORDER BY c_first, c_id OFFSET @n ROWS FETCH NEXT 1 ROWS ONLY;
    END;
"""

NEW_ORDER = f"""
CREATE OR ALTER PROCEDURE orders_new_order @p_w INT, @p_d INT, @p_c INT, @p_entry DATETIME2(0),
    @p_items VARCHAR(255), @p_supply VARCHAR(255), @p_qty VARCHAR(255)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @w_tax DECIMAL(4,4), @d_tax DECIMAL(4,4), @o_id INT, @discount DECIMAL(4,4),
        @last VARCHAR(16), @credit VARCHAR(2), @count INT, @i INT, @pos INT, @item INT,
        @supply INT, @qty INT, @price DECIMAL(5,2), @name VARCHAR(24), @idata VARCHAR(50), @stock INT, @dist VARCHAR(24),
        @sdata VARCHAR(50);
    DECLARE @all_local INT = 1;
    DECLARE @unused INT = 0;
    DECLARE @items VARCHAR(256) = @p_items + ',';
    DECLARE @supplies VARCHAR(256) = @p_supply + ',';
    DECLARE @qtys VARCHAR(256) = @p_qty + ',';
    DECLARE @check VARCHAR(256) = @p_supply + ',';
    BEGIN TRANSACTION;
    SELECT @w_tax = w_tax FROM warehouse WHERE w_id = @p_w;
    SELECT @d_tax = d_tax, @o_id = d_next_o_id FROM district WITH (UPDLOCK, ROWLOCK)
        WHERE d_w_id = @p_w AND d_id = @p_d;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = @p_w AND d_id = @p_d;
    SELECT @discount = c_discount, @last = c_last, @credit = c_credit FROM customer
        WHERE c_w_id = @p_w AND c_d_id = @p_d AND c_id = @p_c;
    SET @count = 1 + LEN(@p_items) - LEN(REPLACE(@p_items, ',', ''));
    SET @i = 1;
    WHILE @i <= @count
    BEGIN
        {_pop("@supply", "@check")}
        IF @supply <> @p_w BEGIN SET @all_local = 0; END;
        SET @i = @i + 1;
    END;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
        o_all_local) VALUES (@o_id, @p_d, @p_w, @p_c, @p_entry, NULL, @count, @all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @p_d, @p_w);
    SET @i = 1;
    WHILE @i <= @count AND @unused = 0
    BEGIN
        {_pop("@item", "@items")}
        {_pop("@supply", "@supplies")}
        {_pop("@qty", "@qtys")}
        SELECT @price = i_price, @name = i_name, @idata = i_data FROM item WHERE i_id = @item;
        IF @@ROWCOUNT = 0 BEGIN SET @unused = 1; END;
        IF @unused = 0
        BEGIN
        SELECT @stock = s_quantity, @dist = {_DIST}, @sdata = s_data
            FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_w_id = @supply AND s_i_id = @item;
        SET @stock = @stock - @qty;
        IF @stock < 10 BEGIN SET @stock = @stock + 91; END;
        UPDATE stock SET s_quantity = @stock, s_ytd = s_ytd + @qty,
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + CASE WHEN @supply <> @p_w THEN 1 ELSE 0 END
            WHERE s_w_id = @supply AND s_i_id = @item;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
            VALUES (@o_id, @p_d, @p_w, @i, @item, @supply, NULL, @qty, @qty * @price, @dist);
        END;
        SET @i = @i + 1;
    END;
    IF @unused = 1 BEGIN ROLLBACK TRANSACTION; END;
    IF @unused = 0 BEGIN COMMIT TRANSACTION; END;
    SELECT @unused, @o_id;
END"""

PAYMENT = f"""
CREATE OR ALTER PROCEDURE orders_payment @p_w INT, @p_d INT, @p_c_w INT, @p_c_d INT,
    @p_c INT, @p_c_last VARCHAR(16), @p_amount DECIMAL(6,2), @p_date DATETIME2(0)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @c INT = @p_c;
    DECLARE @n INT, @w_name VARCHAR(10), @d_name VARCHAR(10), @street_1 VARCHAR(20),
        @street_2 VARCHAR(20), @city VARCHAR(20), @state VARCHAR(2), @zip VARCHAR(9),
        @credit VARCHAR(2), @balance DECIMAL(12,2), @data VARCHAR(500);
    BEGIN TRANSACTION;
    UPDATE warehouse SET w_ytd = w_ytd + @p_amount WHERE w_id = @p_w;
    SELECT @w_name = w_name, @street_1 = w_street_1, @street_2 = w_street_2, @city = w_city,
        @state = w_state, @zip = w_zip FROM warehouse WHERE w_id = @p_w;
    UPDATE district SET d_ytd = d_ytd + @p_amount WHERE d_w_id = @p_w AND d_id = @p_d;
    SELECT @d_name = d_name, @street_1 = d_street_1, @street_2 = d_street_2, @city = d_city,
        @state = d_state, @zip = d_zip FROM district WHERE d_w_id = @p_w AND d_id = @p_d;
{_PICK_CUSTOMER}
    SELECT @credit = c_credit, @balance = c_balance, @data = c_data
        FROM customer WITH (UPDLOCK, ROWLOCK)
        WHERE c_w_id = @p_c_w AND c_d_id = @p_c_d AND c_id = @c;
    IF @credit = 'BC'
    BEGIN
        UPDATE customer SET c_balance = c_balance - @p_amount,
            c_ytd_payment = c_ytd_payment + @p_amount, c_payment_cnt = c_payment_cnt + 1,
            c_data = SUBSTRING(CONCAT(@c, ' ', @p_c_d, ' ', @p_c_w, ' ', @p_d, ' ', @p_w, ' ',
                @p_amount, ' ', @data), 1, 500)
            WHERE c_w_id = @p_c_w AND c_d_id = @p_c_d AND c_id = @c;
    END;
    IF @credit <> 'BC'
    BEGIN
        UPDATE customer SET c_balance = c_balance - @p_amount,
            c_ytd_payment = c_ytd_payment + @p_amount, c_payment_cnt = c_payment_cnt + 1
            WHERE c_w_id = @p_c_w AND c_d_id = @p_c_d AND c_id = @c;
    END;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
        VALUES (@c, @p_c_d, @p_c_w, @p_d, @p_w, @p_date, @p_amount,
            CONCAT(@w_name, '    ', @d_name));
    COMMIT TRANSACTION;
    SELECT @c;
END"""

ORDER_STATUS = f"""
CREATE OR ALTER PROCEDURE orders_order_status @p_c_w INT, @p_c_d INT, @p_c INT,
    @p_c_last VARCHAR(16)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @c INT = @p_c;
    DECLARE @n INT, @o INT, @carrier INT, @lines INT, @entry DATETIME2(0),
        @balance DECIMAL(12,2), @amount DECIMAL(12,2), @delivery DATETIME2(0),
        @first VARCHAR(16), @last VARCHAR(16),
        @middle VARCHAR(2), @items BIGINT, @supply BIGINT, @qty BIGINT;
{_PICK_CUSTOMER}
    SELECT @balance = c_balance, @first = c_first, @middle = c_middle, @last = c_last
        FROM customer WHERE c_w_id = @p_c_w AND c_d_id = @p_c_d AND c_id = @c;
    SELECT TOP (1) @o = o_id, @entry = o_entry_d, @carrier = o_carrier_id FROM orders
        WHERE o_w_id = @p_c_w AND o_d_id = @p_c_d AND o_c_id = @c ORDER BY o_id DESC;
    IF @o IS NOT NULL
    BEGIN
        SELECT @lines = COUNT(*), @items = SUM(ol_i_id), @supply = SUM(ol_supply_w_id),
            @qty = SUM(ol_quantity), @amount = SUM(ol_amount), @delivery = MAX(ol_delivery_d)
            FROM order_line WHERE ol_w_id = @p_c_w AND ol_d_id = @p_c_d AND ol_o_id = @o;
    END;
    SELECT @c, @o, @lines;
END"""

DELIVERY = """
CREATE OR ALTER PROCEDURE orders_delivery @p_w INT, @p_carrier INT, @p_date DATETIME2(0)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @d INT = 1;
    DECLARE @delivered INT = 0;
    DECLARE @o INT, @c INT, @amount DECIMAL(12,2);
    BEGIN TRANSACTION;
    WHILE @d <= 10
    BEGIN
        SET @o = NULL;
        SELECT TOP (1) @o = no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK)
            WHERE no_w_id = @p_w AND no_d_id = @d ORDER BY no_o_id;
        IF @o IS NOT NULL
        BEGIN
            DELETE FROM new_order WHERE no_w_id = @p_w AND no_d_id = @d AND no_o_id = @o;
            SELECT @c = o_c_id FROM orders WHERE o_w_id = @p_w AND o_d_id = @d AND o_id = @o;
            UPDATE orders SET o_carrier_id = @p_carrier
                WHERE o_w_id = @p_w AND o_d_id = @d AND o_id = @o;
            UPDATE order_line SET ol_delivery_d = @p_date
                WHERE ol_w_id = @p_w AND ol_d_id = @d AND ol_o_id = @o;
            SELECT @amount = COALESCE(SUM(ol_amount), 0) FROM order_line
                WHERE ol_w_id = @p_w AND ol_d_id = @d AND ol_o_id = @o;
            UPDATE customer SET c_balance = c_balance + @amount,
                c_delivery_cnt = c_delivery_cnt + 1
                WHERE c_w_id = @p_w AND c_d_id = @d AND c_id = @c;
            SET @delivered = @delivered + 1;
        END;
        SET @d = @d + 1;
    END;
    COMMIT TRANSACTION;
    SELECT @delivered;
END"""

STOCK_LEVEL = """
CREATE OR ALTER PROCEDURE orders_stock_level @p_w INT, @p_d INT, @p_threshold INT
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @next INT, @low INT;
    SELECT @next = d_next_o_id FROM district WHERE d_w_id = @p_w AND d_id = @p_d;
    SELECT @low = COUNT(DISTINCT s_i_id) FROM order_line JOIN stock
        ON s_w_id = ol_w_id AND s_i_id = ol_i_id
        WHERE ol_w_id = @p_w AND ol_d_id = @p_d AND ol_o_id < @next AND ol_o_id >= @next - 20
        AND s_quantity < @p_threshold;
    SELECT @low;
END"""

DDL = [NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL]

CALLS = {
    "New-Order": "EXEC orders_new_order %s, %s, %s, %s, %s, %s, %s",
    "Payment": "EXEC orders_payment %s, %s, %s, %s, %s, %s, %s, %s",
    "Order-Status": "EXEC orders_order_status %s, %s, %s, %s",
    "Delivery": "EXEC orders_delivery %s, %s, %s",
    "Stock-Level": "EXEC orders_stock_level %s, %s, %s",
}


class Caller(OrdersCaller):
    """EXECs through a pymssql cursor on one autocommit connection."""

    CALLS = CALLS


def named_call(call: str, pairs: list[tuple[str, str]], outs: list[str]) -> list[str]:
    """`dbstor sql`'s call with named arguments (name, literal): EXEC proc @p = v."""
    return [" ".join(call.split()[:2]) + " " + ", ".join(f"{n} = {v}" for n, v in pairs)]
