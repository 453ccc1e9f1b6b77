"""Every statement the client-side transactions run, written once.

Statements use `?` placeholders and three markers, rendered per dialect:
  {for_update}  ' FOR UPDATE' on PostgreSQL and MariaDB; nothing on SQLite, whose writing
                transactions hold the database's write lock from BEGIN IMMEDIATE instead
  {in}          a list of placeholders of the length the call needs (IN lists)
  {dist}        the stock column s_dist_01..s_dist_10 of the order's district
PostgreSQL (psycopg) and MariaDB (mysqlclient) take `%s` placeholders. No statement holds a
literal '%' or '?', so the rendering is a plain substitution.
"""

from __future__ import annotations

from functools import cache

from dbstor.dialects import registry

_CUSTOMER_KEY = "c_w_id = ? AND c_d_id = ? AND c_id = ?"
_ADDRESS = "{p}_street_1, {p}_street_2, {p}_city, {p}_state, {p}_zip"

STATEMENTS: dict[str, str] = {
    # New-Order (clause 2.4.2)
    "no_warehouse": "SELECT w_tax FROM warehouse WHERE w_id = ?",
    "no_district": "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"
    "{for_update}",
    "no_next_order": "UPDATE district SET d_next_o_id = d_next_o_id + 1"
    " WHERE d_w_id = ? AND d_id = ?",
    "no_customer": f"SELECT c_discount, c_last, c_credit FROM customer WHERE {_CUSTOMER_KEY}",
    "no_order": "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id,"
    " o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
    "no_new_order": "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
    "no_items": "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ({in})",
    "no_stock": "SELECT s_i_id, s_quantity, {dist}, s_data FROM stock"
    " WHERE s_w_id = ? AND s_i_id IN ({in}) ORDER BY s_i_id{for_update}",
    "no_stock_update": "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?,"
    " s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ?"
    " WHERE s_w_id = ? AND s_i_id = ?",
    "no_line": "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id,"
    " ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",  # only placeholders: mysqlclient folds executemany
    # Payment (clause 2.5.2)
    "pay_warehouse": "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
    "pay_warehouse_read": f"SELECT w_name, {_ADDRESS.format(p='w')} FROM warehouse WHERE w_id = ?",
    "pay_district": "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
    "pay_district_read": f"SELECT d_name, {_ADDRESS.format(p='d')} FROM district"
    " WHERE d_w_id = ? AND d_id = ?",
    "by_name": "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?"
    " ORDER BY c_first, c_id",
    "pay_customer": f"SELECT c_first, c_middle, c_last, {_ADDRESS.format(p='c')}, c_phone,"
    " c_since, c_credit, c_credit_lim, c_discount, c_balance, c_data FROM customer"
    f" WHERE {_CUSTOMER_KEY}{{for_update}}",
    "pay_customer_update": "UPDATE customer SET c_balance = c_balance - ?,"
    " c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1"
    f" WHERE {_CUSTOMER_KEY}",
    "pay_customer_update_bc": "UPDATE customer SET c_balance = c_balance - ?,"
    " c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ?"
    f" WHERE {_CUSTOMER_KEY}",
    "pay_history": "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date,"
    " h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    # Order-Status (clause 2.6.2)
    "os_customer": "SELECT c_balance, c_first, c_middle, c_last FROM customer"
    f" WHERE {_CUSTOMER_KEY}",
    "os_order": "SELECT o_id, o_entry_d, o_carrier_id FROM orders"
    " WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
    "os_lines": "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d"
    " FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
    # Delivery (clause 2.7.4)
    "dl_oldest": "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ?"
    " ORDER BY no_o_id LIMIT 1{for_update}",
    "dl_delete": "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
    "dl_owner": "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
    "dl_carrier": "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
    "dl_lines": "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ?"
    " AND ol_o_id = ?",
    "dl_amount": "SELECT COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id = ?"
    " AND ol_d_id = ? AND ol_o_id = ?",
    "dl_customer": "UPDATE customer SET c_balance = c_balance + ?,"
    f" c_delivery_cnt = c_delivery_cnt + 1 WHERE {_CUSTOMER_KEY}",
    # Stock-Level (clause 2.8.2)
    "sl_next_order": "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
    "sl_low_stock": "SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock"
    " ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = ? AND ol_d_id = ?"
    " AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?",
}


def render(text: str, dialect: str, count: int = 0, district: int = 1) -> str:
    """A statement for a dialect; `count` placeholders replace {in}, the district's stock
    column {dist}."""
    own = registry.for_workload(dialect, "orders")
    text = text.replace("{in}", ", ".join(["?"] * count))
    return own.render(text.replace("{dist}", f"s_dist_{district:02d}"))


@cache
def statement(dialect: str, name: str, count: int = 0, district: int = 1) -> str:
    """The rendered statement `name` for a dialect (cached)."""
    return render(STATEMENTS[name], dialect, count, district)
