"""Placement advisor: knapsack, skew point, density, stall saved, poor candidates, and the
per-file statistics printed in EMC h6080 (Figure 5)."""

import csv
import itertools
import random
from pathlib import Path

import pytest

from dbstor.analysis.placement import knapsack
from dbstor.analysis.placement.analysis import (
    Tiers,
    analyse,
    parse_fast_capacity,
    skew_curve,
    skew_point,
)
from dbstor.analysis.placement.inputs import parse_sqlserver
from dbstor.analysis.placement.model import DbObject
from dbstor.errors import UserError

GIB = 1024**3
FIXTURE = Path(__file__).parents[2] / "fixtures" / "h6080_filestats.csv"


def obj(name, size_gib, reads, writes=0, stall=None, kind="data", **kw):
    return DbObject(name, kind, int(size_gib * GIB), reads, writes, stall_ms=stall, **kw)


# --- knapsack ------------------------------------------------------------------------


def test_exact_beats_greedy_on_the_textbook_case():
    # capacity 10: A (6, 36) has the best density (6/unit) but B + C (5+5, 25+25) = 50 > 36
    weights, values = [6, 5, 5], [36.0, 25.0, 25.0]
    assert knapsack.greedy(weights, values, 10) == [0]
    assert knapsack.exact(weights, values, 10) == [1, 2]
    assert knapsack.choose(weights, values, 10) == ([1, 2], "exact", None)
    assert knapsack.choose(weights, values, 10, "greedy") == ([0], "greedy", None)


def test_free_items_are_taken_worthless_and_oversized_ones_are_not():
    weights, values = [0, 4, 11, 3], [5.0, 0.0, 100.0, 1.0]
    assert knapsack.exact(weights, values, 10) == [0, 3]
    assert knapsack.greedy(weights, values, 10) == [0, 3]


def test_exact_matches_brute_force():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 10)
        weights = [rng.randint(1, 20) for _ in range(n)]
        values = [float(rng.randint(0, 30)) for _ in range(n)]
        capacity = rng.randint(0, 60)
        best = max(
            sum(values[i] for i in subset)
            for k in range(n + 1)
            for subset in itertools.combinations(range(n), k)
            if sum(weights[i] for i in subset) <= capacity
        )
        chosen = knapsack.exact(weights, values, capacity)
        assert sum(weights[i] for i in chosen) <= capacity
        assert sum(values[i] for i in chosen) == pytest.approx(best)


def test_falls_back_to_greedy_when_too_many_objects_or_too_long_a_search(monkeypatch):
    weights, values = [6, 5, 5], [36.0, 25.0, 25.0]
    monkeypatch.setattr(knapsack, "EXACT_MAX_OBJECTS", 2)
    chosen, method, note = knapsack.choose(weights, values, 10)
    assert (chosen, method) == ([0], "greedy") and "more than 2" in note
    monkeypatch.setattr(knapsack, "EXACT_MAX_OBJECTS", 200)
    monkeypatch.setattr(knapsack, "NODE_LIMIT", 1)
    chosen, method, note = knapsack.choose(weights, values, 10)
    assert (chosen, method) == ([0], "greedy") and "stopped after 1 nodes" in note


# --- skew ------------------------------------------------------------------------------


def test_skew_point_by_hand():
    # A: 10% of capacity, 60% of I/O; B: 20%, 30%; C: 70%, 10%.
    # Curve (0,0) (.1,.6) (.3,.9) (1,1); x + y = 1 between (.1,.6) and (.3,.9):
    # .7 + .5t = 1 -> t = .6 -> (.22, .78): 78% of the I/O in 22% of the capacity.
    objects = [obj("C", 7, 100), obj("A", 1, 600), obj("B", 2, 300)]
    curve = skew_curve(objects)
    assert [c for point in curve for c in point] == pytest.approx([0, 0, 0.1, 0.6, 0.3, 0.9, 1, 1])
    assert skew_point(curve) == pytest.approx((0.22, 0.78))


def test_no_skew_when_every_object_is_as_busy_per_gib():
    objects = [obj("a", 1, 100), obj("b", 3, 300)]
    assert skew_point(skew_curve(objects)) == pytest.approx((0.5, 0.5))


# --- analysis ----------------------------------------------------------------------------


