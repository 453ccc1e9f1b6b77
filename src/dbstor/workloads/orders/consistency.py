"""TPC-C's consistency conditions (clause 3.3.2), as queries on any dialect.

Each query counts the warehouses, districts, orders or customers that break its condition,
so a consistent database gives zeros. They hold right after loading and after any run in
which every transaction kept its ACID promises; tests check them after concurrent runs.
Conditions 10 and 12 aggregate every order line per customer and are only run when asked
(deep=True); condition 11 depends on the history of the run and is left out.

Money is compared rounded to the cent on both sides (ROUND(x, 2)): exact DECIMAL sums are
unchanged by it, and SQLite, which keeps a decimal with cents as a binary REAL, compares
what the values mean instead of their last bits (0.10 + 0.20 is 0.30000000000000004 there).
"""

from __future__ import annotations

from typing import Any

_DISTRICT_MAX = "(SELECT MAX({col}) FROM {table} WHERE {w} = d.d_w_id AND {d} = d.d_id)"
_DELIVERED = (
    "SELECT o_w_id AS w, o_d_id AS d, o_c_id AS c, SUM(ol_amount) AS amount FROM orders"
    " JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id"
    " WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id"
)
_PAID = (
    "SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS c, SUM(h_amount) AS amount FROM history"
    " GROUP BY h_c_w_id, h_c_d_id, h_c_id"
)

CONDITIONS: dict[str, str] = {
    "1: w_ytd = sum(d_ytd)": "SELECT COUNT(*) FROM warehouse w"
    " WHERE ROUND(w_ytd, 2) <> (SELECT ROUND(SUM(d_ytd), 2) FROM district WHERE d_w_id = w.w_id)",
    "2: d_next_o_id - 1 = max(o_id) = max(no_o_id)": "SELECT COUNT(*) FROM district d"
    f" WHERE d_next_o_id - 1 <> {_DISTRICT_MAX.format(col='o_id', table='orders', w='o_w_id', d='o_d_id')}"
    f" OR d_next_o_id - 1 <> COALESCE({_DISTRICT_MAX.format(col='no_o_id', table='new_order', w='no_w_id', d='no_d_id')}, d_next_o_id - 1)",
    "3: max(no_o_id) - min(no_o_id) + 1 = new orders": "SELECT COUNT(*) FROM"
    " (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 AS span, COUNT(*) AS n FROM new_order"
    " GROUP BY no_w_id, no_d_id) x WHERE span <> n",
    "4: sum(o_ol_cnt) = order lines": "SELECT COUNT(*) FROM"
    " (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS line_sum FROM orders GROUP BY o_w_id, o_d_id) o"
    " LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line"
    " GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id"
    " WHERE l.n IS NULL OR o.line_sum <> l.n",
    "5: o_carrier_id null = a new order": "SELECT COUNT(*) FROM orders LEFT JOIN new_order"
    " ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id"
    " WHERE (o_carrier_id IS NULL AND no_o_id IS NULL)"
    " OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL)",
    "6: o_ol_cnt = the order's lines": "SELECT COUNT(*) FROM orders LEFT JOIN"
    " (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS n FROM order_line"
    " GROUP BY ol_w_id, ol_d_id, ol_o_id) l"
    " ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id"
    " WHERE l.n IS NULL OR o_ol_cnt <> l.n",
    "7: ol_delivery_d null = o_carrier_id null": "SELECT COUNT(*) FROM order_line JOIN orders"
    " ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id"
    " WHERE (ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL)"
    " OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL)",
    "8: w_ytd = sum(h_amount)": "SELECT COUNT(*) FROM warehouse LEFT JOIN"
    " (SELECT h_w_id, SUM(h_amount) AS paid FROM history GROUP BY h_w_id) h ON h.h_w_id = w_id"
    " WHERE h.paid IS NULL OR ROUND(w_ytd, 2) <> ROUND(h.paid, 2)",
    "9: d_ytd = sum(h_amount)": "SELECT COUNT(*) FROM district LEFT JOIN"
    " (SELECT h_w_id, h_d_id, SUM(h_amount) AS paid FROM history GROUP BY h_w_id, h_d_id) h"
    " ON h.h_w_id = d_w_id AND h.h_d_id = d_id"
    " WHERE h.paid IS NULL OR ROUND(d_ytd, 2) <> ROUND(h.paid, 2)",
}
DEEP: dict[str, str] = {
    "10, 12: c_balance = delivered - paid, c_balance + c_ytd_payment = delivered": (
        "SELECT COUNT(*) FROM customer"
        f" LEFT JOIN ({_DELIVERED}) o ON o.w = c_w_id AND o.d = c_d_id AND o.c = c_id"
        f" LEFT JOIN ({_PAID}) h ON h.w = c_w_id AND h.d = c_d_id AND h.c = c_id"
        " WHERE ROUND(c_balance, 2) <> ROUND(COALESCE(o.amount, 0) - COALESCE(h.amount, 0), 2)"
        " OR ROUND(c_balance + c_ytd_payment, 2) <> ROUND(COALESCE(o.amount, 0), 2)"
    ),
}


def check(conn: Any, deep: bool = False) -> dict[str, int]:
    """Condition -> how many rows break it (all zero: consistent). Ends its transaction."""
    cur = conn.cursor()
    out = {}
    try:
        for name, sql in {**CONDITIONS, **(DEEP if deep else {})}.items():
            cur.execute(sql)
            out[name] = int(cur.fetchone()[0])
    finally:
        conn.commit()
    return out


def broken(conn: Any, deep: bool = False) -> dict[str, int]:
    """Only the conditions that do not hold."""
    return {name: n for name, n in check(conn, deep).items() if n}
