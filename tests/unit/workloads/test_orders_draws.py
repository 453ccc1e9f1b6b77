"""The compiled terminal's draws (dbstor.hotpath.Drawer) follow TPC-C's distributions.

The compiled stream is not random.Random's, so no test can compare sequences: each test
draws many values and compares their histogram with a reference drawn by TPC-C's own
formulas (clause 2.1.6's NURand, clause 4.3.2's uniform ranges) written out here from
random.Random, by a two-sample chi-square test of homogeneity. The threshold is about six
standard deviations above the statistic's mean (degrees of freedom df: mean df, variance
2 df): the seeds are fixed, so a pass stays a pass, and a wrong constant, range or formula
moves the statistic by hundreds of standard deviations.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal

import pytest

from dbstor.workloads.orders.inputs import (
    BY_NAME_PCT,
    LAST_NAMES,
    PAYMENT_CENTS,
    TRANSACTIONS,
    Customer,
    Terminal,
)
from dbstor.workloads.orders.tpcc import CUSTOMERS, ITEMS, UNUSED_ITEM, Constants

CONSTANTS = Constants.from_seed(3)


def terminal(warehouses: int = 1, user: int = 0) -> Terminal:
    return Terminal(warehouses, user, random.Random(f"draws:{warehouses}:{user}"), CONSTANTS)


def reference_uniform(rng: random.Random, low: int, high: int) -> int:
    return rng.randint(low, high)


def reference_nurand(rng: random.Random, a: int, x: int, y: int, c: int) -> int:
    """TPC-C clause 2.1.6: (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x."""
    return (((rng.randint(0, a) | rng.randint(x, y)) + c) % (y - x + 1)) + x


def homogeneous(a: Iterable[int], b: Iterable[int], bucket: Callable[[int], int]) -> bool:
    """Whether two equally many draws come from one distribution (two-sample chi-square
    over the buckets; both samples must be the same size)."""
    left, right = Counter(map(bucket, a)), Counter(map(bucket, b))
    assert left.total() == right.total()
    keys = set(left) | set(right)
    statistic = sum((left[k] - right[k]) ** 2 / (left[k] + right[k]) for k in keys)
    df = len(keys) - 1
    return statistic < df + 6 * math.sqrt(2 * df)


def test_the_stream_s_nurand_is_tpc_c_s():
    t, twin, count = terminal(), random.Random(11), 200_000
    for a, x, y, c in ((255, 0, 999, CONSTANTS.c_last_run), (1023, 1, CUSTOMERS, CONSTANTS.c_id)):
        ours = [t.nurand(a, x, y, c) for _ in range(count)]
        theirs = [reference_nurand(twin, a, x, y, c) for _ in range(count)]
        assert min(ours) >= x and max(ours) <= y
        assert homogeneous(ours, theirs, lambda v: v)
        # and not just any skewed shape: a uniform draw is told apart
        flat = [twin.randint(x, y) for _ in range(count)]
        assert not homogeneous(ours, flat, lambda v: v)
    with pytest.raises(ValueError):
        t.nurand(255, 10, 1, 0)


def test_the_stream_s_uniform_covers_its_range_evenly():
    t, twin = terminal(), random.Random(12)
    for low, high in ((1, 10), (5, 15), (1, 100), (10, 20), PAYMENT_CENTS):
        ours = [t.uniform(low, high) for _ in range(100_000)]
        theirs = [reference_uniform(twin, low, high) for _ in range(100_000)]
        assert min(ours) >= low and max(ours) <= high
        buckets = min(high - low + 1, 200)
        width = (high - low + 1) / buckets
        assert homogeneous(ours, theirs, lambda v, low=low, w=width: int((v - low) / w))
    with pytest.raises(ValueError):
        t.uniform(2, 1)


def test_new_order_draws_tpc_c_s_customers_items_lines_and_quantities():
    t, twin, count = terminal(), random.Random(13), 40_000
    orders = [t.new_order() for _ in range(count)]
    assert homogeneous(
        (o.c_id for o in orders),
        (reference_nurand(twin, 1023, 1, CUSTOMERS, CONSTANTS.c_id) for _ in range(count)),
        lambda v: v // 10,  # 300 buckets of ten customers
    )
    assert homogeneous(
        (len(o.lines) for o in orders), (twin.randint(5, 15) for _ in range(count)), int
    )
    assert homogeneous((o.d_id for o in orders), (twin.randint(1, 10) for _ in range(count)), int)
    lines = [line for o in orders for line in o.lines if line[0] != UNUSED_ITEM]
    items = [reference_nurand(twin, 8191, 1, ITEMS, CONSTANTS.item) for _ in lines]
    # 500 buckets of 200 items: NURand(8191)'s hot items are told apart from a flat draw
    assert homogeneous((i for i, _, _ in lines), items, lambda v: v // 200)
    assert not homogeneous(
        (i for i, _, _ in lines), (twin.randint(1, ITEMS) for _ in lines), lambda v: v // 200
    )
    assert homogeneous((q for _, _, q in lines), (twin.randint(1, 10) for _ in lines), int)


def test_payment_and_order_status_draw_customers_by_name_and_id_as_tpc_c():
    t, twin, count = terminal(3, user=2), random.Random(14), 40_000
    payments = [t.payment() for _ in range(count)]
    named = [p.customer.c_last for p in payments if p.customer.c_last is not None]
    by_id = [p.customer.c_id for p in payments if p.customer.c_last is None]
    assert len(named) / count == pytest.approx(BY_NAME_PCT / 100, abs=0.012)
    number = {name: n for n, name in enumerate(LAST_NAMES)}
    reference = (reference_nurand(twin, 255, 0, 999, CONSTANTS.c_last_run) for _ in named)
    assert homogeneous((number[n] for n in named), reference, lambda v: v // 5)
    reference = (reference_nurand(twin, 1023, 1, CUSTOMERS, CONSTANTS.c_id) for _ in by_id)
    assert homogeneous(by_id, reference, lambda v: v // 10)
    cents = [int(p.amount * 100) for p in payments]
    assert homogeneous(
        cents, (twin.randint(*PAYMENT_CENTS) for _ in cents), lambda v: v * 100 // 500_001
    )
    statuses = [t.order_status() for _ in range(count)]
    assert homogeneous(
        (s.customer.d_id for s in statuses), (twin.randint(1, 10) for _ in statuses), int
    )


def test_each_user_has_its_own_stream_and_a_seed_repeats_it():
    def ids(user: int, seed: str) -> list[int]:
        t = Terminal(1, user, random.Random(seed), CONSTANTS)
        return [t.new_order().c_id for _ in range(50)]

    assert ids(0, "a") == ids(0, "a")
    assert ids(0, "a") != ids(0, "b")


def test_the_draws_refuse_an_unknown_transaction():
    with pytest.raises(ValueError, match="unknown orders transaction"):
        terminal().draw("Trade-Order")
    with pytest.raises(ValueError, match="unknown orders transaction"):
        terminal().draw(3)  # type: ignore[arg-type]


def test_a_drawer_refuses_what_it_cannot_draw_from():
    from dbstor.hotpath import Drawer

    with pytest.raises(RuntimeError, match="before __init__"):
        Drawer.__new__(Drawer).new_order()
    t = terminal()
    good = {
        "seed": 1,
        "warehouses": 2,
        "home": 1,
        "district": 1,
        "all_warehouses": 0,
        "constants": (1, 2, 3),
        "rules": (1, 1, 60, 15, UNUSED_ITEM, *PAYMENT_CENTS),
        "types": (*(type(t.draw(n)) for n in TRANSACTIONS), Customer),
        "names": LAST_NAMES,
        "decimal": Decimal,
        "now": datetime.now,
    }
    Drawer(**good).new_order()
    with pytest.raises(ValueError, match="home outside"):
        Drawer(**good | {"home": 3})
    with pytest.raises(ValueError, match="1000 names"):
        Drawer(**good | {"names": LAST_NAMES[:10]})
    with pytest.raises(TypeError, match="NamedTuples"):
        Drawer(**good | {"types": (int,) * 6})
