"""The blocks workload's options, checked once: what a study may set and what it gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dbstor.errors import UserError
from dbstor.workloads.options import option_flag

DEFAULT_UPDATE_PCT = 25.0  # TR-4415 drove SLOB2 at 75% selects / 25% updates
# rows visited a call, on every path: one default whatever the engine, so that a workload
# object that never saw the engine (the runner's, for point metrics) counts rows right;
# 4 is where the server loop beats pgbench select-only (docs/benchmarks.md)
DEFAULT_BATCH = 4
MAX_BATCH = 1000
MAX_ROWS = 2**31 - 1  # row ids are 32-bit integers on every engine
DEFAULT_MIX: dict[str, float] = {"read": 100.0 - DEFAULT_UPDATE_PCT, "update": DEFAULT_UPDATE_PCT}
OPTIONS: dict[str, str] = {
    "update_pct": f"share of transactions that update rows, in % (default {DEFAULT_UPDATE_PCT:g}: 75/25 read/update as TR-4415 ran SLOB2)",
    "batch": f"rows per transaction (one call), SLOB's work unit: a read visits this many random rows, an update updates this many in one commit (default {DEFAULT_BATCH}, at most {MAX_BATCH}); latency is per call, a visit's mean is the call's / batch",
    "server_loop": "true (default): on PostgreSQL and MariaDB each call runs the visit loop inside the database (a PL/pgSQL function, a stored procedure), so the client costs next to nothing, as SLOB runs its loop in PL/SQL; false: one client statement per call (id IN (...)); SQLite always runs client statements",
}


@dataclass(frozen=True)
class BlocksOptions:
    update_pct: float = DEFAULT_UPDATE_PCT
    batch: int | None = None  # None: the default
    server_loop: bool = True
    rows: int = 10_000

    def uses_server_loop(self, dialect: str | None) -> bool:
        """Whether calls run the server-side loop on this dialect (None: not yet known,
        taken as a server engine)."""
        from dbstor.workloads.blocks.server import has_loop

        return self.server_loop and (dialect is None or has_loop(dialect))

    def batch_for(self, dialect: str | None = None) -> int:
        """Rows visited a call: the option, or the default (never more than the rows)."""
        return self.batch if self.batch is not None else min(DEFAULT_BATCH, self.rows)

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
    batch = _number(options, "batch", DEFAULT_BATCH, int) if "batch" in options else None
    if batch is not None:
        _within("batch", batch, 1, MAX_BATCH)
    if batch is not None and batch > rows:
        raise UserError(
            f"blocks option batch ({batch}) exceeds the rows per user table ({rows:,}): "
            "lower batch or raise the scale"
        )
    server_loop = option_flag("blocks", "server_loop", options.get("server_loop", True))
    return BlocksOptions(update_pct=update_pct, batch=batch, server_loop=server_loop, rows=rows)
