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
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from dbstor.analysis.trust import steadiness
from dbstor.drivers.users import Instance
from dbstor.runs.database.point import DbPoint, TxnOutcome, measure_database_point
from dbstor.study.model import STEADY_SETTLE_S
from dbstor.telemetry.sampler import Sampler

SETTLE_S = STEADY_SETTLE_S  # a further round's own warm-up: users reconnect, caches stay warm
ROUND_SEED_STEP = 7919  # each round draws a fresh stream of transactions


def measure_until_steady(
    instances: list[Instance],
    point: DbPoint,
    new_sampler: Callable[[], Sampler],
    on_running: Callable[[dict[str, Any]], None] | None = None,
) -> TxnOutcome:
    """Measure the point (rounds until steady when `point.max_s` is set); `new_sampler()`
    gives each round its own host sampler."""
    began = time.monotonic()
    outcome = measure_database_point(instances, point, new_sampler(), on_running)
    warmup, rounds = point.warmup_s, 1
    while point.max_s and not outcome.drive.fatal:
        steady, _ = steadiness(outcome.drive.per_second)
        if steady is not False:
            break
        if time.monotonic() - began + SETTLE_S + point.duration_s > point.max_s:
            break
        again = replace(
            point,
            warmup_s=SETTLE_S,
            start_at=None,
            seed=point.seed + rounds * ROUND_SEED_STEP,
        )
        outcome = measure_database_point(instances, again, new_sampler(), on_running)
        warmup, rounds = SETTLE_S, rounds + 1
    outcome.rounds = rounds
    outcome.ran_s = time.monotonic() - began
    outcome.window_warmup_s = warmup
    outcome.max_s = point.max_s
    return outcome
