"""Steps in a series of runs over time: where a figure moved by more than the runs' own
spread (their repeats) and more than the noise of their neighbours, in the manner of
asv's step detection (a change is real only when it stands out of the scatter around it).

For each place between two runs, the runs before it (up to WINDOW) and after it (up to
WINDOW) are compared: their medians must differ by more than
- the noise of the neighbours: NOISE_FACTOR x the larger scatter of the two sides (their
  mean absolute deviation from their median, scaled to a standard deviation: one wild run
  among them widens it, so scattered runs do not make steps), and
- the runs' own spread: the widest relative spread of repeats at either side's runs, and
- MIN_STEP_PCT of the earlier median (a floor: identical figures are never a step).
A side needs MIN_SIDE runs, or repeats that measured its spread. Of neighbouring places
that all pass, the one with the largest change over its threshold is the step.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

WINDOW = 5
MIN_SIDE = 2
NOISE_FACTOR = 3.0
ABS_DEV_TO_SIGMA = 1.2533  # sqrt(pi / 2): mean absolute deviation -> sigma (normal)
MIN_STEP_PCT = 2.0


@dataclass(frozen=True)
class Step:
    index: int  # the first run after the step
    before: float  # median of the runs before it
    after: float  # median of the runs after it
    change_pct: float
    threshold_pct: float  # the change it had to exceed


def _scatter(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    return ABS_DEV_TO_SIGMA * statistics.fmean(abs(v - middle) for v in values)


def _sides_known(spreads: Sequence[float | None], i: int, count: int) -> bool:
    left = [s for s in spreads[max(0, i - WINDOW) : i] if s is not None]
    right = [s for s in spreads[i : i + WINDOW] if s is not None]
    return (min(i, WINDOW) >= MIN_SIDE or bool(left)) and (
        min(count - i, WINDOW) >= MIN_SIDE or bool(right)
    )


def judgeable(values: Sequence[float], spreads: Sequence[float | None] | None = None) -> bool:
    """Whether any place in the series has enough runs (or repeats) on both sides to tell
    a step from noise; when none has, "no step" means "too few runs to tell"."""
    spreads = list(spreads) if spreads is not None else [None] * len(values)
    return any(_sides_known(spreads, i, len(values)) for i in range(1, len(values)))


def _candidate(
    values: Sequence[float], spreads: Sequence[float | None], i: int
) -> tuple[float, Step] | None:
    left, right = values[max(0, i - WINDOW) : i], values[i : i + WINDOW]
    own_left = [s for s in spreads[max(0, i - WINDOW) : i] if s is not None]
    own_right = [s for s in spreads[i : i + WINDOW] if s is not None]
    if not _sides_known(spreads, i, len(values)):
        return None
    before, after = statistics.median(left), statistics.median(right)
    if before == 0:
        return None
    change_pct = (after - before) / abs(before) * 100
    noise_pct = NOISE_FACTOR * max(_scatter(left), _scatter(right)) / abs(before) * 100
    own_pct = max([*own_left[-1:], *own_right[:1], 0.0])
    threshold = max(noise_pct, own_pct, MIN_STEP_PCT)
    if abs(change_pct) <= threshold:
        return None
    return abs(change_pct) / threshold, Step(i, before, after, change_pct, threshold)


def find_steps(
    values: Sequence[float], spreads: Sequence[float | None] | None = None
) -> list[Step]:
    """The steps in `values` (oldest first); `spreads` holds each run's own spread in %
    of its figure (None where it was not repeated)."""
    spreads = list(spreads) if spreads is not None else [None] * len(values)
    found = [c for i in range(1, len(values)) if (c := _candidate(values, spreads, i))]
    steps: list[Step] = []
    for _score, step in sorted(found, key=lambda c: -c[0]):
        if all(abs(step.index - s.index) >= MIN_SIDE for s in steps):
            steps.append(step)
    return sorted(steps, key=lambda s: s.index)
