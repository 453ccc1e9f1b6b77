"""TPC-C's nine tables (clause 1.3), in dbstor's neutral column types.

Money, rates and times take the types of TPC-C's clause 1.3.1: W_YTD, D_YTD, C_CREDIT_LIM,
C_BALANCE and C_YTD_PAYMENT signed numeric(12,2), H_AMOUNT and OL_AMOUNT signed
numeric(6,2), I_PRICE numeric(5,2), the tax and discount rates signed numeric(4,4), and
C_SINCE, H_DATE, O_ENTRY_D and OL_DELIVERY_D a date and time ('dec:P:S' and 'datetime',
each dialect's DECIMAL and date-and-time type). Counts and quantities are integers, as
TPC-C's numeric(N). TPC-C's ORDER table is
`orders` (ORDER is a keyword everywhere). Keys are TPC-C's primary keys; history has none,
as in TPC-C. Two secondary indexes: TPC-C's customer name index for the 60% of Payments and
Order-Statuses that look a customer up by last name, and one on orders by customer for
Order-Status's latest order (HammerDB builds both).
"""

from __future__ import annotations

from dbstor.workloads.tables import Table, table

_ADDRESS = (
    "{p}_street_1 str:20, {p}_street_2 str:20, {p}_city str:20, {p}_state str:2, {p}_zip str:9"
)
_DISTS = ", ".join(f"s_dist_{d:02d} str:24" for d in range(1, 11))

# In placement order: engine.placement(i) spreads them round-robin over the data paths, so
# the big ones come first and land on different files.
TABLES: tuple[Table, ...] = (
    table(
        "order_line",
        "ol_o_id int, ol_d_id small, ol_w_id int, ol_number small, ol_i_id int,"
        "ol_supply_w_id int, ol_delivery_d datetime?, ol_quantity small, ol_amount dec:6:2,"
        "ol_dist_info str:24",
        "ol_w_id ol_d_id ol_o_id ol_number",
    ),
    table(
        "stock",
        f"s_i_id int, s_w_id int, s_quantity small, {_DISTS}, s_ytd int, s_order_cnt small,"
        "s_remote_cnt small, s_data str:50",
        "s_w_id s_i_id",
    ),
    table(
        "customer",
        "c_id int, c_d_id small, c_w_id int, c_first str:16, c_middle str:2, c_last str:16,"
        f"{_ADDRESS.format(p='c')}, c_phone str:16, c_since datetime, c_credit str:2,"
        "c_credit_lim dec:12:2, c_discount dec:4:4, c_balance dec:12:2, c_ytd_payment dec:12:2,"
        "c_payment_cnt int, c_delivery_cnt int, c_data str:500",
        "c_w_id c_d_id c_id",
        ("customer_name", "c_w_id c_d_id c_last c_first"),
    ),
    table(
        "orders",
        "o_id int, o_d_id small, o_w_id int, o_c_id int, o_entry_d datetime, o_carrier_id small?,"
        "o_ol_cnt small, o_all_local small",
        "o_w_id o_d_id o_id",
        ("orders_customer", "o_w_id o_d_id o_c_id o_id"),
    ),
    table(
        "history",
        "h_c_id int, h_c_d_id small, h_c_w_id int, h_d_id small, h_w_id int, h_date datetime,"
        "h_amount dec:6:2, h_data str:24",
        "",
    ),
    table("new_order", "no_o_id int, no_d_id small, no_w_id int", "no_w_id no_d_id no_o_id"),
    table("item", "i_id int, i_im_id int, i_name str:24, i_price dec:5:2, i_data str:50", "i_id"),
    table(
        "district",
        f"d_id small, d_w_id int, d_name str:10, {_ADDRESS.format(p='d')}, d_tax dec:4:4,"
        "d_ytd dec:12:2, d_next_o_id int",
        "d_w_id d_id",
    ),
    table(
        "warehouse",
        f"w_id int, w_name str:10, {_ADDRESS.format(p='w')}, w_tax dec:4:4, w_ytd dec:12:2",
        "w_id",
    ),
)
TABLE = {t.name: t for t in TABLES}
