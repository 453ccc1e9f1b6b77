"""Every statement the ten transactions run, written once.

Statements use `?` placeholders and two markers, rendered per dialect:
  {for_update}  ' FOR UPDATE' on PostgreSQL and MariaDB; nothing on SQLite, whose writing
                transactions hold the database's write lock from BEGIN IMMEDIATE instead
  {in}          a list of placeholders of the length the call needs (IN lists)
PostgreSQL (psycopg) and MariaDB (mysqlclient) take `%s` placeholders. The one statement that
differs beyond that is the holding-summary upsert (ON CONFLICT vs ON DUPLICATE KEY).
No statement holds a literal '%' or '?', so the rendering is a plain substitution.
"""

from __future__ import annotations

from functools import cache

from dbstor.dialects import registry

STATEMENTS: dict[str, str] = {
    # Trade-Status
    "ts_trades": "SELECT t_id, t_dts, st_name, tt_name, t_s_symb, t_qty, t_exec_name, t_chrg,"
    " s_name, s_ex_id FROM trade JOIN status_type ON st_id = t_st_id"
    " JOIN trade_type ON tt_id = t_tt_id JOIN security ON s_symb = t_s_symb"
    " WHERE t_ca_id = ? ORDER BY t_dts DESC LIMIT 50",
    "ts_names": "SELECT c_l_name, c_f_name, b_name FROM customer_account"
    " JOIN customer ON c_id = ca_c_id JOIN broker ON b_id = ca_b_id WHERE ca_id = ?",
    # Market-Watch: old and new market capitalisation of a list of securities
    "mw_watch_list": "SELECT COUNT(*), SUM(lt_price * s_num_out), SUM(dm_close * s_num_out)"
    " FROM watch_item JOIN last_trade ON lt_s_symb = wi_s_symb"
    " JOIN security ON s_symb = wi_s_symb"
    " JOIN daily_market ON dm_s_symb = wi_s_symb AND dm_date = ? WHERE wi_c_id = ?",
    "mw_holdings": "SELECT COUNT(*), SUM(lt_price * s_num_out), SUM(dm_close * s_num_out)"
    " FROM holding_summary JOIN last_trade ON lt_s_symb = hs_s_symb"
    " JOIN security ON s_symb = hs_s_symb"
    " JOIN daily_market ON dm_s_symb = hs_s_symb AND dm_date = ? WHERE hs_ca_id = ?",
    "mw_industry": "SELECT COUNT(*), SUM(lt_price * s_num_out), SUM(dm_close * s_num_out)"
    " FROM company JOIN security ON s_co_id = co_id JOIN last_trade ON lt_s_symb = s_symb"
    " JOIN daily_market ON dm_s_symb = s_symb AND dm_date = ?"
    " WHERE co_industry = ? AND co_id BETWEEN ? AND ?",
    # Security-Detail
    "sd_security": "SELECT s_name, co_id, co_name, co_industry, co_sp_rate, co_ceo, co_desc,"
    " co_open_date, s_num_out, s_start_date, s_pe, s_52wk_high, s_52wk_low, s_dividend,"
    " s_yield, s_ex_id FROM security JOIN company ON co_id = s_co_id WHERE s_symb = ?",
    "sd_competitors": "SELECT co_id, co_name FROM company WHERE co_industry = ? AND co_id <> ?"
    " ORDER BY co_id LIMIT 3",
    "sd_daily": "SELECT dm_date, dm_close, dm_high, dm_low, dm_vol FROM daily_market"
    " WHERE dm_s_symb = ? AND dm_date >= ? ORDER BY dm_date LIMIT ?",
    "sd_last": "SELECT lt_price, lt_open_price, lt_vol FROM last_trade WHERE lt_s_symb = ?",
    # Customer-Position
    "cp_by_tax_id": "SELECT c_id FROM customer WHERE c_tax_id = ?",
    "cp_customer": "SELECT c_st_id, c_l_name, c_f_name, c_m_name, c_gndr, c_tier, c_dob, c_area,"
    " c_local, c_email FROM customer WHERE c_id = ?",
    "cp_assets": "SELECT ca_id, ca_bal, COALESCE(SUM(hs_qty * lt_price), 0) AS assets"
    " FROM customer_account LEFT JOIN holding_summary ON hs_ca_id = ca_id"
    " LEFT JOIN last_trade ON lt_s_symb = hs_s_symb WHERE ca_c_id = ?"
    " GROUP BY ca_id, ca_bal ORDER BY assets LIMIT 10",
    "cp_history": "SELECT t.t_id, t.t_s_symb, t.t_qty, st_name, th_dts"
    " FROM (SELECT t_id FROM trade WHERE t_ca_id = ? ORDER BY t_dts DESC LIMIT 10) recent"
    " JOIN trade t ON t.t_id = recent.t_id JOIN trade_history ON th_t_id = t.t_id"
    " JOIN status_type ON st_id = th_st_id ORDER BY th_dts DESC LIMIT 30",
    # Trade-Order
    "to_account": "SELECT ca_name, ca_b_id, ca_c_id, ca_tax_st FROM customer_account WHERE ca_id = ?",
    "to_customer": "SELECT c_f_name, c_l_name, c_tier, c_tax_id FROM customer WHERE c_id = ?",
    "to_broker": "SELECT b_name FROM broker WHERE b_id = ?",
    "to_security": "SELECT s_name, s_ex_id, co_name FROM security JOIN company ON co_id = s_co_id"
    " WHERE s_symb = ?",
    "to_trade_type": "SELECT tt_is_mrkt, tt_is_sell FROM trade_type WHERE tt_id = ?",
    "holding_qty": "SELECT hs_qty FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?",
    "to_lots_fifo": "SELECT h_qty, h_price FROM holding WHERE h_ca_id = ? AND h_s_symb = ?"
    " ORDER BY h_dts",
    "to_lots_lifo": "SELECT h_qty, h_price FROM holding WHERE h_ca_id = ? AND h_s_symb = ?"
    " ORDER BY h_dts DESC",
    "last_price": "SELECT lt_price FROM last_trade WHERE lt_s_symb = ?",
    "submitted": "SELECT t_id FROM trade WHERE t_id >= ? AND t_st_id = 'SBMT' ORDER BY t_id",
    "claim_ids": "UPDATE id_block SET ib_next = ib_next + ? WHERE ib_name = 'trade'",
    "read_ids": "SELECT ib_next FROM id_block WHERE ib_name = 'trade'",
    "insert_trade": "INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb,"
    " t_qty, t_bid_price, t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, 0, 0, ?)",
    "insert_request": "INSERT INTO trade_request (tr_t_id, tr_tt_id, tr_s_symb, tr_qty,"
    " tr_bid_price, tr_b_id) VALUES (?, ?, ?, ?, ?, ?)",
    "insert_history": "INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (?, ?, ?)",
    # Trade-Result
    "tr_trade": "SELECT t_ca_id, t_tt_id, t_s_symb, t_qty, t_chrg, t_lifo, t_is_cash, t_st_id"
    " FROM trade WHERE t_id = ?{for_update}",
    "tr_trade_type": "SELECT tt_name, tt_is_sell, tt_is_mrkt FROM trade_type WHERE tt_id = ?",
    "tr_holding_qty": "SELECT hs_qty FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?"
    "{for_update}",
    "tr_account": "SELECT ca_b_id, ca_c_id, ca_tax_st FROM customer_account WHERE ca_id = ?",
    "tr_tier": "SELECT c_tier FROM customer WHERE c_id = ?",
    "tr_lots_fifo": "SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = ?"
    " AND h_s_symb = ? ORDER BY h_dts, h_t_id{for_update}",
    "tr_lots_lifo": "SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = ?"
    " AND h_s_symb = ? ORDER BY h_dts DESC, h_t_id DESC{for_update}",
    "lot_update": "UPDATE holding SET h_qty = ? WHERE h_t_id = ?",
    "lot_delete": "DELETE FROM holding WHERE h_t_id = ?",
    "lot_insert": "INSERT INTO holding (h_t_id, h_ca_id, h_s_symb, h_dts, h_price, h_qty)"
    " VALUES (?, ?, ?, ?, ?, ?)",
    "summary_update": "UPDATE holding_summary SET hs_qty = ? WHERE hs_ca_id = ? AND hs_s_symb = ?",
    "summary_delete": "DELETE FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?",
    "summary_add": "INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty) VALUES (?, ?, ?)"
    " ON CONFLICT (hs_ca_id, hs_s_symb)"
    " DO UPDATE SET hs_qty = holding_summary.hs_qty + excluded.hs_qty",
    "tr_complete": "UPDATE trade SET t_comm = ?, t_dts = ?, t_st_id = 'CMPT', t_trade_price = ?,"
    " t_tax = ? WHERE t_id = ?",
    "tr_broker": "UPDATE broker SET b_comm_total = b_comm_total + ?,"
    " b_num_trades = b_num_trades + 1 WHERE b_id = ?",
    "tr_balance": "UPDATE customer_account SET ca_bal = ca_bal + ? WHERE ca_id = ?",
    "tr_read_balance": "SELECT ca_bal FROM customer_account WHERE ca_id = ?",
    # Market-Feed
    "mf_prices": "SELECT lt_s_symb, lt_price FROM last_trade WHERE lt_s_symb IN ({in})"
    " ORDER BY lt_s_symb{for_update}",
    "mf_update": "UPDATE last_trade SET lt_price = ?, lt_vol = lt_vol + ?, lt_dts = ?"
    " WHERE lt_s_symb = ?",
    "mf_triggered": "SELECT tr_t_id FROM trade_request WHERE tr_s_symb = ?"
    " AND ((tr_tt_id = 'TSL' AND tr_bid_price >= ?) OR (tr_tt_id = 'TLS' AND tr_bid_price <= ?)"
    " OR (tr_tt_id = 'TLB' AND tr_bid_price >= ?))",
    "mf_submit": "UPDATE trade SET t_dts = ?, t_st_id = 'SBMT' WHERE t_id = ? AND t_st_id = 'PNDG'",
    "mf_drop_request": "DELETE FROM trade_request WHERE tr_t_id = ?",
    # Trade-Lookup and Trade-Update
    "tl_by_id": "SELECT t_id, t_bid_price, t_exec_name, t_is_cash, t_trade_price, t_st_id"
    " FROM trade WHERE t_id IN ({in}) ORDER BY t_id",
    "tl_history": "SELECT th_t_id, th_dts, th_st_id FROM trade_history WHERE th_t_id IN ({in})"
    " ORDER BY th_t_id, th_dts",
    "tl_by_account": "SELECT t_id, t_bid_price, t_exec_name, t_is_cash, t_trade_price, t_st_id"
    " FROM trade WHERE t_ca_id = ? AND t_dts >= ? AND t_dts <= ? ORDER BY t_dts LIMIT 20",
    "tl_by_symbol": "SELECT t_id, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_tt_id"
    " FROM trade WHERE t_s_symb = ? AND t_dts >= ? AND t_dts <= ? ORDER BY t_dts LIMIT 20",
    "tl_first_trade": "SELECT t_id, t_s_symb FROM trade WHERE t_ca_id = ? AND t_dts >= ?"
    " ORDER BY t_dts LIMIT 1",
    "tl_lots": "SELECT h_t_id, h_dts, h_qty, h_price FROM holding WHERE h_ca_id = ?"
    " AND h_s_symb = ? ORDER BY h_dts DESC LIMIT 20",
    "tu_exec_name": "UPDATE trade SET t_exec_name = ? WHERE t_id = ?",
    # Broker-Volume
    "bv_volume": "SELECT b_name, SUM(tr_qty * tr_bid_price) AS volume FROM trade_request"
    " JOIN broker ON b_id = tr_b_id JOIN security ON s_symb = tr_s_symb"
    " JOIN company ON co_id = s_co_id WHERE tr_b_id IN ({in}) AND co_sector = ?"
    " GROUP BY b_name ORDER BY volume DESC",
}


def render(text: str, dialect: str, count: int = 0) -> str:
    """A statement for a dialect; `count` placeholders replace {in}."""
    own = registry.for_workload(dialect, "brokerage")
    return own.render(text.replace("{in}", ", ".join(["?"] * count)))


@cache
def statement(dialect: str, name: str, count: int = 0) -> str:
    """The rendered statement `name` for a dialect (cached)."""
    part = registry.for_workload(dialect, "brokerage").part("brokerage")
    own = part.STATEMENTS if part else {}  # where the dialect needs other text
    return render(own.get(name, STATEMENTS[name]), dialect, count)
