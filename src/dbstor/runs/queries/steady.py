"""A query point held until its throughput is steady, up to a maximum (SNIA PTS's idea, as
runs/database/steady.py does for transactions).

A query point's work is its query set, whose queries differ too much for a per-second rate
to mean anything; so the point runs its query set in rounds (each round the whole set, at
the point's streams, a cold point made cold again before each), and the rounds' throughputs
(queries per hour) are judged by SNIA PTS's test of rounds (analysis/trust.py:
`rounds_steadiness`, the same call that sets the point's flag in summary.py). While the
rounds fail it, or are too few to judge (3 at least), and one more round (as long as the
longest so far, or longer while rounds grow: `next_round_s`) fits within the point's
maximum, another round runs. The last round is the
point's measured window: so a point that reached steady is never flagged, and one that did
not keeps its flag and how far it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.analysis.queries import point_metrics
from dbstor.analysis.trust import rounds_steadiness
from dbstor.runs.queries.point import QueryOutcome, QueryPoint

MIN_ROUNDS = 3  # the steadiness test judges no fewer (analysis/trust.py: steadiness)


def round_rate(outcome: QueryOutcome, streams: int) -> float | None:
    """A round's throughput: its finished queries per hour (None when none finished)."""
    rate = point_metrics(outcome.records, outcome.stream_s, streams).get("queries_per_hour")
    return rate if rate else None


def rounds_verdict(rates: Sequence[float | None]) -> tuple[bool | None, float | None]:
    """The rounds' steadiness and drift (analysis/trust.py: `rounds_steadiness`), None
    when a round finished no query (nothing to judge by): the one call that both ends a
    held point and sets its flag."""
    if not rates or any(rate is None for rate in rates):
        return None, None
    return rounds_steadiness([float(rate) for rate in rates if rate is not None])


def another_round(
    rates: Sequence[float | None], spent_s: float, next_s: float, max_s: float | None
) -> bool:
    """Whether a query point runs another round: it is held (`max_s`), every round so far
    finished queries, the rounds fail the steadiness test or are too few to judge, and one
    more round, taking `next_s` (next_round_s), still ends within `max_s` of the point's
    start (`spent_s` seconds ago)."""
    if not max_s or not rates or any(rate is None for rate in rates):
        return False
    steady, _ = rounds_verdict(rates)
    if steady:
        return False
    return spent_s + next_s <= max_s


def next_round_s(took: Sequence[float]) -> float:
    """How long the next round may take: as long as the longest so far or, while rounds
    grow longer, the last one grown as much again (a point slowing down round after round
    must not overrun its maximum by a round)."""
    if len(took) >= 2 and took[-2] > 0 and took[-1] > took[-2]:
        return max(max(took), took[-1] * took[-1] / took[-2])
    return max(took, default=0.0)


def measure_until_steady(
    measure_round: Callable[[int], QueryOutcome],
    point: QueryPoint,
    on_round: Callable[[dict[str, Any]], None] | None = None,
) -> QueryOutcome:
    """Measure the point: `measure_round(n)` runs round n (1-based) and gives its outcome;
    rounds until steady when `point.max_s` is set, else one. `on_round(facts)` hears of each
    further round before it starts: its number and the rounds' queries per hour so far."""
    began = time.monotonic()
    rates: list[float | None] = []
    took: list[float] = []  # each round's seconds, its cold step included
    while True:
        round_began = time.monotonic()
        outcome = measure_round(len(rates) + 1)
        took.append(time.monotonic() - round_began)
        rates.append(None if outcome.fatal else round_rate(outcome, point.streams))
        if outcome.fatal or not another_round(
            rates, time.monotonic() - began, next_round_s(took), point.max_s
        ):
            break
        if on_round is not None:
            on_round({"round": len(rates) + 1, "rates": list(rates)})
    outcome.rounds = len(rates)
    outcome.max_s = point.max_s
    outcome.ran_s = time.monotonic() - began if point.max_s else None
    outcome.round_rates = rates if point.max_s else []
    return outcome
