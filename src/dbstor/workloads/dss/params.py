"""Substitution parameters of the 22 queries: drawn by TPC-H's rules, or its validation set.

The value lists are the TPC-H specification's (clause 4.2.2 and 4.2.3: nations and their
regions, market segments, part types and containers, ship modes, the words of part names).
Each query's draws come from their own random stream, derived from (seed, stream, query),
so a query's parameters do not depend on which other queries run. seed None gives the
specification's validation parameters (clause 2.4.x.4) for every query and stream.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from decimal import Decimal
from typing import Any

Params = dict[str, Any]

REGIONS = ("AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST")
# nation name -> region key, in nation key order 0..24
NATIONS: dict[str, int] = {
    "ALGERIA": 0,
    "ARGENTINA": 1,
    "BRAZIL": 1,
    "CANADA": 1,
    "EGYPT": 4,
    "ETHIOPIA": 0,
    "FRANCE": 3,
    "GERMANY": 3,
    "INDIA": 2,
    "INDONESIA": 2,
    "IRAN": 4,
    "IRAQ": 4,
    "JAPAN": 2,
    "JORDAN": 4,
    "KENYA": 0,
    "MOROCCO": 0,
    "MOZAMBIQUE": 0,
    "PERU": 1,
    "CHINA": 2,
    "ROMANIA": 3,
    "SAUDI ARABIA": 4,
    "VIETNAM": 2,
    "RUSSIA": 3,
    "UNITED KINGDOM": 3,
    "UNITED STATES": 1,
}
SEGMENTS = ("AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD")
TYPE_SYLLABLES = (
    ("STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"),
    ("ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"),
    ("TIN", "NICKEL", "BRASS", "STEEL", "COPPER"),
)
CONTAINER_SYLLABLES = (
    ("SM", "LG", "MED", "JUMBO", "WRAP"),
    ("CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"),
)
SHIP_MODES = ("REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB")
COLORS = (
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "burnished",
    "chartreuse",
    "chiffon",
    "chocolate",
    "coral",
    "cornflower",
    "cornsilk",
    "cream",
    "cyan",
    "dark",
    "deep",
    "dim",
    "dodger",
    "drab",
    "firebrick",
    "floral",
    "forest",
    "frosted",
    "gainsboro",
    "ghost",
    "goldenrod",
    "green",
    "grey",
    "honeydew",
    "hot",
    "indian",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lawn",
    "lemon",
    "light",
    "lime",
    "linen",
    "magenta",
    "maroon",
    "medium",
    "metallic",
    "midnight",
    "mint",
    "misty",
    "moccasin",
    "navajo",
    "navy",
    "olive",
    "orange",
    "orchid",
    "pale",
    "papaya",
    "peach",
    "peru",
    "pink",
    "plum",
    "powder",
    "puff",
    "purple",
    "red",
    "rose",
    "rosy",
    "royal",
    "saddle",
    "salmon",
    "sandy",
    "seashell",
    "sienna",
    "sky",
    "slate",
    "smoke",
    "snow",
    "spring",
    "steel",
    "tan",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "yellow",
)
Q13_WORDS = (
    ("special", "pending", "unusual", "express"),
    ("packages", "requests", "accounts", "deposits"),
)

# The specification's validation parameters (its published answers are for scale factor 1).
VALIDATION: dict[int, Params] = {
    1: {"delta": 90},
    2: {"size": 15, "type": "BRASS", "region": "EUROPE"},
    3: {"segment": "BUILDING", "date": "1995-03-15"},
    4: {"date": "1993-07-01"},
    5: {"region": "ASIA", "date": "1994-01-01"},
    6: {"date": "1994-01-01", "discount": Decimal("0.06"), "quantity": 24},
    7: {"nation1": "FRANCE", "nation2": "GERMANY"},
    8: {"nation": "BRAZIL", "region": "AMERICA", "type": "ECONOMY ANODIZED STEEL"},
    9: {"color": "green"},
    10: {"date": "1993-10-01"},
    11: {"nation": "GERMANY"},
    12: {"shipmode1": "MAIL", "shipmode2": "SHIP", "date": "1994-01-01"},
    13: {"word1": "special", "word2": "requests"},
    14: {"date": "1995-09-01"},
    15: {"date": "1996-01-01"},
    16: {"brand": "Brand#45", "type": "MEDIUM POLISHED", "sizes": [49, 14, 23, 45, 19, 3, 36, 9]},
    17: {"brand": "Brand#23", "container": "MED BOX"},
    18: {"quantity": 300},
    19: {
        "quantity1": 1,
        "quantity2": 10,
        "quantity3": 20,
        "brand1": "Brand#12",
        "brand2": "Brand#23",
        "brand3": "Brand#34",
    },
    20: {"color": "forest", "date": "1994-01-01", "nation": "CANADA"},
    21: {"nation": "SAUDI ARABIA"},
    22: {"codes": ["13", "31", "23", "29", "30", "18", "17"]},
}


def fraction(scale: float) -> Decimal:
    """Q11's FRACTION: 0.0001 / SF (0.0001 at the validation scale factor 1)."""
    value = Decimal("0.0001") / Decimal(repr(float(scale)))
    return value.quantize(Decimal("1e-12")).normalize()


