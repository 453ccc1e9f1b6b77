"""The brokerage schema: TPC-E's trading tables, simplified.

The tables are written in the neutral types of dbstor.workloads.tables (money in integer
cents, times in integer seconds, days for dates), which also renders their DDL per
dialect; this module re-exports those functions under the names the brokerage code uses.
"""

from __future__ import annotations

from dbstor.workloads.tables import (
    Table,
    add_primary_key,
    column_type,
    create_indexes,
    create_table,
)
from dbstor.workloads.tables import analyze as analyze_tables
from dbstor.workloads.tables import table as _t

__all__ = [
    "TABLE",
    "TABLES",
    "Table",
    "add_primary_key",
    "analyze",
    "column_type",
    "create_indexes",
    "create_table",
]

# In placement order: engine.placement(i) spreads them round-robin over the data paths, so
# the big ones come first and land on different files.
TABLES: tuple[Table, ...] = (
    _t(
        "trade",
        "t_id id, t_dts ts, t_st_id str:4, t_tt_id str:3, t_is_cash small, t_s_symb str:15,"
        "t_qty int, t_bid_price money, t_ca_id id, t_exec_name str:49, t_trade_price money?,"
        "t_chrg money, t_comm money, t_tax money, t_lifo small",
        "t_id",
        ("trade_ca_dts", "t_ca_id t_dts"),
        ("trade_symb_dts", "t_s_symb t_dts"),
    ),
    _t("trade_history", "th_t_id id, th_dts ts, th_st_id str:4", "th_t_id th_st_id"),
    _t(
        "daily_market",
        "dm_date day, dm_s_symb str:15, dm_close money, dm_high money, dm_low money, dm_vol id",
        "dm_s_symb dm_date",
    ),
    _t(
        "holding",
        "h_t_id id, h_ca_id id, h_s_symb str:15, h_dts ts, h_price money, h_qty int",
        "h_t_id",
        ("holding_acct", "h_ca_id h_s_symb h_dts"),
    ),
    _t("holding_summary", "hs_ca_id id, hs_s_symb str:15, hs_qty int", "hs_ca_id hs_s_symb"),
    _t("watch_item", "wi_c_id id, wi_s_symb str:15", "wi_c_id wi_s_symb"),
    _t(
        "customer_account",
        "ca_id id, ca_b_id id, ca_c_id id, ca_name str:50, ca_tax_st small, ca_bal money",
        "ca_id",
        ("account_customer", "ca_c_id"),
    ),
    _t(
        "customer",
        "c_id id, c_tax_id str:20, c_st_id str:4, c_l_name str:25, c_f_name str:20,"
        "c_m_name str:1, c_gndr str:1, c_tier small, c_dob day, c_area str:3, c_local str:10,"
        "c_email str:50",
        "c_id",
        ("customer_tax", "c_tax_id"),
    ),
    _t(
        "security",
        "s_symb str:15, s_issue str:6, s_st_id str:4, s_name str:70, s_ex_id str:6, s_co_id id,"
        "s_num_out id, s_start_date day, s_pe money, s_52wk_high money, s_52wk_low money,"
        "s_dividend money, s_yield int",
        "s_symb",
        ("security_company", "s_co_id"),
    ),
    _t(
        "last_trade",
        "lt_s_symb str:15, lt_dts ts, lt_price money, lt_open_price money, lt_vol id",
        "lt_s_symb",
    ),
    _t(
        "company",
        "co_id id, co_st_id str:4, co_name str:60, co_industry str:50, co_sector str:30,"
        "co_sp_rate str:4, co_ceo str:46, co_desc str:150, co_open_date day",
        "co_id",
        ("company_industry", "co_industry co_id"),
    ),
    _t(
        "broker",
        "b_id id, b_st_id str:4, b_name str:49, b_num_trades int, b_comm_total money",
        "b_id",
    ),
    _t(
        "trade_request",
        "tr_t_id id, tr_tt_id str:3, tr_s_symb str:15, tr_qty int, tr_bid_price money, tr_b_id id",
        "tr_t_id",
        ("request_symb", "tr_s_symb"),
        ("request_broker", "tr_b_id"),
    ),
    _t("status_type", "st_id str:4, st_name str:10", "st_id"),
    _t("trade_type", "tt_id str:3, tt_name str:12, tt_is_sell small, tt_is_mrkt small", "tt_id"),
    _t("id_block", "ib_name str:10, ib_next id", "ib_name"),
)
TABLE = {t.name: t for t in TABLES}


def analyze(dialect: str) -> list[str]:
    """Statements that gather optimizer statistics on every table."""
    return analyze_tables(dialect, TABLES)
