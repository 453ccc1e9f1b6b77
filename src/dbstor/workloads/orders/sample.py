"""The orders transactions as text a DBA can paste into the engine's own client (`dbstor
sql`): each CALL with its parameters named and sample values, and the client-side
statements with literal sample values in place of the driver's placeholders.

The parameter names are read from the dialect's own procedure DDL (the text create()
runs), and New-Order's line lists are written by the dialect's own item_lines, so the text
shown calls the procedures as they are. Each dialect's orders part writes the call in the
form its client accepts (named_call): PostgreSQL's named notation (`p_w => 1`) in CALL and
SELECT; T-SQL's `EXEC proc @p_w = 1, ...`; Oracle's named notation in an anonymous block,
the OUT argument into a declared variable; MariaDB and MySQL have no named arguments in
CALL, so user variables named as the parameters are SET first and passed by name.
Money is a decimal literal (p_amount => 10.00), a time the dialect's date-and-time literal.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.sample_values import SAMPLE_MOMENT, literal

# transaction -> its inputs in the procedures' order (orders/procedures.py: call_args)
SAMPLE_INPUTS: dict[str, tuple[Any, ...]] = {
    "New-Order": (1, 1, 1, SAMPLE_MOMENT, (1, 2, 3), (1, 1, 1), (5, 5, 5)),
    # by id (c_last names by name), $10.00
    "Payment": (1, 1, 1, 1, 1, None, Decimal("10.00"), SAMPLE_MOMENT),
    "Order-Status": (1, 1, 1, None),
    "Delivery": (1, 1, SAMPLE_MOMENT),
    "Stock-Level": (1, 1, 15),
}
_SIGNATURE_END = re.compile(r"\)\s*(?:(?:RETURNS|LANGUAGE|AS|BEGIN)\b|body:)|\n\s*AS\b", re.I)
_PARAMETER = re.compile(r"(@?p_\w+)\s+(OUT\b)?", re.I)


def parameters(ddl: str, procedure: str) -> tuple[list[str], list[str]]:
    """(IN parameter names, OUT parameter names) of a procedure in its CREATE text: the
    p_-named parameters of its signature (PostgreSQL's INOUT/OUT results are not p_)."""
    start = re.search(rf"(PROCEDURE|FUNCTION)\s+{procedure}\b", ddl, re.I)
    if start is None:
        raise ValueError(f"no routine {procedure} in the DDL")
    end = _SIGNATURE_END.search(ddl, start.end())
    found = _PARAMETER.findall(ddl[start.end() : end.start() if end else len(ddl)])
    return [n for n, out in found if not out], [n for n, out in found if out]


def _routine(ddl: list[str], procedure: str) -> str:
    pattern = re.compile(rf"(PROCEDURE|FUNCTION)\s+{procedure}\b", re.I)
    return next(text for text in ddl if pattern.search(text))


_PROCEDURE = re.compile(r"\b(?:CALL|EXEC|FROM|SELECT|BEGIN)\s+(\w+)", re.I)


def named_calls(dialect: str) -> dict[str, list[str]]:
    """Transaction -> the statements that call it with named sample arguments, written by
    the dialect's orders part (its named_call: the form its own client accepts)."""
    part = registry.get(dialect).part("orders")
    if part is None:
        return {}
    out: dict[str, list[str]] = {}
    for name, call in part.CALLS.items():
        found = _PROCEDURE.search(call)
        if found is None:
            raise ValueError(f"no procedure named in {call!r}")
        ins, outs = parameters(_routine(list(part.DDL), found.group(1)), found.group(1))
        values = [
            literal(part.item_lines(v) if isinstance(v, tuple) else v, dialect)
            for v in SAMPLE_INPUTS[name]
        ]
        out[name] = part.named_call(call, list(zip(ins, values, strict=True)), outs)
    return out
