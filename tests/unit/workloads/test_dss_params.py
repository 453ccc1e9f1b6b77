import datetime
from decimal import Decimal

import pytest

from dbstor.workloads.dss.params import (
    COLORS,
    NATIONS,
    REGIONS,
    SHIP_MODES,
    TYPE_SYLLABLES,
    VALIDATION,
    fraction,
    parameters,
)


def test_same_seed_and_stream_same_parameters_other_streams_differ():
    for number in range(1, 23):
        assert parameters(number, 1, 7, 3) == parameters(number, 1, 7, 3)
    streams = [[parameters(n, 1, 7, s) for n in range(1, 23)] for s in range(4)]
    assert len({repr(s) for s in streams}) == 4
    seeds = [[parameters(n, 1, seed, 1) for n in range(1, 23)] for seed in (1, 2)]
    assert seeds[0] != seeds[1]


def test_none_seed_gives_the_specifications_validation_values():
    assert parameters(1, 1, None, 5) == {"delta": 90}
    assert parameters(6, 1, None, 0) == {
        "date": "1994-01-01",
        "discount": Decimal("0.06"),
        "quantity": 24,
    }
    assert parameters(11, 1, None, 0) == {"nation": "GERMANY", "fraction": Decimal("0.0001")}
    assert parameters(16, 1, None, 0)["sizes"] == [49, 14, 23, 45, 19, 3, 36, 9]
    assert set(VALIDATION) == set(range(1, 23))


def test_q11_fraction_scales_inversely():
    assert fraction(1) == Decimal("0.0001")
    assert fraction(0.01) == Decimal("0.01")
    assert fraction(10) == Decimal("0.00001")


def _month(iso):
    return datetime.date.fromisoformat(iso)


@pytest.mark.parametrize("stream", range(0, 60))
def test_draws_stay_within_the_specifications_ranges(stream):
    p = {n: parameters(n, 1, 11, stream) for n in range(1, 23)}
    assert 60 <= p[1]["delta"] <= 120
    assert 1 <= p[2]["size"] <= 50 and p[2]["type"] in TYPE_SYLLABLES[2]
    assert p[2]["region"] in REGIONS
    assert "1995-03-01" <= p[3]["date"] <= "1995-03-31"
    assert _month(p[3]["date"])  # a real day
    for n, first, last in ((4, "1993-01-01", "1997-10-01"), (10, "1993-02-01", "1995-01-01")):
        assert first <= p[n]["date"] <= last and p[n]["date"].endswith("-01")
    assert "1993-01-01" <= p[15]["date"] <= "1997-10-01"
    assert "1993-01-01" <= p[14]["date"] <= "1997-12-01"
    for n in (5, 6, 12, 20):
        assert p[n]["date"][5:] == "01-01" and "1993" <= p[n]["date"][:4] <= "1997"
    assert Decimal("0.02") <= p[6]["discount"] <= Decimal("0.09")
    assert p[6]["quantity"] in (24, 25)
    assert p[7]["nation1"] != p[7]["nation2"]
    assert REGIONS[NATIONS[p[8]["nation"]]] == p[8]["region"]
    assert len(p[8]["type"].split()) == 3
    assert p[9]["color"] in COLORS and p[20]["color"] in COLORS
    assert p[12]["shipmode1"] != p[12]["shipmode2"]
    assert {p[12]["shipmode1"], p[12]["shipmode2"]} <= set(SHIP_MODES)
    assert len(set(p[16]["sizes"])) == 8 and all(1 <= s <= 50 for s in p[16]["sizes"])
    assert len(p[16]["type"].split()) == 2
    assert 312 <= p[18]["quantity"] <= 315
    assert 1 <= p[19]["quantity1"] <= 10 <= p[19]["quantity2"] <= 20 <= p[19]["quantity3"] <= 30
    for key in ("brand1", "brand2", "brand3"):
        assert p[19][key][:6] == "Brand#" and set(p[19][key][6:]) <= set("12345")
    codes = p[22]["codes"]
    assert len(set(codes)) == 7 and all(10 <= int(c) <= 34 for c in codes)


def test_value_lists_have_the_specifications_sizes():
    assert len(NATIONS) == 25 and len(COLORS) == 92 and len(set(COLORS)) == 92
    assert [len(s) for s in TYPE_SYLLABLES] == [6, 5, 5]