def test_density_and_stall_saved_with_tier_latencies_given():
    # 2 GiB, 900 reads + 100 writes: 500 I/O per GiB. 10 ms -> 1 ms: 1000 x 9 = 9000 ms saved.
    result = analyse([obj("t", 2, 900, 100)], Tiers(4 * GIB, 1.0, "given", 10.0, "given"))
    (row,) = result["ranking"]
    assert row["density"] == 500 and row["read_pct"] == 90
    assert row["saved_ms"] == pytest.approx(9000)
    assert result["chosen"] == ["t"] and result["result"]["io_share"] == 1
    # share of the modelled stall today (1000 x 10 ms): 9000 / 10000
    assert result["result"]["stall_saved_share"] == pytest.approx(0.9)


def test_observed_stall_per_io_when_no_slow_latency():
    # 100 I/Os stalled 2000 ms (20 ms each); fast 0.5 ms: 2000 - 100 x 0.5 = 1950 ms saved.
    result = analyse([obj("t", 1, 80, 20, stall=2000.0)], Tiers(GIB, 0.5))
    row = result["ranking"][0]
    assert row["avg_stall_ms"] == 20 and row["saved_ms"] == pytest.approx(1950)
    assert result["objective"] == "stall_ms"
    assert result["result"]["stall_saved_share"] == pytest.approx(1950 / 2000)


def test_the_objective_is_io_moved_when_nothing_says_how_slow():
    objects = [obj("big", 3, 3000), obj("small", 1, 900)]
    result = analyse(objects, Tiers(GIB))
    assert result["objective"] == "io" and result["chosen"] == ["small"]
    assert result["result"]["stall_saved_ms"] is None
    assert any("no stall times" in n for n in result["notes"])


def test_logs_are_poor_candidates_unless_asked():
    objects = [
        obj("tpce_log", 1, 0, 50_000, stall=100_000.0, kind="log"),
        obj("data", 4, 5_000, 1_000, stall=60_000.0),
    ]
    result = analyse(objects, Tiers(10 * GIB))
    assert result["chosen"] == ["data"]
    log = next(r for r in result["ranking"] if r["name"] == "tpce_log")
    assert not log["candidate"] and "transaction log" in log["reason"]
    assert "h6080" in log["reason"]
    assert analyse(objects, Tiers(10 * GIB), include_logs=True)["chosen"] == ["tpce_log", "data"]


def test_sequential_writers_are_spotted_by_write_share_and_size():
    seq = obj("bulk", 1, 10, 990, stall=5000.0, bytes_written=990 * 256 * 1024)
    rnd = obj("oltp", 1, 10, 990, stall=5000.0, bytes_written=990 * 8192)
    result = analyse([seq, rnd], Tiers(5 * GIB))
    assert result["chosen"] == ["oltp"]
    assert (
        "sequential writer" in next(r for r in result["ranking"] if r["name"] == "bulk")["reason"]
    )


def test_bad_inputs_are_user_errors():
    with pytest.raises(UserError, match="no I/O counted"):
        analyse([obj("a", 1, 0)], Tiers(GIB))
    with pytest.raises(UserError, match="no database objects"):
        analyse([], Tiers(GIB))
    with pytest.raises(UserError, match="above 0"):
        analyse([obj("a", 1, 5)], Tiers(0))


# --- EMC h6080, Figure 5 -----------------------------------------------------------------


