"""Brokerage data generation: deterministic, TPC-E's cardinalities, consistent keys."""

from collections import Counter, defaultdict

import pytest

from dbstor.workloads.brokerage import keys as keymod
from dbstor.workloads.brokerage.generate import GROUP_TABLES, Chunk, chunks, generate
from dbstor.workloads.brokerage.keys import Keys, Skew
from dbstor.workloads.brokerage.schema import TABLE, TABLES
from dbstor.workloads.brokerage.volumes import ACCOUNT_SLOTS, Volumes

SCALE, DAYS = 400, 3


def everything(scale: int, seed: int, trade_days: int = 2) -> dict[str, list[tuple]]:
    keys = Keys(Volumes(scale, trade_days), seed)
    out: dict[str, list[tuple]] = defaultdict(list)
    for chunk in chunks(keys.volumes):
        for table, rows in generate(chunk, keys).items():
            out[table] += rows
    return out


@pytest.fixture(scope="module")
def data() -> dict[str, list[tuple]]:
    return everything(SCALE, seed=3, trade_days=DAYS)  # two trade chunks


def test_same_seed_same_rows_other_seed_other_rows():
    a, b, c = everything(120, 8), everything(120, 8), everything(120, 9)
    assert a == b
    for table in ("trade", "trade_history", "daily_market", "holding", "customer", "watch_item"):
        assert a[table] != c[table], table


def test_a_chunk_alone_equals_the_chunk_in_sequence():
    keys = Keys(Volumes(2100, 1), 4)
    work = chunks(keys.volumes)
    assert [c.group for c in work].count("customers") == 3  # 1000 customers a chunk
    late = [c for c in work if c.group == "customers"][2]
    assert generate(late, keys) == generate(Chunk("customers", 2, 2001, 2101), keys)
    assert generate(late, Keys(Volumes(2100, 1), 4)) == generate(late, keys)


def test_cardinalities_follow_tpc_e(data):
    v = Volumes(SCALE, DAYS)
    counts = {t: len(rows) for t, rows in data.items()}
    assert set(counts) == {t.name for t in TABLES}
    exact = ("trade", "customer", "security", "last_trade", "company", "broker", "daily_market")
    for table in exact:
        assert counts[table] == v.expected()[table], table
    assert (v.brokers, v.companies, v.securities) == (4, 200, 274)
    assert counts["trade"] == round(SCALE * 57.6 * DAYS) > 50_000
    assert counts["daily_market"] == 274 * 1305
    for table in ("customer_account", "holding_summary", "holding", "watch_item", "trade_history"):
        assert counts[table] == pytest.approx(v.expected()[table], rel=0.05), table
    assert counts["trade_request"] == pytest.approx(v.expected()["trade_request"], rel=0.25)
    assert counts["customer_account"] / SCALE == pytest.approx(5, rel=0.05)
    assert counts["trade_history"] / counts["trade"] == pytest.approx(2.4, rel=0.03)


def test_small_scales_still_have_a_market():
    v = Volumes(1, 1)
    assert (v.securities, v.companies, v.brokers) == (20, 15, 1)
    rows = everything(3, 1, 1)
    assert len(rows["security"]) == 20 and len(rows["trade"]) == round(3 * 57.6)


def test_rows_come_in_key_order_without_duplicates(data):
    for table in TABLES:
        positions = [table.column_names.index(c) for c in table.key]
        found = [tuple(row[i] for i in positions) for row in data[table.name]]
        if table.name in ("trade", "trade_history", "daily_market", "holding"):
            assert found == sorted(found), table.name  # SQLite and InnoDB append in order
        assert len(set(found)) == len(found), table.name
        assert all(len(row) == len(table.columns) for row in data[table.name]), table.name


