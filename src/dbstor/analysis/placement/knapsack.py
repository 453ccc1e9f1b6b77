"""Which objects to put on a fast tier of limited capacity: a 0/1 knapsack.

Weights are sizes in bytes, values the stall time (or I/O) the move saves. Exact by
branch and bound (items in value-density order, the fractional relaxation as the bound)
while the object count and the search stay small; greedy by density otherwise.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence

EXACT_MAX_OBJECTS = 200
NODE_LIMIT = 200_000


class _Budget(Exception):
    pass


def greedy(weights: Sequence[int], values: Sequence[float], capacity: int) -> list[int]:
    """Take items by value per byte, highest first, skipping those that no longer fit."""
    order = _density_order(weights, values)
    chosen, left = [], capacity
    for i in order:
        if weights[i] <= left:
            chosen.append(i)
            left -= weights[i]
    return sorted(chosen)


def exact(
    weights: Sequence[int], values: Sequence[float], capacity: int, node_limit: int = NODE_LIMIT
) -> list[int] | None:
    """The subset of largest total value within capacity, or None if the search ran out."""
    order = [i for i in _density_order(weights, values) if weights[i] <= capacity]
    free = [i for i in order if weights[i] == 0]
    items = [i for i in order if weights[i] > 0]
    w = [weights[i] for i in items]
    v = [values[i] for i in items]
    n = len(items)
    start = greedy(w, v, capacity)
    best_value = sum(v[k] for k in start)
    best = list(start)
    eps = 1e-9 * max(1.0, sum(v))
    nodes = 0
    taken: list[int] = []

    cum_w, cum_v = [0, *itertools.accumulate(w)], [0.0, *itertools.accumulate(v)]

    def bound(k: int, left: int, value: float) -> float:
        """Fill items k.. in density order while they fit, then a fraction of the next."""
        j = bisect.bisect_right(cum_w, cum_w[k] + left, lo=k) - 1  # items k..j-1 fit
        value += cum_v[j] - cum_v[k]
        if j < n:
            value += v[j] * (left - (cum_w[j] - cum_w[k])) / w[j]
        return value

    def search(k: int, left: int, value: float) -> None:
        nonlocal nodes, best_value, best
        nodes += 1
        if nodes > node_limit:
            raise _Budget
        if value > best_value + eps:
            best_value, best = value, list(taken)
        if k == n or bound(k, left, value) <= best_value + eps:
            return
        if w[k] <= left:
            taken.append(k)
            search(k + 1, left - w[k], value + v[k])
            taken.pop()
        search(k + 1, left, value)

    try:
        search(0, capacity, 0.0)
    except _Budget:
        return None
    return sorted(free + [items[k] for k in best])


def choose(
    weights: Sequence[int], values: Sequence[float], capacity: int, method: str = "auto"
) -> tuple[list[int], str, str | None]:
    """-> (indices chosen, 'exact' or 'greedy', a note when exact was wanted but not used)."""
    if method not in ("auto", "exact", "greedy"):
        raise ValueError(f"unknown method {method!r}")
    if method == "greedy":
        return greedy(weights, values, capacity), "greedy", None
    candidates = sum(1 for i, x in enumerate(values) if x > 0 and weights[i] <= capacity)
    if candidates > EXACT_MAX_OBJECTS:
        note = (
            f"{candidates} candidate objects: more than {EXACT_MAX_OBJECTS} for the exact "
            "search, chosen greedily by density"
        )
        return greedy(weights, values, capacity), "greedy", note
    result = exact(weights, values, capacity, NODE_LIMIT)
    if result is None:
        note = f"exact search stopped after {NODE_LIMIT} nodes; chosen greedily by density"
        return greedy(weights, values, capacity), "greedy", note
    return result, "exact", None


def _density_order(weights: Sequence[int], values: Sequence[float]) -> list[int]:
    """Indices of items worth moving (value > 0), best value per byte first."""
    worth = [i for i, x in enumerate(values) if x > 0]
    return sorted(
        worth, key=lambda i: (-(values[i] / weights[i]) if weights[i] else -float("inf"), i)
    )
