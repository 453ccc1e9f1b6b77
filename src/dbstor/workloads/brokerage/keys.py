"""Keys both the generator and the sessions derive without asking the database.

Symbols, tax ids, account numbers and their brokers are pure functions of ids and the
seed, so a session can pick an existing account or security (and a tax id to look a
customer up by) without a query, and a generator chunk can refer to rows another chunk
makes. Choices are skewed like TPC-E's non-uniform customer and security selection, here
with a TPC-C-style NURand: ((rand(0, A) | rand(0, N-1)) + C) mod N, A about N/4, which
makes some keys several times hotter than others while every key still gets picked.
"""

from __future__ import annotations

import random
import string
import sys
from array import array

from dbstor.workloads.brokerage.volumes import ACCOUNT_SLOTS, ACCOUNTS, Volumes

_LETTERS = string.ascii_uppercase


def u32(rng: random.Random, count: int) -> array:
    """`count` random 32-bit numbers from one call (little-endian on every host)."""
    out = array("I", rng.randbytes(4 * count))
    if sys.byteorder == "big":
        out.byteswap()
    return out


def symbol(index: int) -> str:
    """Security symbol of 0-based security `index`: five letters, in index order."""
    out = []
    for _ in range(5):
        index, digit = divmod(index, 26)
        out.append(_LETTERS[digit])
    return "".join(reversed(out))


def symbols(count: int) -> list[str]:
    return [symbol(i) for i in range(count)]


def base_price(index: int) -> int:
    """A security's reference price in cents: $20.00 to $29.99 (TPC-E's price range)."""
    return 2000 + (index * 7919) % 1000


def tax_id(c_id: int) -> str:
    """The customer's (unique) tax id."""
    return f"{(c_id * 7919) % 1000:03d}-TX-{c_id:09d}"


def account_id(c_id: int, k: int) -> int:
    """Account k (0-based) of customer c_id (1-based)."""
    return (c_id - 1) * ACCOUNT_SLOTS + k + 1


def customer_of(ca_id: int) -> int:
    return (ca_id - 1) // ACCOUNT_SLOTS + 1


def broker_of(ca_id: int, brokers: int) -> int:
    """The broker of an account (1-based)."""
    return (ca_id * 2654435761 >> 7) % brokers + 1


def account_counts(customers: int, seed: int) -> bytes:
    """Accounts per customer, indexed by c_id - 1: 1..9, 5 on average."""
    low, high = ACCOUNTS
    raw = random.Random(f"{seed}:accounts").randbytes(customers)
    return bytes(low + b % (high - low + 1) for b in raw)


class Skew:
    """NURand over 0..n-1 with its own constant C (fixed by the seed and a name)."""

    def __init__(self, n: int, seed: int, name: str):
        self.n = n
        self.a = (1 << (n // 4).bit_length()) - 1 if n >= 8 else 0
        self.c = random.Random(f"{seed}:nurand:{name}").randrange(n) if n > 1 else 0

    def pick(self, rng: random.Random) -> int:
        n = self.n
        return ((rng.randint(0, self.a) | rng.randrange(n)) + self.c) % n

    def picks(self, rng: random.Random, count: int) -> list[int]:
        """`count` draws at once, from two batches of raw random bits."""
        n, a, c = self.n, self.a, self.c
        return [
            (((x & a) | (y % n)) + c) % n
            for x, y in zip(u32(rng, count), u32(rng, count), strict=True)
        ]

    def distinct(self, rng: random.Random, count: int) -> list[int]:
        """`count` different keys (all of them when count >= n), sorted."""
        if count >= self.n:
            return list(range(self.n))
        chosen: set[int] = set()
        while len(chosen) < count:
            chosen.update(self.picks(rng, count - len(chosen)))
        return sorted(chosen)


class Keys:
    """Everything a session or a generator chunk needs to name existing rows."""

    def __init__(self, volumes: Volumes, seed: int):
        self.volumes = volumes
        self.seed = seed
        self.accounts = account_counts(volumes.customers, seed)
        self.symbols = symbols(volumes.securities)
        self.customer_skew = Skew(volumes.customers, seed, "customer")
        self.security_skew = Skew(volumes.securities, seed, "security")

    def pick_customer(self, rng: random.Random) -> int:
        return self.customer_skew.pick(rng) + 1

    def pick_account(self, rng: random.Random) -> int:
        c_id = self.pick_customer(rng)
        return account_id(c_id, rng.randrange(self.accounts[c_id - 1]))

    def pick_security(self, rng: random.Random) -> int:
        return self.security_skew.pick(rng)

    def pick_symbol(self, rng: random.Random) -> str:
        return self.symbols[self.security_skew.pick(rng)]