def test_references_hold(data):
    v = Volumes(SCALE, DAYS)
    accounts = {row[0]: row for row in data["customer_account"]}
    symbols = {row[0] for row in data["security"]}
    assert {row[8] for row in data["trade"]} <= set(accounts)
    assert {row[5] for row in data["trade"]} <= symbols
    assert {row[1] for row in data["holding"]} <= set(accounts)
    assert {row[0] for row in data["holding_summary"]} <= set(accounts)
    assert {row[2] for row in data["customer_account"]} == set(range(1, SCALE + 1))
    for ca_id, b_id, c_id, *_ in data["customer_account"]:
        assert keymod.customer_of(ca_id) == c_id and 1 <= b_id <= v.brokers
    companies = {row[0] for row in data["company"]}
    assert {row[5] for row in data["security"]} == companies
    trade_ids = {row[0] for row in data["trade"]}
    assert {row[0] for row in data["trade_history"]} == trade_ids
    assert max({row[0] for row in data["holding"]}) < v.first_new_trade
    assert min({row[0] for row in data["holding"]}) > max(trade_ids)
    assert data["id_block"] == [("trade", v.first_new_trade)]


def test_summaries_are_the_sum_of_their_lots(data):
    lots: Counter[tuple[int, str]] = Counter()
    for _, ca_id, symb, _, _, qty in data["holding"]:
        lots[ca_id, symb] += qty
    assert {(ca, s): q for ca, s, q in data["holding_summary"]} == dict(lots)


def test_pending_trades_are_the_newest_and_limit_ones_have_requests(data):
    v = Volumes(SCALE, DAYS)
    status = {row[0]: row[2] for row in data["trade"]}
    first_pending = v.trades - v.pending + 1
    assert all(s == "CMPT" for t, s in status.items() if t < first_pending)
    assert {s for t, s in status.items() if t >= first_pending} == {"SBMT", "PNDG"}
    assert {row[0] for row in data["trade_request"]} == {
        t for t, s in status.items() if s == "PNDG"
    }
    times = [row[1] for row in data["trade"]]
    assert times == sorted(times)


def test_text_is_plain_ascii_without_quotes_and_fits(data):
    # the MariaDB loader writes values with repr(); this is what makes that safe
    for table, rows in data.items():
        widths = [
            int(k[4:].rstrip("?")) if k.startswith("str:") else None
            for _, k in TABLE[table].columns
        ]
        for row in rows[:: max(1, len(rows) // 2000)]:
            for value, width in zip(row, widths, strict=True):
                if isinstance(value, str):
                    assert value.isascii() and value.isprintable(), (table, value)
                    assert not set(value) & set("'\"\\%?"), (table, value)
                    assert width is not None and len(value) <= width, (table, value, width)
                else:
                    assert width is None, (table, value)


def test_groups_cover_every_table_once():
    tables = [t for group in GROUP_TABLES.values() for t in group]
    assert sorted(tables) == sorted(t.name for t in TABLES)


def test_keys_are_pure_functions():
    assert [keymod.symbol(i) for i in (0, 1, 26, 27)] == ["AAAAA", "AAAAB", "AAABA", "AAABB"]
    symbols = keymod.symbols(5000)
    assert symbols == sorted(symbols) and len(set(symbols)) == 5000
    assert len({keymod.tax_id(c) for c in range(1, 20_000)}) == 19_999
    assert keymod.account_id(3, 0) == 2 * ACCOUNT_SLOTS + 1
    counts = keymod.account_counts(10_000, 1)
    assert counts == keymod.account_counts(10_000, 1) and set(counts) == set(range(1, 10))
    assert sum(counts) / len(counts) == pytest.approx(5, rel=0.03)
    assert all(2000 <= keymod.base_price(i) < 3000 for i in range(3000))


def test_skew_is_non_uniform_but_covers_everything():
    import random

    skew = Skew(1000, 1, "customer")
    rng = random.Random(2)
    picks = Counter(skew.picks(rng, 200_000)) + Counter(skew.pick(rng) for _ in range(50_000))
    assert set(picks) <= set(range(1000)) and len(picks) >= 990
    top = sum(n for _, n in picks.most_common(100))
    assert 0.3 < top / picks.total() < 0.8  # the hottest 10% get far more than 10%
    chosen = skew.distinct(rng, 20)
    assert len(set(chosen)) == 20 and chosen == sorted(chosen)
    assert Skew(5, 1, "x").distinct(rng, 20) == [0, 1, 2, 3, 4]
