"""Orders data generation: deterministic, TPC-C's cardinalities and random rules."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import datetime
from decimal import Decimal

import pytest

from dbstor.workloads.orders.generate import Chunk, chunks, expected_rows, generate
from dbstor.workloads.orders.inputs import Terminal
from dbstor.workloads.orders.schema import TABLE, TABLES
from dbstor.workloads.orders.tpcc import (
    CUSTOMERS,
    FIRST_NEW_ORDER,
    ITEMS,
    LOAD_STAMP,
    LOAD_TIME,
    ORDERS,
    SYLLABLES,
    Constants,
    last_name,
)

SEED = 3


@pytest.fixture(scope="module")
def one_warehouse() -> dict[str, list[tuple]]:
    """Every row of a one-warehouse database."""
    constants = Constants.from_seed(SEED)
    out: dict[str, list[tuple]] = defaultdict(list)
    for chunk in chunks(1):
        for table, rows in generate(chunk, SEED, constants).items():
            out[table] += rows
    return out


def column(rows: list[tuple], table: str, name: str) -> list:
    at = TABLE[table].column_names.index(name)
    return [row[at] for row in rows]


def fits_decimal(text: str, precision: int, scale: int) -> bool:
    """Decimal text with exactly `scale` places and at most `precision` digits."""
    value = Decimal(text)
    digits = value.as_tuple()
    return digits.exponent == -scale and len(digits.digits) <= precision


def test_same_seed_same_rows_other_seed_other_rows():
    a, b = Constants.from_seed(5), Constants.from_seed(6)
    for chunk in (Chunk("district", 2, 7), Chunk("stock", 1, 3), Chunk("item", 0, 1)):
        first = generate(chunk, 5, a)
        assert generate(chunk, 5, Constants.from_seed(5)) == first, chunk
        other = generate(chunk, 6, b)
        for table in set(first) - {"new_order"}:  # new orders are ids alone: no randomness
            assert first[table] != other[table], (chunk, table)


def test_chunks_are_independent_of_each_other():
    """A chunk's rows depend on (seed, chunk) only: the same whatever was generated before
    (worker processes take chunks in any order)."""
    constants = Constants.from_seed(SEED)
    late = chunks(3)[-1]
    alone = generate(late, SEED, constants)
    for chunk in chunks(3)[:3]:
        generate(chunk, SEED, constants)
    assert generate(late, SEED, constants) == alone
    assert late == Chunk("district", 3, 10)


def test_work_covers_every_warehouse_once():
    work = chunks(4)
    assert len(work) == len(set(work)) == 5 + 4 * (1 + 10 + 10)
    assert Counter(c.group for c in work) == {
        "item": 5,
        "warehouse": 4,
        "stock": 40,
        "district": 40,
    }
    assert {c.w_id for c in work if c.group != "item"} == {1, 2, 3, 4}


def test_cardinalities_at_one_warehouse(one_warehouse):
    counts = {t: len(rows) for t, rows in one_warehouse.items()}
    expected = expected_rows(1)
    assert set(counts) == {t.name for t in TABLES} == set(expected)
    for table in ("warehouse", "district", "customer", "history", "orders", "new_order", "item"):
        assert counts[table] == expected[table], table
    assert counts["stock"] == ITEMS == 100_000
    assert (counts["customer"], counts["orders"], counts["new_order"]) == (30_000, 30_000, 9_000)
    # 5-15 lines per order, uniform: about 10 on average
    assert counts["order_line"] == pytest.approx(300_000, rel=0.01)
    lines = Counter(column(one_warehouse["orders"], "orders", "o_ol_cnt"))
    assert set(lines) == set(range(5, 16))
    assert sum(n * k for n, k in lines.items()) == counts["order_line"]


def test_rows_in_key_order_unique_and_fitting_their_columns(one_warehouse):
    for table in TABLES:
        rows = one_warehouse[table.name]
        assert all(len(row) == len(table.columns) for row in rows), table.name
        if table.key:
            at = [table.column_names.index(c) for c in table.key]
            keys = [tuple(row[i] for i in at) for row in rows]
            assert keys == sorted(keys), table.name  # SQLite and InnoDB append in key order
            assert len(set(keys)) == len(keys), table.name
        for i, (name, kind) in enumerate(table.columns):
            values = [row[i] for row in rows]
            if not kind.endswith("?"):
                assert None not in values, (table.name, name)
            base = kind.rstrip("?")
            present = [v for v in values if v is not None]
            if base.startswith("str:"):
                limit = int(base[4:])
                assert max(len(v) for v in present) <= limit, (table.name, name)
            elif base.startswith("dec:"):  # decimal text of TPC-C's numeric(P,S)
                precision, scale = (int(n) for n in base[4:].split(":"))
                assert all(fits_decimal(v, precision, scale) for v in present), (table.name, name)
            elif base == "datetime":  # ISO text every engine reads
                assert {datetime.fromisoformat(v) for v in present} == {LOAD_TIME}, name
            else:
                assert all(isinstance(v, int) for v in values if v is not None), (table.name, name)


def test_orders_follow_tpc_c(one_warehouse):
    orders = one_warehouse["orders"]
    for d in range(1, 11):
        owners = [row[3] for row in orders if row[1] == d]
        assert sorted(owners) == list(range(1, CUSTOMERS + 1))  # a permutation per district
        assert owners != sorted(owners)
    for o_id, _, _, _, entry, carrier, _, local in orders:
        assert (carrier is None) == (o_id >= FIRST_NEW_ORDER)
        assert carrier is None or 1 <= carrier <= 10
        assert entry == LOAD_STAMP and local == 1
    new = [(row[2], row[1], row[0]) for row in one_warehouse["new_order"]]
    assert new == [(1, d, o) for d in range(1, 11) for o in range(FIRST_NEW_ORDER, ORDERS + 1)]
    for row in one_warehouse["order_line"]:
        delivered = row[0] < FIRST_NEW_ORDER
        assert (row[6] is not None) == delivered
        amount = Decimal(row[8])
        assert (amount == 0) == delivered and 0 <= amount <= Decimal("9999.99")
        assert 1 <= row[4] <= ITEMS and row[5] == 1 and row[7] == 5


def test_customers_follow_tpc_c(one_warehouse):
    customers = one_warehouse["customer"]
    last = column(customers, "customer", "c_last")
    ids = column(customers, "customer", "c_id")
    assert all(last[i] == last_name(ids[i] - 1) for i in range(len(ids)) if ids[i] <= 1000)
    syllables = {a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES}
    assert set(last) <= syllables
    later = Counter(n for n, c in zip(last, ids, strict=True) if c > 1000)
    assert len(later) > 900  # NURand reaches most names ...
    assert later.most_common(1)[0][1] > 5 * len(ids) * 2 / 3 / 1000  # ... some far more often
    credit = Counter(column(customers, "customer", "c_credit"))
    assert credit["BC"] / len(customers) == pytest.approx(0.10, abs=0.01)
    assert set(credit) == {"BC", "GC"}
    assert set(column(customers, "customer", "c_balance")) == {"-10.00"}
    assert set(column(customers, "customer", "c_credit_lim")) == {"50000.00"}
    discounts = [Decimal(v) for v in column(customers, "customer", "c_discount")]
    assert min(discounts) == 0 and max(discounts) == Decimal("0.5")  # 0.0000-0.5000
    assert set(column(customers, "customer", "c_middle")) == {"OE"}
    data = column(customers, "customer", "c_data")
    assert min(map(len, data)) >= 300 and max(map(len, data)) <= 500
    assert len(set(data)) == len(data)  # random text, not repeated


def test_items_and_stock_are_ten_percent_original(one_warehouse):
    for table, col in (("item", "i_data"), ("stock", "s_data")):
        data = column(one_warehouse[table], table, col)
        share = sum("ORIGINAL" in d for d in data) / len(data)
        assert share == pytest.approx(0.10, abs=0.01), table
    prices = [Decimal(v) for v in column(one_warehouse["item"], "item", "i_price")]
    assert min(prices) == 1 and max(prices) == 100  # 1.00-100.00
    quantities = column(one_warehouse["stock"], "stock", "s_quantity")
    assert min(quantities) == 10 and max(quantities) == 100


def test_history_and_ytd_agree(one_warehouse):
    """TPC-C's consistency conditions 8 and 9 hold in the generated data itself."""
    (warehouse,) = one_warehouse["warehouse"]
    paid = sum(map(Decimal, column(one_warehouse["history"], "history", "h_amount")))
    districts = sum(Decimal(row[-2]) for row in one_warehouse["district"])
    assert Decimal(warehouse[-1]) == paid == districts == Decimal("300000.00")
    taxes = [Decimal(row[-2]) for row in one_warehouse["warehouse"]]
    assert all(0 <= t <= Decimal("0.2") for t in taxes)  # TPC-C: 0.0000-0.2000


