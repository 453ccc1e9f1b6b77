"""Fixed pools of names and words the generator picks from (built once, no randomness)."""

from __future__ import annotations

_ONSETS = ("B", "C", "D", "F", "G", "H", "J", "K", "L", "M", "N", "P", "R", "S", "T", "V", "W")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "io")
_CODAS = ("", "n", "r", "s", "l", "th", "ck", "nd", "rt", "m", "ley", "son", "ton", "man")

FIRST = tuple(f"{o}{v}{c}" for o in _ONSETS for v in _VOWELS[:5] for c in _CODAS[:6])  # 510
LAST = tuple(f"{o}{v}{c}{e}" for o in _ONSETS for v in _VOWELS for c in _CODAS for e in ("", "er"))
EXEC_NAMES = tuple(f"{FIRST[i * 7 % len(FIRST)]} {LAST[i * 13 % len(LAST)]}" for i in range(1024))
SECTORS = (
    "Basic Materials",
    "Capital Goods",
    "Conglomerates",
    "Consumer Cyclical",
    "Consumer Non-Cyclical",
    "Energy",
    "Financial",
    "Healthcare",
    "Services",
    "Technology",
    "Transportation",
    "Utilities",
)
INDUSTRIES = tuple(f"{SECTORS[i % 12]} group {i // 12 + 1}" for i in range(102))
RATINGS = ("AAA", "AA", "A", "BBB", "BB", "B", "CCC")
EXCHANGES = ("NYSE", "NASDAQ", "AMEX", "PCX")
DOMAINS = ("example.com", "example.net", "example.org", "mail.example")
ACCOUNT_KINDS = ("Individual", "Joint", "Roth IRA", "Traditional IRA", "Trust", "401(k)")
_WORDS = (
    "market", "growth", "value", "capital", "trust", "energy", "health", "systems",
    "global", "national", "pacific", "atlantic", "united", "general", "standard", "first",
)  # fmt: skip
_SUFFIXES = ("Inc.", "Corp.", "Holdings", "Group", "Ltd.", "Co.")


def person(bits: int) -> str:
    """A full name from 16 random bits."""
    return f"{FIRST[bits % len(FIRST)]} {LAST[(bits >> 5) % len(LAST)]}"


def company(co_id: int) -> str:
    """The company's name (a function of its id, so securities can name it too)."""
    a, b = _WORDS[co_id % 16].title(), LAST[co_id * 31 % len(LAST)]
    return f"{b} {a} {_SUFFIXES[co_id % len(_SUFFIXES)]}"


def description(bits: int) -> str:
    """About 100-150 characters of company description."""
    words = [_WORDS[(bits >> (2 * k)) % 16] for k in range(8)]
    return f"A {' '.join(words[:4])} company serving the {' '.join(words[4:])} industries since {1900 + bits % 120}."
