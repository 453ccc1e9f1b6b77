"""The brokerage statements MySQL's dialect writes its own way (the rest are the shared
client-side text, rendered)."""

from __future__ import annotations

STATEMENTS = {
    "summary_add": "INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty)"
    " VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE hs_qty = hs_qty + VALUES(hs_qty)",
}
