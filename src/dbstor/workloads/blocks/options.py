"""The blocks workload's options, checked once: what a study may set and what it gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dbstor.errors import UserError

DEFAULT_UPDATE_PCT = 25.0  # TR-4415 drove SLOB2 at 75% selects / 25% updates
DEFAULT_BATCH = 1
MAX_BATCH = 1000
MAX_ROWS = 2**31 - 1  # row ids are 32-bit integers on every engine
DEFAULT_MIX: dict[str, float] = {"read": 100.0 - DEFAULT_UPDATE_PCT, "update": DEFAULT_UPDATE_PCT}
OPTIONS: dict[str, str] = {
    "update_pct": f"share of transactions that update rows, in % (default {DEFAULT_UPDATE_PCT:g}: 75/25 read/update as TR-4415 ran SLOB2)",
    "batch": f"rows per transaction, SLOB's work unit: a read reads this many random rows, an update updates this many in one commit (default {DEFAULT_BATCH}, at most {MAX_BATCH})",
}


@dataclass(frozen=True)
class BlocksOptions:
    update_pct: float = DEFAULT_UPDATE_PCT
    batch: int = DEFAULT_BATCH

    @property
    def mix(self) -> dict[str, float]:
        """Transaction type -> share in %: reads and updates."""
        return {"read": 100.0 - self.update_pct, "update": self.update_pct}


def _number(options: dict[str, Any], name: str, default: float, kind: type) -> Any:
    value = options.get(name, default)
    try:
        if isinstance(value, bool):
            raise ValueError
        number = kind(value)
        if number != float(value):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise UserError(
            f"blocks option {name} must be {'a whole' if kind is int else 'a'} number, not {value!r}"
        ) from None
    return number


def _within(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise UserError(f"blocks option {name} must be between {low:g} and {high:g}, not {value:g}")


def parse_options(options: dict[str, Any], rows: int) -> BlocksOptions:
    """The options checked against the rows per user table (UserError, one line, on any
    problem)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise UserError(
            f"unknown blocks option(s) {', '.join(unknown)}; known: {', '.join(OPTIONS)}"
        )
    if isinstance(rows, bool) or not isinstance(rows, int) or not 1 <= rows <= MAX_ROWS:
        raise UserError(
            f"blocks scale (rows per user table) must be a whole number from 1 to {MAX_ROWS:,}, "
            f"not {rows!r}"
        )
    update_pct = _number(options, "update_pct", DEFAULT_UPDATE_PCT, float)
    _within("update_pct", update_pct, 0, 100)
    batch = _number(options, "batch", DEFAULT_BATCH, int)
    _within("batch", batch, 1, MAX_BATCH)
    if batch > rows:
        raise UserError(
            f"blocks option batch ({batch}) exceeds the rows per user table ({rows:,}): "
            "lower batch or raise the scale"
        )
    return BlocksOptions(update_pct=update_pct, batch=batch)