def test_fixture_is_figure_5_as_printed():
    """The fixture holds the 12 rows of Figure 5. Cells the figure cut off with '...'
    (BytesRead, the 9-digit IOStallMS of the Broker files) are completed with zeros; the
    digit count of IOStallMS follows from ISStallPCT, which is IOStallMS / (reads + writes)
    truncated to whole ms, and PerCentReads/Writes are the truncated read/write shares."""
    with open(FIXTURE, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 12
    for row in rows:
        reads, writes = int(row["NumberReads"]), int(row["NumberWrites"])
        ios = reads + writes
        assert int(row["IOStallMS"]) // ios == int(row["ISStallPCT"]), row["FileName"]
        assert 100 * reads // ios == int(row["PerCentReads"]), row["FileName"]
        assert 100 * writes // ios == int(row["PerCentWrites"]), row["FileName"]
        assert int(row["BytesRead"]) >= 8192 * reads  # a SQL Server read is 8 KiB or more


def test_h6080_figure_5_choice_and_reasons():
    objects = list(parse_sqlserver(FIXTURE).objects.values())
    # FileSize counts 8 KiB pages: the Broker files are 4,381,440 pages = 33.4 GiB
    assert {o.name: o.size_bytes for o in objects}["Broker1"] == 4381440 * 8192
    result = analyse(objects, Tiers(73 * 10**9, 0.5))  # one 73 GB flash drive's worth
    # The 8 Broker files are the densest (~337,000 I/O per GiB against ~115,000 for the
    # Customer files). Two fit; the exact knapsack picks the two with the most stall to
    # save, which are the ones with the highest stall per I/O (ISStallPCT 19 and 17):
    # h6080 "files that have a lot of reads and writes with a large ISStallPCT value
    # should be the first candidates to be moved to EFDs".
    assert result["chosen"] == ["Broker1", "Broker6"]
    ranking = {r["name"]: r for r in result["ranking"]}
    assert [r["name"] for r in result["ranking"][:8]] == [
        "Broker8",
        "Broker7",
        "Broker3",
        "Broker4",
        "Broker1",
        "Broker6",
        "Broker2",
        "Broker5",
    ]
    assert ranking["Broker1"]["reason"] == (
        "chosen: 12.0% of the I/O in 11.1% of the capacity; saves 218,146 s of stall "
        "(19.9 -> 0.5 ms per I/O)"
    )
    assert ranking["Broker8"]["reason"].startswith("not chosen: 33.4 GiB does not fit in the ")
    assert "would save 125,582 s of stall (11.5 -> 0.5 ms per I/O)" in ranking["Broker8"]["reason"]
    assert result["result"]["io_share"] == pytest.approx(0.2391, abs=1e-4)
    # little skew across these 12 files: 52% of the I/O in 48% of the capacity
    point = result["skew"]["point"]
    assert point["io_share"] == pytest.approx(0.520, abs=1e-3)
    assert point["capacity_share"] == pytest.approx(0.480, abs=1e-3)


def test_h6080_with_a_uniform_slow_tier_picks_the_busiest_files():
    objects = list(parse_sqlserver(FIXTURE).objects.values())
    result = analyse(objects, Tiers(73 * 10**9, 0.5, "given", 12.0, "given"))
    assert result["chosen"] == ["Broker7", "Broker8"] or result["chosen"] == ["Broker8", "Broker7"]
    # with 100 GB, two Broker files and three of the four Customer files fit
    result = analyse(objects, Tiers(100 * 10**9, 0.5))
    assert result["chosen"] == ["Broker1", "Broker6", "Customer2", "Customer1", "Customer5"]


def test_a_fast_tier_given_as_a_share_follows_the_database():
    """h6080 gave a 600 GB database 300 GB of flash: "50%" is half of whatever database
    the run measured, so a small database does not move everything."""
    objects = [obj("hot", 1, 900), obj("warm", 1, 300), obj("cold", 2, 10)]
    asked = parse_fast_capacity("50%")
    assert asked.share == 0.5 and asked.size_bytes is None
    tiers = Tiers(asked.bytes_for(0), capacity_share=asked.share)
    result = analyse(objects, tiers)
    assert result["fast_tier"]["capacity_bytes"] == 2 * GIB  # half of 4 GiB
    assert result["fast_tier"]["capacity_share"] == 0.5
    assert result["chosen"] == ["hot", "warm"]
    assert "(50% of the database's tables and indexes)" in result["assumptions"][0]
    assert parse_fast_capacity("300GB").bytes_for(10) == 300_000_000_000
    for wrong in ("0%", "150%", "lots"):
        with pytest.raises(ValueError):
            parse_fast_capacity(wrong)


def test_stall_is_written_to_the_digits_it_has():
    """A saving under half a second is not '0 s' (the h6080 table said 'saves 0 s of
    stall' for 25 objects)."""
    from dbstor.analysis.placement.analysis import stall_text

    assert [stall_text(ms) for ms in (16_200, 2_430, 180.4, 0.62, 9_960)] == [
        "16 s", "2.4 s", "180 ms", "0.62 ms", "10 s",
    ]  # fmt: skip