def test_last_names_are_tpc_c_syllables():
    assert last_name(371) == "PRICALLYOUGHT"  # TPC-C clause 4.3.2.3's example
    assert last_name(0) == "BARBARBAR" and last_name(999) == "EINGEINGEING"
    assert len({last_name(n) for n in range(1000)}) == 1000


@pytest.mark.parametrize(("a", "x", "y"), [(255, 0, 999), (1023, 1, 3000), (8191, 1, 100_000)])
def test_nurand_stays_in_range_and_is_skewed(a, x, y):
    stream = Terminal(1, 0, random.Random(9), Constants.from_seed(9))  # the compiled draws
    draws = Counter(stream.nurand(a, x, y, 123 % (a + 1)) for _ in range(60_000))
    assert min(draws) >= x and max(draws) <= y
    top = sum(n for _, n in draws.most_common(max(1, (y - x + 1) // 10)))
    assert top / 60_000 > 0.4  # the hottest 10% of keys get far more than 10% of picks


def test_nurand_constants_follow_the_run_rule():
    for seed in range(200):
        c = Constants.from_seed(seed)
        delta = abs(c.c_last_run - c.c_last_load)
        assert 65 <= delta <= 119 and delta not in (96, 112), (seed, c)
        assert 0 <= c.c_id <= 1023 and 0 <= c.item <= 8191
    assert Constants.from_seed(4) == Constants.from_seed(4) != Constants.from_seed(5)
