"""The brokerage statements Oracle writes its own way (the rest are the shared client-side
text, rendered with FETCH FIRST and :n binds): the holding-summary upsert as MERGE."""

from __future__ import annotations

STATEMENTS = {
    "summary_add": "MERGE INTO holding_summary s"
    " USING (SELECT ? AS ca_id, ? AS symb, ? AS qty FROM dual) n"
    " ON (s.hs_ca_id = n.ca_id AND s.hs_s_symb = n.symb)"
    " WHEN MATCHED THEN UPDATE SET s.hs_qty = s.hs_qty + n.qty"
    " WHEN NOT MATCHED THEN INSERT (hs_ca_id, hs_s_symb, hs_qty)"
    " VALUES (n.ca_id, n.symb, n.qty)",
}
