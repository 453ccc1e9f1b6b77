"""TPC-C's cardinalities and random rules (clauses 2.1.6, 4.3.2 and 4.3.3 of the spec).

NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x picks customer
ids (A = 1023), item ids (A = 8191) and last names (A = 255) so that some are much hotter
than others. C is a constant per field; the one for last names differs between the load
(C_LOAD) and the run (C_RUN) by TPC-C's rule (|C_RUN - C_LOAD| in 65..119, not 96 or 112).
All constants come from the seed, so the generator and every session agree on them.

Money and rates are exact decimals and times a date and time of day, TPC-C's types
(clause 1.3.1): the generator writes them as text ('12.34', '0.0525', '2023-11-14 22:13:20'),
which every engine's bulk path converts exactly; the sessions use Decimal and datetime.
"""

from __future__ import annotations

import random
import string
import sys
from array import array
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

DISTRICTS = 10  # per warehouse
CUSTOMERS = 3000  # per district
ITEMS = 100_000  # also stock rows per warehouse
ORDERS = 3000  # initial orders per district
NEW_ORDERS = 900  # the last 900 initial orders of each district are undelivered
FIRST_NEW_ORDER = ORDERS - NEW_ORDERS + 1  # 2101
LINES = (5, 15)  # order lines per order
UNUSED_ITEM = ITEMS + 1  # New-Order's 1% rollback asks for it
# the load's "now" (1,700,000,000 s after 1970, UTC), fixed so a seed gives the same rows;
# every time is UTC without a zone
LOAD_TIME = datetime(2023, 11, 14, 22, 13, 20)
LOAD_STAMP = "2023-11-14 22:13:20"  # LOAD_TIME as the generator writes it
WAREHOUSE_YTD = "300000.00"
DISTRICT_YTD = "30000.00"
CENT = Decimal("0.01")
SYLLABLES = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")
ORIGINAL = "ORIGINAL"

_ALNUM = (string.ascii_letters + string.digits).encode()
_TO_ALNUM = bytes(_ALNUM[i % len(_ALNUM)] for i in range(256))
_TO_DIGIT = bytes(ord("0") + i % 10 for i in range(256))
_TO_LETTER = bytes(ord("A") + i % 26 for i in range(256))


def money_text(cents: int) -> str:
    """Whole cents as decimal text with two places: -1000 -> '-10.00'."""
    whole, part = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}{whole}.{part:02d}"


def rate_text(basis_points: int) -> str:
    """A rate of 0..10,000 basis points (1/10,000) as DECIMAL(4,4) text: 525 -> '0.0525'."""
    return f"0.{basis_points:04d}"


def cents(count: int) -> Decimal:
    """Whole cents as an exact Decimal with two places: 4321 -> Decimal('43.21')."""
    return Decimal(count).scaleb(-2)


def money(value: Decimal | float | int) -> Decimal:
    """Money read from any driver, to the cent: psycopg's and mysqlclient's Decimal as it is,
    SQLite's INTEGER or REAL (binary, 37.019999999999996) rounded to the nearest cent."""
    return Decimal(value).quantize(CENT)


def last_name(number: int) -> str:
    """C_LAST for a number 0..999: three syllables by its digits (371 -> PRICALLYOUGHT)."""
    return SYLLABLES[number // 100] + SYLLABLES[number // 10 % 10] + SYLLABLES[number % 10]


@dataclass(frozen=True)
class Constants:
    """TPC-C's NURand constants C, drawn from the seed."""

    c_last_load: int
    c_last_run: int
    c_id: int
    item: int

    @classmethod
    def from_seed(cls, seed: int) -> Constants:
        rng = random.Random(f"{seed}:nurand")
        load = rng.randint(0, 255)
        while True:
            run = rng.randint(0, 255)
            delta = abs(run - load)
            if 65 <= delta <= 119 and delta not in (96, 112):
                break
        return cls(load, run, rng.randint(0, 1023), rng.randint(0, 8191))


def u32(rng: random.Random, count: int) -> array:
    """`count` random 32-bit numbers from one call (little-endian on every host)."""
    out = array("I", rng.randbytes(4 * count))
    if sys.byteorder == "big":
        out.byteswap()
    return out


class Text:
    """Random text drawn from one stream and handed out in slices that never overlap, so
    the data is as incompressible as TPC-C's random strings: a-strings (letters and
    digits), n-strings (digits) and letters."""

    BLOCK = 1 << 20

    def __init__(self, rng: random.Random, table: bytes = _TO_ALNUM):
        self.rng, self.table = rng, table
        self.buf, self.pos = "", 0

    def take(self, n: int) -> str:
        if self.pos + n > len(self.buf):
            self.buf = self.rng.randbytes(max(n, self.BLOCK)).translate(self.table).decode()
            self.pos = 0
        self.pos += n
        return self.buf[self.pos - n : self.pos]


def alnum(rng: random.Random) -> Text:
    return Text(rng, _TO_ALNUM)


def digits(rng: random.Random) -> Text:
    return Text(rng, _TO_DIGIT)


def letters(rng: random.Random) -> Text:
    return Text(rng, _TO_LETTER)
