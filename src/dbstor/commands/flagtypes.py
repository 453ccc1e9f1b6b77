"""argparse types for the numbers flags take, each with its range in the refusal.

The same rules as a study file's fields (study/values.py): a count is 1 to 1,000,000 from a
flag or from a file. A refusal is argparse's, made one line by cli.OneLineParser.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from dbstor.units import MAX_COUNT


def _shown(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def whole(low: int, high: int) -> Callable[[str], int]:
    """A whole number from low to high, written in digits (no sign other than '-', no
    exponent, no fraction)."""

    def parse(text: str) -> int:
        digits = text.strip()
        body = digits[1:] if digits.startswith("-") else digits
        if body.isascii() and body.isdigit() and len(body) <= 19 and low <= int(digits) <= high:
            return int(digits)
        raise argparse.ArgumentTypeError(
            f"{_shown(text)} is not a whole number from {low:,} to {high:,}"
        )

    return parse


def above_zero(high: float, unit: str) -> Callable[[str], float]:
    """A finite number above zero and at most high (a rate such as MB/s)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and 0 < value <= high:
            return value
        raise argparse.ArgumentTypeError(
            f"{_shown(text)} is not a number above 0 and at most {high:,g} {unit}"
        )

    return parse


COUNT = whole(1, MAX_COUNT)  # jobs, repeats, client processes, workers...
SEED = whole(1, MAX_COUNT)  # as a study file's seed
PORT = whole(0, 65535)  # 0: any free port
