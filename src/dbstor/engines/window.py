"""The engine's own figures over a measured window, in one neutral shape every engine fills
(Engine.window_figures) and results.json keeps per point as `engine_window`
(docs/results.md):

    {"seconds": 60.1,                       # between the engine's two readings
     "waits": {"db file sequential read":   # per wait event or wait type
                   {"waits": 5120, "wait_ms": 39424.0, "mean_ms": 7.7}},
     "rates": {"user commits/s": 812.4},    # named per-second rates over the window
     "ratios": {"buffer cache hit ratio": 0.918},   # fractions 0..1
     "why_null": {"log file sync": "..."}}  # a figure that is null, and why

A figure the engine could not give is null with its reason, never 0; a mean wait with no
wait in the window is null. Each engine reads its raw figures into an Edge at each of the
window's edges (its counters()), and turns two edges into this shape.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

SECTIONS = ("waits", "rates", "ratios")


@cache
def reader(engine: str) -> ModuleType | None:
    """engines/<engine>_window.py, where a server engine reads its own window figures
    (edge(engine) at each edge, window_figures(before, after)); None where it has none."""
    name = f"dbstor.engines.{engine}_window"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return None


def kin_reader(engine_class: type) -> ModuleType | None:
    """The window reader of an engine class or of the nearest engine it extends (a kin
    engine, as a PostgreSQL-wire engine of PostgreSQL, reads its parent's views)."""
    names = [c.__dict__["name"] for c in engine_class.__mro__ if "name" in c.__dict__]
    return next((own for n in names if (own := reader(n)) is not None), None)


@dataclass(frozen=True)
class Edge:
    """An engine's own raw reading at one edge of the window."""

    at: float  # time.monotonic() when it was read
    reading: Any = None  # the engine's rows, as its window_figures() wants them; None: unread
    why: str | None = None  # why it could not be read


def wait(waits: float | None, wait_ms: float | None) -> dict[str, float | None]:
    """One event's figures: waits, wait time and the mean wait (None with no wait)."""
    mean = wait_ms / waits if waits and wait_ms is not None else None
    return {"waits": waits, "wait_ms": wait_ms, "mean_ms": mean}


def unread(before: Edge | None, after: Edge | None) -> str | None:
    """Why two edges give no window (an edge missing or unread); None when both read."""
    for edge in (before, after):
        if edge is None:
            return "the engine's own figures were not read at both edges of the window"
        if edge.reading is None:
            return edge.why or "the engine's own figures could not be read"
    return None


def figures(
    before: Edge,
    after: Edge,
    waits: Mapping[str, dict[str, float | None]],
    counts: Mapping[str, float | None],
    ratios: Mapping[str, float | None] | None = None,
    why_null: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The neutral shape from an engine's waits, its counts over the window (each becomes
    a rate per second of the window between the two readings) and its ratios."""
    seconds = after.at - before.at
    rates = {
        name: value / seconds if value is not None and seconds > 0 else None
        for name, value in counts.items()
    }
    return {
        "seconds": seconds,
        "waits": {name: dict(w) for name, w in waits.items()},
        "rates": rates,
        "ratios": dict(ratios or {}),
        "why_null": dict(why_null or {}),
    }


def failed(why: str) -> dict[str, Any]:
    """The shape when the engine's figures could not be read: nothing, with the reason."""
    return {"seconds": None, "waits": {}, "rates": {}, "ratios": {}, "why_null": {"all": why}}


def _add(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else float(sum(values))  # type: ignore[arg-type]


def merge(parts: Iterable[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Several instances' or hosts' figures: waits, wait time and rates added (a figure one
    of them lacks is None), means recomputed, ratios kept only from a single part."""
    found = [p for p in parts if p is not None]
    if len(found) <= 1:
        return found[0] if found else None
    why: dict[str, str] = {}
    for part in found:
        why.update(part.get("why_null") or {})
    events = sorted({name for p in found for name in p.get("waits") or {}})
    waits = {}
    for name in events:
        rows = [(p.get("waits") or {}).get(name) or {} for p in found]
        waits[name] = wait(
            _add([r.get("waits") for r in rows]), _add([r.get("wait_ms") for r in rows])
        )
    names = sorted({name for p in found for name in p.get("rates") or {}})
    rates = {n: _add([(p.get("rates") or {}).get(n) for p in found]) for n in names}
    ratios = {n: None for p in found for n in p.get("ratios") or {}}
    for name in ratios:
        why[name] = "a ratio of one engine instance; several took part"
    seconds = [p.get("seconds") for p in found if p.get("seconds") is not None]
    return {
        "seconds": max(seconds) if seconds else None,
        "waits": waits,
        "rates": rates,
        "ratios": ratios,
        "why_null": why,
    }
