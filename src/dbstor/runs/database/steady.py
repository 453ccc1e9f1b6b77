"""A database point held until its throughput is steady, up to a maximum (SNIA PTS's idea:
measure rounds until the steady-state test holds over the measured window).

The point's first round is its warm-up and measured window as planned. When the window's
transactions per second fail the steadiness test (analysis/trust.py: `steadiness`, the
same call that sets the point's flag in summary.py) and another round fits within the
point's maximum, the users run another measured window after a short settle; the last
round is the point's measured window. So a point that reached steady is never flagged,
and one that did not keeps its flag and how far it was. The outcome records how many
rounds ran, how long the point ran and the maximum.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from dbstor.analysis.trust import steadiness
from dbstor.drivers.users import Instance
from dbstor.runs.database.point import DbPoint, TxnOutcome, measure_database_point
from dbstor.study.model import STEADY_SETTLE_S
from dbstor.telemetry.sampler import Sampler

SETTLE_S = STEADY_SETTLE_S  # a further round's own warm-up: users reconnect, caches stay warm
T = TypeVar("T")  # a round's outcome
ROUND_SEED_STEP = 7919  # each round draws a fresh stream of transactions


def hold_rounds(
    measure: Callable[[int], T],
    per_second: Callable[[T], Sequence[float]],
    failed: Callable[[T], bool],
    duration_s: float,
    max_s: float | None,
) -> tuple[T, int, float]:
    """Rounds of a point's window until `steadiness` of its per-second throughput holds,
    while one more round (SETTLE_S and the window) still fits within max_s (None: one round).
    measure(k) runs round k (0 the first, as planned; a further one after SETTLE_S); a
    failed round ends it. The last round, the rounds run and the seconds spent."""
    began = time.monotonic()
    outcome, rounds = measure(0), 1
    while max_s and not failed(outcome):
        if steadiness(per_second(outcome))[0] is not False:
            break
        if time.monotonic() - began + SETTLE_S + duration_s > max_s:
            break
        outcome, rounds = measure(rounds), rounds + 1
    return outcome, rounds, time.monotonic() - began


def measure_until_steady(
    instances: list[Instance],
    point: DbPoint,
    new_sampler: Callable[[], Sampler],
    on_running: Callable[[dict[str, Any]], None] | None = None,
) -> TxnOutcome:
    """Measure the point (rounds until steady when `point.max_s` is set); `new_sampler()`
    gives each round its own host sampler."""

    def measure(k: int) -> TxnOutcome:
        again = (
            point
            if k == 0
            else replace(
                point, warmup_s=SETTLE_S, start_at=None, seed=point.seed + k * ROUND_SEED_STEP
            )
        )
        return measure_database_point(instances, again, new_sampler(), on_running)

    outcome, rounds, ran_s = hold_rounds(
        measure,
        lambda o: o.drive.per_second,
        lambda o: o.drive.fatal,
        point.duration_s,
        point.max_s,
    )
    outcome.rounds, outcome.ran_s, outcome.max_s = rounds, ran_s, point.max_s
    outcome.window_warmup_s = point.warmup_s if rounds == 1 else SETTLE_S
    return outcome
