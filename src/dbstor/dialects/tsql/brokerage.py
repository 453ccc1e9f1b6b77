"""The brokerage statements T-SQL writes its own way (the rest are the shared text,
rendered: LIMIT as OFFSET ... FETCH, FOR UPDATE as a locking hint)."""

from __future__ import annotations

STATEMENTS = {
    # the holding-summary upsert: MERGE under HOLDLOCK, so two sessions adding the first
    # lot of one security cannot both insert
    "summary_add": "MERGE holding_summary WITH (HOLDLOCK) AS t"
    " USING (SELECT ? AS ca_id, ? AS s_symb, ? AS qty) AS v"
    " ON t.hs_ca_id = v.ca_id AND t.hs_s_symb = v.s_symb"
    " WHEN MATCHED THEN UPDATE SET hs_qty = t.hs_qty + v.qty"
    " WHEN NOT MATCHED THEN INSERT (hs_ca_id, hs_s_symb, hs_qty)"
    " VALUES (v.ca_id, v.s_symb, v.qty);",
}
