"""Deterministic TPC-C data (clause 4.3.3.1), in fixed chunks.

A chunk is 20,000 items, the 11 rows of one warehouse and its districts, 10,000 stock rows
of one warehouse, or everything of one district (its 3,000 customers, their history rows,
3,000 orders, their 5-15 lines each and the 900 undelivered new orders). Each chunk draws
from its own random stream seeded by (seed, group, warehouse, part), so the same seed gives
the same rows however chunks are spread over worker processes. Within a chunk, and from
one chunk to the next in work order, every table's rows come in primary-key order.
Money, rates and times come as text of TPC-C's types (tpcc.py): '12.34', '0.0525',
'2023-11-14 22:13:20'.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from dbstor.workloads.orders.tpcc import (
    CUSTOMERS,
    DISTRICT_YTD,
    DISTRICTS,
    FIRST_NEW_ORDER,
    ITEMS,
    LINES,
    LOAD_STAMP,
    ORDERS,
    ORIGINAL,
    WAREHOUSE_YTD,
    Constants,
    Text,
    alnum,
    digits,
    last_name,
    letters,
    money_text,
    rate_text,
    u32,
)

ITEM_SLICE = 20_000
STOCK_SLICE = 10_000
Rows = dict[str, list[tuple]]


@dataclass(frozen=True)
class Chunk:
    """One piece of generation: group item | warehouse | stock | district."""

    group: str
    w_id: int  # 0 for items
    part: int  # item or stock slice (0-based), district id (1-10)


def chunks(warehouses: int) -> list[Chunk]:
    """Every chunk of a database of `warehouses`, items first, then warehouse by warehouse."""
    work = [Chunk("item", 0, k) for k in range(ITEMS // ITEM_SLICE)]
    for w in range(1, warehouses + 1):
        work.append(Chunk("warehouse", w, 0))
        work += [Chunk("stock", w, k) for k in range(ITEMS // STOCK_SLICE)]
        work += [Chunk("district", w, d) for d in range(1, DISTRICTS + 1)]
    return work


def expected_rows(warehouses: int) -> dict[str, int]:
    """Rows per table at load (order_line is about 10 per order: 5-15, uniform)."""
    districts = warehouses * DISTRICTS
    return {
        "warehouse": warehouses,
        "district": districts,
        "customer": districts * CUSTOMERS,
        "history": districts * CUSTOMERS,
        "orders": districts * ORDERS,
        "new_order": districts * (ORDERS - FIRST_NEW_ORDER + 1),
        "order_line": districts * ORDERS * sum(LINES) // 2,
        "item": ITEMS,
        "stock": warehouses * ITEMS,
    }


def generate(chunk: Chunk, seed: int, constants: Constants) -> Rows:
    """The rows of one chunk, per table, each list in primary-key order."""
    rng = random.Random(f"{seed}:{chunk.group}:{chunk.w_id}:{chunk.part}")
    if chunk.group == "item":
        return {"item": _items(chunk.part, rng)}
    if chunk.group == "warehouse":
        return _warehouse(chunk.w_id, rng)
    if chunk.group == "stock":
        return {"stock": _stock(chunk.w_id, chunk.part, rng)}
    if chunk.group == "district":
        return _district(chunk.w_id, chunk.part, rng, constants)
    raise ValueError(f"unknown chunk group {chunk.group!r}")


def _original(data: str, x: int) -> str:
    """Put 'ORIGINAL' into the string at a position drawn from x."""
    at = x % (len(data) - len(ORIGINAL) + 1)
    return data[:at] + ORIGINAL + data[at + len(ORIGINAL) :]


def _items(part: int, rng: random.Random) -> list[tuple]:
    first, n = part * ITEM_SLICE + 1, ITEM_SLICE
    r = u32(rng, 4 * n)
    text = alnum(rng)
    rows = []
    for k, a, b, c, d in zip(range(n), r[0::4], r[1::4], r[2::4], r[3::4], strict=True):
        data = text.take(26 + c % 25)
        if d % 10 == 0:  # 10% of items are "original"
            data = _original(data, d >> 8)
        rows.append(
            (
                first + k,
                1 + a % 10_000,
                text.take(14 + b % 11),
                money_text(100 + (c >> 8) % 9901),
                data,
            )
        )
    return rows


def _address(text: Text, zips: Text, states: Text, r: int) -> tuple[str, str, str, str, str]:
    return (
        text.take(10 + r % 11),
        text.take(10 + (r >> 4) % 11),
        text.take(10 + (r >> 8) % 11),
        states.take(2),
        zips.take(4) + "11111",
    )


def _warehouse(w: int, rng: random.Random) -> Rows:
    text, zips, states = alnum(rng), digits(rng), letters(rng)
    r = u32(rng, 3 * (DISTRICTS + 1))
    warehouse = [
        (
            w,
            text.take(6 + r[0] % 5),
            *_address(text, zips, states, r[1]),
            rate_text(r[2] % 2001),
            WAREHOUSE_YTD,
        )
    ]
    districts = [
        (
            d,
            w,
            text.take(6 + r[3 * d] % 5),
            *_address(text, zips, states, r[3 * d + 1]),
            rate_text(r[3 * d + 2] % 2001),
            DISTRICT_YTD,
            ORDERS + 1,
        )
        for d in range(1, DISTRICTS + 1)
    ]
    return {"warehouse": warehouse, "district": districts}


def _stock(w: int, part: int, rng: random.Random) -> list[tuple]:
    first, n = part * STOCK_SLICE + 1, STOCK_SLICE
    r = u32(rng, 2 * n)
    text = alnum(rng)
    rows = []
    for k, a, b in zip(range(n), r[0::2], r[1::2], strict=True):
        d = text.take(240)
        data = text.take(26 + b % 25)
        if (b >> 8) % 10 == 0:
            data = _original(data, b >> 12)
        rows.append(
            (first + k, w, 10 + a % 91,
             d[0:24], d[24:48], d[48:72], d[72:96], d[96:120],
             d[120:144], d[144:168], d[168:192], d[192:216], d[216:240],
             0, 0, 0, data)
        )  # fmt: skip
    return rows


def _district(w: int, d: int, rng: random.Random, constants: Constants) -> Rows:
    text, numbers, states = alnum(rng), digits(rng), letters(rng)
    r = u32(rng, 4 * CUSTOMERS)
    customers, history = [], []
    c_load = constants.c_last_load
    for c, a, b, x, y in zip(
        range(1, CUSTOMERS + 1), r[0::4], r[1::4], r[2::4], r[3::4], strict=True
    ):
        if c <= 1000:
            last = last_name(c - 1)
        else:  # NURand(255, 0, 999) with C_LOAD
            last = last_name((((a & 255) | (a >> 8) % 1000) + c_load) % 1000)
        customers.append(
            (c, d, w, text.take(8 + b % 9), "OE", last,
             *_address(text, numbers, states, x), numbers.take(16), LOAD_STAMP,
             "BC" if (b >> 8) % 10 == 0 else "GC", "50000.00", rate_text((b >> 12) % 5001),
             "-10.00", "10.00", 1, 0, text.take(300 + y % 201))
        )  # fmt: skip
        history.append((c, d, w, d, w, LOAD_STAMP, "10.00", text.take(12 + (y >> 12) % 13)))
    owners = list(range(1, CUSTOMERS + 1))
    rng.shuffle(owners)  # o_c_id: a random permutation of the customers
    r = u32(rng, ORDERS)
    noise = u32(rng, ORDERS * LINES[1] * 2)
    orders, lines = [], []
    span = LINES[1] - LINES[0] + 1
    j = 0
    for o, c, x in zip(range(1, ORDERS + 1), owners, r, strict=True):
        count = LINES[0] + x % span
        delivered = o < FIRST_NEW_ORDER
        orders.append((o, d, w, c, LOAD_STAMP, 1 + (x >> 8) % 10 if delivered else None, count, 1))
        for n in range(1, count + 1):
            item, amount = noise[j], noise[j + 1]
            j += 2
            if delivered:
                lines.append(
                    (o, d, w, n, 1 + item % ITEMS, w, LOAD_STAMP, 5, "0.00", text.take(24))
                )
            else:
                lines.append((o, d, w, n, 1 + item % ITEMS, w, None, 5, money_text(1 + amount % 999_999), text.take(24)))  # fmt: skip
    new_orders = [(o, d, w) for o in range(FIRST_NEW_ORDER, ORDERS + 1)]
    return {
        "customer": customers,
        "history": history,
        "orders": orders,
        "order_line": lines,
        "new_order": new_orders,
    }