def parameters(number: int, scale: float, seed: int | None, stream: int) -> Params:
    """Query `number`'s parameters for query stream `stream` (seed None: validation)."""
    params = dict(VALIDATION[number]) if seed is None else DRAWS[number](_rng(seed, stream, number))
    if number == 11:
        params["fraction"] = fraction(scale)
    return params


def _rng(seed: int, stream: int, number: int) -> random.Random:
    digest = hashlib.sha256(f"dbstor-dss/{seed}/{stream}/{number}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _first_of_month(rng: random.Random, first: tuple[int, int], last: tuple[int, int]) -> str:
    start, end = first[0] * 12 + first[1] - 1, last[0] * 12 + last[1] - 1
    month = rng.randint(start, end)
    return f"{month // 12}-{month % 12 + 1:02d}-01"


def _new_year(rng: random.Random) -> str:
    return f"{rng.randint(1993, 1997)}-01-01"


def _brand(rng: random.Random) -> str:
    return f"Brand#{rng.randint(1, 5)}{rng.randint(1, 5)}"


def _container(rng: random.Random) -> str:
    return f"{rng.choice(CONTAINER_SYLLABLES[0])} {rng.choice(CONTAINER_SYLLABLES[1])}"


def _nation(rng: random.Random) -> str:
    return rng.choice(list(NATIONS))


DRAWS: dict[int, Callable[[random.Random], Params]] = {
    1: lambda r: {"delta": r.randint(60, 120)},
    2: lambda r: {
        "size": r.randint(1, 50),
        "type": r.choice(TYPE_SYLLABLES[2]),
        "region": r.choice(REGIONS),
    },
    3: lambda r: {"segment": r.choice(SEGMENTS), "date": f"1995-03-{r.randint(1, 31):02d}"},
    4: lambda r: {"date": _first_of_month(r, (1993, 1), (1997, 10))},
    5: lambda r: {"region": r.choice(REGIONS), "date": _new_year(r)},
    6: lambda r: {
        "date": _new_year(r),
        "discount": Decimal(r.randint(2, 9)) / 100,
        "quantity": r.randint(24, 25),
    },
    7: lambda r: dict(zip(("nation1", "nation2"), r.sample(list(NATIONS), 2), strict=True)),
    8: lambda r: _q8(r),
    9: lambda r: {"color": r.choice(COLORS)},
    10: lambda r: {"date": _first_of_month(r, (1993, 2), (1995, 1))},
    11: lambda r: {"nation": _nation(r)},
    12: lambda r: {
        **dict(zip(("shipmode1", "shipmode2"), r.sample(SHIP_MODES, 2), strict=True)),
        "date": _new_year(r),
    },
    13: lambda r: {"word1": r.choice(Q13_WORDS[0]), "word2": r.choice(Q13_WORDS[1])},
    14: lambda r: {"date": _first_of_month(r, (1993, 1), (1997, 12))},
    15: lambda r: {"date": _first_of_month(r, (1993, 1), (1997, 10))},
    16: lambda r: {
        "brand": _brand(r),
        "type": f"{r.choice(TYPE_SYLLABLES[0])} {r.choice(TYPE_SYLLABLES[1])}",
        "sizes": r.sample(range(1, 51), 8),
    },
    17: lambda r: {"brand": _brand(r), "container": _container(r)},
    18: lambda r: {"quantity": r.randint(312, 315)},
    19: lambda r: {
        "quantity1": r.randint(1, 10),
        "quantity2": r.randint(10, 20),
        "quantity3": r.randint(20, 30),
        "brand1": _brand(r),
        "brand2": _brand(r),
        "brand3": _brand(r),
    },
    20: lambda r: {"color": r.choice(COLORS), "date": _new_year(r), "nation": _nation(r)},
    21: lambda r: {"nation": _nation(r)},
    22: lambda r: {"codes": [str(c) for c in r.sample(range(10, 35), 7)]},
}


def _q8(rng: random.Random) -> Params:
    nation = _nation(rng)
    full_type = " ".join(rng.choice(syllables) for syllables in TYPE_SYLLABLES)
    return {"nation": nation, "region": REGIONS[NATIONS[nation]], "type": full_type}
